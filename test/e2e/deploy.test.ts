/**
 * deploy/ and the Dockerfile: the RBAC manifests grant every permission an upgrade asks for
 * (REQUIRED_PERMISSIONS, per condition) and nothing beyond it and a short, justified list of
 * extras; they apply with the real kubectl to the simulated cluster; and the Job's command line,
 * run against that cluster, upgrades it.
 */

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { loadScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import {
  describePermission,
  type PermissionCondition,
  type PermissionQuery,
  requiredPermissionQueries,
} from '../../src/planning/permissions.js';
import { runCtl } from '../helpers/run-ctl.js';
import { kubectlFor, makeToolSandbox, repoRoot, runTool, type ToolSandbox } from '../helpers/tools.js';
import { REQUIRED_PERMISSIONS } from '../../src/steps/index.js';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string; apiGroup: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

const DEPLOY = path.join(repoRoot, 'deploy');
const SA = { name: 'ctl-upgrade', namespace: 'redis' };

/** The YAML files of a folder of deploy/ (kubectl apply -f <folder> reads the same, not recursively). */
function manifestFiles(folder: string): string[] {
  const dir = path.join(DEPLOY, folder);
  return readdirSync(dir)
    .filter((name) => /\.(ya?ml|json)$/.test(name))
    .sort()
    .map((name) => path.join(dir, name));
}

function loadManifests(folder: string): Manifest[] {
  return manifestFiles(folder).flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
      assert.equal(document.errors.length, 0, `${file}: ${document.errors.join('; ')}`);
      return document.toJS() as Manifest;
    }),
  );
}

/**
 * Permissions granted beyond REQUIRED_PERMISSIONS, each with its reason. A rule in deploy/ that
 * is neither required nor listed here fails the least-privilege test.
 */
const EXTRA_PERMISSIONS: { group: string; resource: string; verbs: string[]; why: string }[] = [
  {
    group: '',
    resource: 'configmaps',
    verbs: ['list'],
    why: '`ctl upgrade status` without --cluster lists the state ConfigMaps (--state-store configmap)',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'roles',
    verbs: ['escalate', 'bind'],
    why: "Kubernetes refuses to write the operator's Role, or bind it, for a subject without all its permissions unless it has escalate and bind",
  },
  {
    group: 'config.openshift.io',
    resource: 'clusterversions',
    verbs: ['get'],
    why: 'check platform-supported reads the OpenShift version where it may (src/planning/openshift-version.ts); without it the check warns',
  },
];

/**
 * Kubernetes RBAC for one ServiceAccount: Roles through RoleBindings in their namespace,
 * ClusterRoles through RoleBindings (that namespace) or ClusterRoleBindings (everywhere).
 */
class Authorizer {
  constructor(private readonly objects: Manifest[]) {}

  allows(query: PermissionQuery): boolean {
    return this.rulesFor(query.namespace).some((rule) => ruleAllows(rule, query));
  }

  /** Rules that apply to requests in `namespace` (undefined: cluster-scoped requests). */
  rulesFor(namespace: string | undefined): Rule[] {
    const rules: Rule[] = [];
    for (const binding of this.objects) {
      if (binding.kind !== 'RoleBinding' && binding.kind !== 'ClusterRoleBinding') continue;
      if (!bindsServiceAccount(binding)) continue;
      if (binding.kind === 'RoleBinding' && binding.metadata.namespace !== namespace) continue;
      const ref = binding.roleRef;
      const role = this.objects.find(
        (object) =>
          object.kind === ref?.kind &&
          object.metadata.name === ref.name &&
          (ref.kind === 'ClusterRole' || object.metadata.namespace === binding.metadata.namespace),
      );
      assert.ok(
        role,
        `${binding.kind} ${binding.metadata.name} refers to a missing ${ref?.kind} ${ref?.name}`,
      );
      rules.push(...(role.rules ?? []));
    }
    return rules;
  }
}

/** `name` (a file of scripts/) and the scripts/ files it imports, at any depth. */
function scriptImports(name: string, seen = new Set<string>()): Set<string> {
  if (seen.has(name)) return seen;
  seen.add(name);
  const text = readFileSync(path.join(repoRoot, 'scripts', name), 'utf8');
  for (const match of text.matchAll(/^import [^;]*?from '\.\/([\w.-]+\.mjs)';$/gm))
    scriptImports(match[1]!, seen);
  return seen;
}

function bindsServiceAccount(binding: Manifest): boolean {
  return (binding.subjects ?? []).some(
    (subject) =>
      subject.kind === 'ServiceAccount' && subject.name === SA.name && subject.namespace === SA.namespace,
  );
}

function ruleAllows(rule: Rule, query: PermissionQuery): boolean {
  const resource = query.subresource ? `${query.resource}/${query.subresource}` : query.resource;
  // A rule limited to names never answers a question about no name in particular.
  if (rule.resourceNames && rule.resourceNames.length > 0) return false;
  return (
    (rule.apiGroups ?? []).some((group) => group === '*' || group === query.group) &&
    (rule.resources ?? []).some((r) => r === '*' || r === resource) &&
    (rule.verbs ?? []).some((verb) => verb === '*' || verb === query.verb)
  );
}

/** The situations deploy/ is made for, each with the folders that cover it. */
const SITUATIONS: {
  name: string;
  folders: string[];
  watched: string[];
  conditions: PermissionCondition[];
}[] = [
  {
    name: 'bundle install with the admission webhook and labelled namespaces',
    folders: ['.'],
    watched: [],
    conditions: ['always', 'bundle', 'admission', 'namespace-label'],
  },
  { name: 'helm install', folders: ['.'], watched: [], conditions: ['always', 'helm'] },
  {
    // The REC CRD read for --user-defined-modules: deploy/rbac.yaml's CRD rule (get) covers it.
    name: 'user-defined modules (--user-defined-modules)',
    folders: ['.'],
    watched: [],
    conditions: ['always', 'bundle', 'admission', 'user-defined-modules'],
  },
  {
    name: 'the Job: state and lock in the cluster (--state-store configmap)',
    folders: ['.'],
    watched: [],
    conditions: ['always', 'bundle', 'admission', 'cluster-state'],
  },
  {
    name: 'databases in app-a and app-b (multi-namespace/)',
    folders: ['.', 'multi-namespace'],
    watched: ['app-a', 'app-b'],
    conditions: ['always', 'bundle', 'admission', 'multi-namespace'],
  },
  {
    name: 'OpenShift (openshift/)',
    folders: ['.', 'openshift'],
    watched: [],
    conditions: ['always', 'bundle', 'admission', 'openshift'],
  },
  {
    name: 'OperatorHub install on OpenShift (openshift/ and olm/)',
    folders: ['.', 'openshift', 'olm'],
    watched: [],
    conditions: ['always', 'olm', 'admission', 'openshift'],
  },
];

function deniedQueries(objects: Manifest[], situation: (typeof SITUATIONS)[number]): string[] {
  const authorizer = new Authorizer(objects);
  const queries = requiredPermissionQueries(REQUIRED_PERMISSIONS, {
    namespace: SA.namespace,
    watchedNamespaces: [SA.namespace, ...situation.watched],
    conditions: new Set(situation.conditions),
  });
  assert.ok(queries.length > 20, `${situation.name}: ${queries.length} queries`);
  return queries.filter((query) => !authorizer.allows(query)).map(describePermission);
}

describe('deploy/: RBAC, Job and image', () => {
  const all = [
    ...loadManifests('.'),
    ...loadManifests('multi-namespace'),
    ...loadManifests('openshift'),
    ...loadManifests('olm'),
  ];

  it('covers every condition REQUIRED_PERMISSIONS knows', () => {
    const covered = new Set(SITUATIONS.flatMap((situation) => situation.conditions));
    for (const permission of REQUIRED_PERMISSIONS) {
      assert.ok(
        covered.has(permission.when),
        `REQUIRED_PERMISSIONS has a new condition "${permission.when}" (${permission.why}): grant it in deploy/ and add it here`,
      );
    }
  });

  for (const situation of SITUATIONS) {
    it(`grants every permission the plan needs: ${situation.name}`, () => {
      const objects = situation.folders.flatMap(loadManifests);
      assert.deepEqual(deniedQueries(objects, situation), []);
    });
  }

  it('grants nothing else: no wildcard, every verb required or listed as an extra', () => {
    const needed = new Set<string>();
    for (const permission of REQUIRED_PERMISSIONS) {
      const resource = permission.subresource
        ? `${permission.resource}/${permission.subresource}`
        : permission.resource;
      for (const verb of permission.verbs) needed.add(`${permission.group}|${resource}|${verb}`);
    }
    for (const extra of EXTRA_PERMISSIONS) {
      for (const verb of extra.verbs) needed.add(`${extra.group}|${extra.resource}|${verb}`);
    }
    const surplus: string[] = [];
    for (const object of all.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole')) {
      for (const rule of object.rules ?? []) {
        assert.equal(rule.nonResourceURLs, undefined, `${object.metadata.name}: nonResourceURLs`);
        for (const group of rule.apiGroups ?? []) {
          for (const resource of rule.resources ?? []) {
            for (const verb of rule.verbs ?? []) {
              assert.ok(
                ![group, resource, verb].includes('*'),
                `${object.kind} ${object.metadata.name}: a wildcard`,
              );
              if (!needed.has(`${group}|${resource}|${verb}`)) {
                surplus.push(
                  `${object.kind} ${object.metadata.name}: ${verb} ${resource}.${group || 'core'}`,
                );
              }
            }
          }
        }
      }
    }
    assert.deepEqual(surplus, []);
  });

  it('binds only the ctl-upgrade ServiceAccount, in the namespace of the cluster', () => {
    const accounts = all.filter((o) => o.kind === 'ServiceAccount');
    assert.deepEqual(
      accounts.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      [`${SA.namespace}/${SA.name}`],
    );
    for (const binding of all.filter((o) => o.kind.endsWith('Binding'))) {
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', ...SA }], binding.metadata.name);
    }
    // The cluster-wide grants hold cluster-scoped resources only.
    const clusterWide = new Authorizer(loadManifests('.')).rulesFor(undefined);
    const resources = clusterWide.flatMap((rule) => rule.resources ?? []).sort();
    assert.deepEqual(resources, [
      'customresourcedefinitions',
      'namespaces',
      'validatingwebhookconfigurations',
    ]);
  });

  it('the Job runs ctl upgrade run --yes -o json as that ServiceAccount, locked down', () => {
    const job = loadManifests('.').find((o) => o.kind === 'Job');
    assert.ok(job, 'deploy/ has a Job');
    assert.equal(job.metadata.namespace, SA.namespace);
    const pod = (job.spec as { template: { spec: Record<string, unknown> } }).template.spec as {
      serviceAccountName: string;
      restartPolicy: string;
      securityContext: Record<string, unknown>;
      containers: {
        name: string;
        image: string;
        args: string[];
        env: { name: string; value: string }[];
        securityContext: Record<string, unknown>;
      }[];
    };
    assert.equal(pod.serviceAccountName, SA.name);
    assert.equal(pod.restartPolicy, 'Never');
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.equal(pod.containers.length, 1);
    const container = pod.containers[0];
    assert.ok(container);
    assert.deepEqual(container.args.slice(0, 2), ['upgrade', 'run']);
    for (const flag of ['--yes', '--to']) assert.ok(container.args.includes(flag), flag);
    assert.equal(container.args[container.args.indexOf('-o') + 1], 'json');
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.deepEqual(container.securityContext.capabilities, { drop: ['ALL'] });
    // Preflight's backup goes to ctl's state folder, which is on a claim: it outlives the pod
    // (issue 38: an emptyDir went away with it).
    const stateHome = container.env.find((variable) => variable.name === 'XDG_STATE_HOME')?.value ?? '';
    const mounts = (container as unknown as { volumeMounts: { name: string; mountPath: string }[] })
      .volumeMounts;
    const mount = mounts.find((m) => stateHome.startsWith(`${m.mountPath}/`));
    assert.ok(mount, `XDG_STATE_HOME ${stateHome} is on a mounted volume`);
    const volume = (
      pod as unknown as { volumes: { name: string; persistentVolumeClaim?: { claimName: string } }[] }
    ).volumes.find((v) => v.name === mount.name);
    const claim = volume?.persistentVolumeClaim?.claimName;
    assert.ok(claim, 'the backup volume is a PersistentVolumeClaim');
    assert.ok(
      loadManifests('.').some((o) => o.kind === 'PersistentVolumeClaim' && o.metadata.name === claim),
      `deploy/ creates the claim ${claim}`,
    );
    assert.ok(container.env.some((e) => e.name === 'CTL_STATE_STORE' && e.value === 'configmap'));
  });

  it('the Dockerfile: non-root, the bundle without node_modules, what the package ships', () => {
    const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
    const packageJson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      files: string[];
      bin: Record<string, string>;
    };
    // Every image a stage starts from is a build argument, so a release pins each by digest
    // (--build-arg NAME=image@sha256:...), the helm stage too (issue 38).
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    assert.equal(froms.length, 3, dockerfile);
    for (const image of froms) {
      const arg = /^\$\{(\w+)\}$/.exec(image ?? '')?.[1];
      assert.ok(arg, `FROM ${image} is a build argument`);
      assert.match(dockerfile, new RegExp(`^ARG ${arg}=`, 'm'));
      assert.match(
        dockerfile,
        new RegExp(`--build-arg ${arg}=\\S+@sha256:<digest>`),
        `${arg}: how to pin it`,
      );
    }
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    // The bundle inlines every dependency: the image copies no node_modules.
    assert.doesNotMatch(runtime, /^(COPY|RUN) .*node_modules/m);
    assert.match(runtime, /COPY .*\bLICENSE\b/);
    assert.match(runtime, /\nUSER (65532|nonroot|node)/);
    assert.doesNotMatch(runtime, /\nUSER (0|root)\b/);
    assert.match(runtime, new RegExp(`ENTRYPOINT \\[.*"/app/${packageJson.bin.ctl}"\\]`));
    for (const entry of packageJson.files.filter((file) => !file.startsWith('!'))) {
      const folder = entry.replace(/\/.*$/, '');
      assert.match(runtime, new RegExp(`COPY .*\\b${folder}\\b`), `the image holds ${entry}`);
    }
    const ignored = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8');
    for (const copied of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'bin/',
      'src/',
      'scenarios/',
      'LICENSE',
      'scripts/bundle.mjs',
    ]) {
      assert.ok(ignored.includes(`!${copied}`), `.dockerignore lets ${copied} into the build context`);
    }
    // The build stage runs scripts/bundle.mjs: every script it imports, at any depth, is copied in
    // (the image build failed on one that was not, with no container engine here to notice).
    const build = dockerfile.split(/^FROM /m).find((stage) => /^\S+ AS build\b/.test(stage)) ?? '';
    for (const script of scriptImports('bundle.mjs')) {
      assert.match(
        build,
        new RegExp(`^COPY .*\\bscripts/${script.replace('.', '\\.')}\\b`, 'm'),
        `the build copies ${script}`,
      );
      assert.ok(
        ignored.includes(`!scripts/${script}`),
        `.dockerignore lets scripts/${script} into the build context`,
      );
    }
  });
});

describe('deploy/ applied to the simulated cluster with the real kubectl', () => {
  let sandbox: ToolSandbox;
  let cluster: SimulatedCluster;
  let env: NodeJS.ProcessEnv;
  const kubectl = async (args: string[]) => {
    const result = await runTool(kubectlFor(cluster.scenario.kubernetesVersion), args, { env });
    assert.equal(result.code, 0, `kubectl ${args.join(' ')}\n${result.stdout}\n${result.stderr}`);
    return result.stdout;
  };

  before(async () => {
    sandbox = makeToolSandbox('ctl-deploy-');
    cluster = await startSimulatedCluster({
      scenario: loadScenario('multi-namespace'),
      dir: path.join(sandbox.dir, 'sim'),
      fast: true,
    });
    env = { ...sandbox.env, KUBECONFIG: cluster.kubeconfigPath };
    // The emulator has no Job controller; serve batch/v1 Jobs as stored objects so the Job
    // manifest goes through the same kubectl apply as the rest.
    if (!cluster.kube.registry.find('batch', 'v1', 'jobs')) {
      cluster.kube.registry.register({
        group: 'batch',
        version: 'v1',
        kind: 'Job',
        listKind: 'JobList',
        plural: 'jobs',
        singular: 'job',
        namespaced: true,
        shortNames: [],
        categories: ['all'],
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        subresources: ['status'],
        builtin: true,
      });
    }
  });
  after(async () => {
    await cluster?.stop();
    sandbox?.cleanup();
  });

  it('kubectl apply -f deploy/ (and its three extras) creates every object, and a second apply changes nothing', async () => {
    const first = await kubectl([
      'apply',
      '-f',
      DEPLOY,
      '-f',
      path.join(DEPLOY, 'multi-namespace'),
      '-f',
      path.join(DEPLOY, 'openshift'),
      '-f',
      path.join(DEPLOY, 'olm'),
    ]);
    for (const line of [
      'serviceaccount/ctl-upgrade created',
      'role.rbac.authorization.k8s.io/ctl-upgrade created',
      'rolebinding.rbac.authorization.k8s.io/ctl-upgrade created',
      'clusterrole.rbac.authorization.k8s.io/ctl-upgrade created',
      'clusterrolebinding.rbac.authorization.k8s.io/ctl-upgrade created',
      'clusterrole.rbac.authorization.k8s.io/ctl-upgrade-watched-namespace created',
      'clusterrole.rbac.authorization.k8s.io/ctl-upgrade-openshift created',
      'role.rbac.authorization.k8s.io/ctl-upgrade-olm created',
      'job.batch/ctl-upgrade created',
    ]) {
      assert.ok(first.includes(line), `${line}\n${first}`);
    }
    const second = await kubectl([
      'apply',
      '-f',
      DEPLOY,
      '-f',
      path.join(DEPLOY, 'multi-namespace'),
      '-f',
      path.join(DEPLOY, 'openshift'),
      '-f',
      path.join(DEPLOY, 'olm'),
    ]);
    const lines = second.trim().split('\n');
    assert.ok(lines.length >= 10, second);
    assert.ok(
      lines.every((line) => line.endsWith(' unchanged')),
      second,
    );
  });

  it('the objects read back from the cluster grant every permission of each situation', async () => {
    const list = async (kinds: string, namespaced: boolean): Promise<Manifest[]> =>
      (
        JSON.parse(await kubectl(['get', kinds, ...(namespaced ? ['-A'] : []), '-o', 'json'])) as {
          items: Manifest[];
        }
      ).items;
    const applied = [
      ...(await list('roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io', true)),
      ...(await list(
        'clusterroles.rbac.authorization.k8s.io,clusterrolebindings.rbac.authorization.k8s.io',
        false,
      )),
    ].map((object) => ({ ...object, kind: object.kind }));
    assert.ok(applied.some((o) => o.kind === 'RoleBinding' && o.metadata.namespace === 'app-b'));
    for (const situation of SITUATIONS)
      assert.deepEqual(deniedQueries(applied, situation), [], situation.name);
    const job = JSON.parse(
      await kubectl(['get', 'job', 'ctl-upgrade', '-n', 'redis', '-o', 'json']),
    ) as Manifest;
    assert.equal(
      (job.spec as { template: { spec: { serviceAccountName: string } } }).template.spec.serviceAccountName,
      SA.name,
    );
  });

  it("the Job's command line upgrades the cluster (outside a pod: the API URL and CA from the simulator)", async () => {
    const job = loadManifests('.').find((o) => o.kind === 'Job');
    const container = (
      job?.spec as {
        template: { spec: { containers: { args: string[]; env: { name: string; value: string }[] }[] } };
      }
    ).template.spec.containers[0];
    assert.ok(container);
    const jobEnv = Object.fromEntries(
      container.env.filter((e) => e.name !== 'CTL_CA_FILE').map((e) => [e.name, e.value]),
    );
    const result = await runCtl(container.args, {
      cwd: sandbox.dir,
      timeoutMs: 120_000,
      env: {
        ...cluster.env,
        ...jobEnv,
        HOME: path.join(sandbox.dir, 'home'),
        XDG_STATE_HOME: path.join(sandbox.dir, 'state'),
      },
    });
    assert.equal(result.code, 0, `exit ${result.code}\n${result.stderr}`);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data?: { result?: string } });
    assert.equal(events.at(-1)?.type, 'done');
    assert.equal(events.at(-1)?.data?.result, 'succeeded');
    // --state-store configmap (from the Job's env): the state lives in the cluster.
    const state = await kubectl(['get', 'configmap', 'ctl-upgrade-state-rec', '-n', 'redis', '-o', 'name']);
    assert.equal(state.trim(), 'configmap/ctl-upgrade-state-rec');
  });
});
