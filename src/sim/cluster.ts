/**
 * One whole simulated cluster: a CA, the Kubernetes API emulator, the management API emulator,
 * the simulated operator and the artifact server (helm repository, bundles), wired together
 * from a scenario. `ctl sim up`, `ctl demo` and the end-to-end tests all start it through
 * `startSimulatedCluster`; SIMULATOR.md lists the files it writes.
 */

import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type RunningArtifactsServer, startArtifactsServer } from './artifacts/server.js';
import { worldOf } from './world/world.js';
import { AuditLog } from './audit.js';
import { writeKubeconfig } from './kube/kubeconfig.js';
import { type KubeServer, startKubeServer } from './kube/server.js';
import type { OperatorEvent } from './operator/events.js';
import { type RunningOperator, seedCluster, startOperator } from './operator/index.js';
import { startOlm } from './olm/olm.js';
import { RestModel } from './rest/model.js';
import { type RunningRemoteClusters, startRemoteClusters } from './rest/remote-clusters.js';
import { seedRemoteClusters } from './operator/remote-clusters.js';
import { type RunningRestServer, startRestServer } from './rest/server.js';
import { type Scenario, withFastTiming } from './scenario.js';
import { SimStartError } from './world/errors.js';
import { createCertificateAuthority, createServerCertificate } from './tls.js';

export interface SimulatedClusterOptions {
  scenario: Scenario;
  /** Where the files go; default a temporary folder, removed again by `stop()`. */
  dir?: string;
  /** Default: free ports. */
  kubePort?: number;
  apiPort?: number;
  artifactsPort?: number;
  /** Every simulated wait at zero (tests, demos). */
  fast?: boolean;
}

export interface SimulatedCluster {
  scenario: Scenario;
  dir: string;
  kubeUrl: string;
  apiUrl: string;
  /** Helm repository URL and root of `/bundles/<version>/...`. */
  artifactsUrl: string;
  /** `<dir>/kubeconfig`: one context, the scenario's namespace, a bearer token. */
  kubeconfigPath: string;
  caPath: string;
  audit: AuditLog;
  kube: KubeServer;
  rest: RunningRestServer & { model: RestModel };
  /** The other participating clusters of `remoteClusters:`, each with a management API of its own. */
  remoteClusters: RunningRemoteClusters;
  artifacts: RunningArtifactsServer;
  operator: RunningOperator;
  /** What `<dir>/env` exports: KUBECONFIG, CTL_API_URL, CTL_USERNAME, ... */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** The management API port inside the cluster's pods (`kubectl port-forward pod/rec-0 9443`). */
export const API_POD_PORT = 9443;

export async function startSimulatedCluster(options: SimulatedClusterOptions): Promise<SimulatedCluster> {
  const scenario = options.fast ? withFastTiming(options.scenario) : options.scenario;
  const ownsDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), 'ctl-sim-'));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files = {
    kubeconfig: path.join(dir, 'kubeconfig'),
    ca: path.join(dir, 'ca.pem'),
    env: path.join(dir, 'env'),
    audit: path.join(dir, 'audit.jsonl'),
    events: path.join(dir, 'events.jsonl'),
  };
  // A previous run's lines would be mistaken for this one's.
  writeFileSync(files.audit, '', { mode: 0o600 });
  writeFileSync(files.events, '', { mode: 0o600 });

  const stack = new ShutdownStack();
  // Bottom of the stack: the folder goes only after every server has stopped writing to it.
  if (ownsDir) stack.push(() => rmSync(dir, { recursive: true, force: true }));
  try {
    const ca = await createCertificateAuthority();
    const audit = new AuditLog(files.audit);
    // Unwound after every server: a request they still answer after closing writes nothing.
    stack.push(() => audit.close());
    const model = restModelFor(scenario);
    // Like a real cluster's API certificate, it names the service (what ctl verifies through its
    // port-forward), besides 127.0.0.1 and localhost (CTL_API_URL).
    const certificate = await createServerCertificate(ca, {
      ipAddresses: ['127.0.0.1'],
      dnsNames: ['localhost', ...clusterServiceDnsNames(scenario.cluster.name, scenario.namespace)],
    });
    const rest = await listening('--api-port', options.apiPort, () =>
      startRestServer({
        model,
        ca,
        audit,
        certificate,
        port: options.apiPort,
        faults: faultRulesOf(scenario, 'rest'),
      }),
    );
    stack.push(() => rest.close());

    const token = randomBytes(24).toString('hex');
    const [major = '1', minor = '32'] = scenario.kubernetesVersion.split('.');
    const kube = await listening('--kube-port', options.kubePort, () =>
      startKubeServer({
        ca,
        audit,
        token,
        user: 'ctl-sim-admin',
        port: options.kubePort,
        version: { major, minor },
        platform: scenario.platform,
        faults: faultRulesOf(scenario, 'kube'),
        portForward: (namespace, pod, port) =>
          namespace === scenario.namespace &&
          isClusterPod(pod, scenario.cluster.name) &&
          port === API_POD_PORT
            ? { host: '127.0.0.1', port: rest.port }
            : undefined,
      }),
    );
    stack.push(() => kube.close());
    stack.push(dropWatchesPeriodically(kube, scenario));

    await seedCluster(kube, model, scenario);
    const remoteClusters = await startRemoteClusters({ scenario, ca, audit });
    stack.push(() => remoteClusters.close());
    seedRemoteClusters(kube.store, scenario, remoteClusters.endpoints, apiUserOf(scenario));
    const operator = startOperator({
      store: kube,
      rest: model,
      scenario,
      events: (event: OperatorEvent) => appendFileSync(files.events, `${JSON.stringify(event)}\n`),
    });
    stack.push(() => operator.stop());
    if (scenario.operator.installedBy === 'olm') {
      const olm = startOlm({ store: kube.store, scenario });
      stack.push(() => olm.stop());
    }

    const artifacts = await listening('artifactsPort', options.artifactsPort, () =>
      startArtifactsServer({
        dialect: scenario.dialect,
        port: options.artifactsPort,
        versions: worldOf(scenario).operatorVersions(),
      }),
    );
    stack.push(() => artifacts.close());

    writeKubeconfig(files.kubeconfig, {
      server: kube.url,
      caPem: ca.certPem,
      token,
      namespace: scenario.namespace,
      contextName: `ctl-sim-${scenario.name}`,
    });
    writeFileSync(files.ca, ca.certPem, { mode: 0o644 });
    const user = apiUserOf(scenario);
    const env: Record<string, string> = {
      KUBECONFIG: files.kubeconfig,
      CTL_API_URL: rest.url,
      CTL_USERNAME: user.username,
      CTL_PASSWORD: user.password,
      CTL_CA_FILE: files.ca,
      CTL_BUNDLE:
        scenario.platform === 'openshift'
          ? artifacts.openshiftBundleUrlTemplate
          : artifacts.bundleUrlTemplate,
      CTL_HELM_REPO: artifacts.url,
      // The participants' APIs (remoteClusters:) have certificates of the same CA; ctl trusts a
      // participant's certificate only by a choice of its own (src/commands/remote-clusters.ts).
      ...(scenario.remoteClusters.length > 0 ? { CTL_PARTICIPANT_CA_FILE: files.ca } : {}),
    };
    // It holds the management API password: owner only.
    writeFileSync(files.env, envFileText(env, files.env), { mode: 0o600 });
    chmodSync(files.env, 0o600);
    chmodSync(files.kubeconfig, 0o600);

    return {
      scenario,
      dir,
      kubeUrl: kube.url,
      apiUrl: rest.url,
      artifactsUrl: artifacts.url,
      kubeconfigPath: files.kubeconfig,
      caPath: files.ca,
      audit,
      kube,
      rest: Object.assign(rest, { model }),
      remoteClusters,
      artifacts,
      operator,
      env,
      stop: () => stack.unwind(),
    };
  } catch (error) {
    await stack.unwind();
    throw error;
  }
}

function isClusterPod(pod: string, clusterName: string): boolean {
  return pod.startsWith(`${clusterName}-`) && /^\d+$/.test(pod.slice(clusterName.length + 1));
}

/**
 * The management API's cluster-wide facts; `seedCluster` then adds the scenario's users,
 * modules and databases. Actions complete only when the operator says so (after
 * `timing.databaseUpgrade`), not on the model's own clock.
 */
function restModelFor(scenario: Scenario): RestModel {
  return new RestModel({
    serverVersion: scenario.cluster.apiVersion,
    dialect: scenario.dialect,
    clusterName: scenario.cluster.name,
    namespace: scenario.namespace,
    createdTime: scenario.api.clusterCreatedTime === 'absent' ? null : undefined,
    nodes: scenario.cluster.nodes,
    modulesUpload: scenario.api.modulesUpload === 'enabled',
    headerFormAnswer: scenario.api.headerFormAnswer,
    actionDelayMs: undefined,
    failoverSeconds: scenario.timing.failover ?? 1,
  });
}

/**
 * The scenario's per-request faults of one emulator (rest/faults.ts, kube/faults.ts: a 409 on a
 * patch, a 410 on a watch, delays). Periodic watch drops are `dropWatchesPeriodically`'s.
 */
function faultRulesOf(scenario: Scenario, api: 'rest' | 'kube') {
  return scenario.faults
    .filter((fault) => fault.api === api && fault.dropAfterSeconds === undefined)
    .map((fault) => ({
      api,
      match: fault.match,
      ...(fault.status !== undefined ? { status: fault.status } : {}),
      ...(fault.times !== undefined ? { times: fault.times } : {}),
      ...(fault.rate !== undefined ? { rate: fault.rate } : {}),
      ...(fault.kind === 'reset' || fault.kind === 'delay' || fault.kind === 'echo'
        ? { kind: fault.kind }
        : {}),
      ...(fault.delayMs !== undefined ? { delayMs: fault.delayMs } : {}),
      ...(fault.seed !== undefined ? { seed: fault.seed } : {}),
    }));
}

/** `{api: kube, match: watch, dropAfterSeconds: N}`: every open watch is cut every N seconds. */
function dropWatchesPeriodically(kube: KubeServer, scenario: Scenario): () => Promise<void> {
  const timers = scenario.faults
    .filter((fault) => fault.api === 'kube' && fault.dropAfterSeconds !== undefined)
    .map((fault) => setInterval(() => kube.dropWatches(), (fault.dropAfterSeconds ?? 1) * 1000).unref());
  return async () => {
    for (const timer of timers) clearInterval(timer);
  };
}

/**
 * The user a rehearsal signs in as, whom `<dir>/env` names: the scenario's first user, the one
 * the cluster's credentials Secret holds too (operator/seed.ts), so that ctl given the env file
 * and ctl reading the Secret are the same user, with the same roles, as on the cluster the
 * scenario copies (a captured scenario's one user is the one ctl signed in as there). Not "the
 * first admin": a scenario whose users are RBAC users, or not admins, or whose first user's
 * password expired, is rehearsed as that user, and a test that wants another gives its own.
 */
function apiUserOf(scenario: Scenario): { username: string; password: string } {
  const [user] = scenario.cluster.users;
  if (!user) throw new SimStartError(`scenario ${scenario.name} has no management API user`);
  return user;
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function envFileText(env: Record<string, string>, file: string): string {
  const lines = Object.entries(env).map(([key, value]) => `export ${key}=${shellQuote(value)}`);
  // Sourced, these stay in the shell after the rehearsal and would point ctl and kubectl at a
  // simulator that is gone, even for a real cluster's context: the way back is one line.
  const leave = `# Back to your own clusters in this shell: unset ${Object.keys(env).join(' ')}`;
  return `# The simulated cluster's settings for kubectl, helm and ctl: source ${shellQuote(file)}\n${leave}\n${lines.join('\n')}\n`;
}

/** Turns "port in use" into exit 1 with a hint; other failures pass through. */
async function listening<T>(flag: string, port: number | undefined, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      const why = code === 'EADDRINUSE' ? 'is already in use' : 'may not be used by this user';
      throw new SimStartError(`port ${port ?? '(free)'} on 127.0.0.1 ${why}`, {
        hint: `Choose another ${flag}, or leave it out to use a free port.`,
        cause: error,
      });
    }
    throw error;
  }
}

/** Stops what was started, newest first, even when one stop fails. */
class ShutdownStack {
  readonly #steps: (() => Promise<void> | void)[] = [];
  #unwound: Promise<void> | undefined;

  push(step: () => Promise<void> | void): void {
    this.#steps.push(step);
  }

  unwind(): Promise<void> {
    this.#unwound ??= (async () => {
      for (const step of this.#steps.reverse()) {
        try {
          await step();
        } catch {
          // Keep stopping the rest: a half-stopped simulator holds ports.
        }
      }
    })();
    return this.#unwound;
  }
}

/**
 * The names a client may reach the cluster's management API Service by: the REC's Service is
 * named after the cluster (DOCS `kubernetes/re-clusters/connect-to-admin-console.md`), so
 * `<rec>.<ns>.svc`, its `cluster.local` form, and the bare name inside the namespace.
 */
function clusterServiceDnsNames(cluster: string, namespace: string): string[] {
  return [`${cluster}.${namespace}.svc`, `${cluster}.${namespace}.svc.cluster.local`, cluster];
}
