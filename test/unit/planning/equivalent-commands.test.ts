/**
 * The commands a person pastes name the kubeconfig and context chosen for ctl, quoted so that a
 * hostile name stays one argument: each printed command is run here by a real POSIX shell, with
 * stand-ins for kubectl, oc and helm that record the argv and KUBECONFIG they get.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import {
  ctlPlanTo,
  ctlRunPlan,
  ctlRunTo,
  ctlTarget,
  ctlTargetOf,
  ctlCommand,
  curlApi,
  helmCommand,
  helmUpgradeArgv,
  helmUpgradeCommand,
  kubectl,
  kubectlApply,
  kubectlMergePatch,
  type KubeTarget,
  oc,
  printManifest,
} from '../../../src/planning/equivalent-commands.js';
import { tempDir } from '../../helpers/temp.js';
import { checkResumeKeepsSavedPlan } from '../../../src/commands/run-saved-plan.js';
import { nextPlanCommand } from '../../../src/commands/next-command.js';
import { isCtlError } from '../../../src/errors.js';
import { runChecks } from '../../../src/planning/checks/index.js';
import type { Plan } from '../../../src/planning/plan.js';
import { renderTargets } from '../../../src/planning/render-targets.js';
import { loadSavedPlan } from '../../../src/planning/saved-plan.js';
import type { UpgradeTargets } from '../../../src/planning/targets.js';
import { newState } from '../../../src/run/state.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { grantEverything, makeSnapshot, makeTarget } from './snapshot-fixture.js';

const HOSTILE = [
  "prod'; touch pwned-quote #",
  'prod$(touch pwned-subst)',
  'prod`touch pwned-backtick`',
  'prod"; touch pwned-dquote; "',
  'prod && touch pwned-and',
  'ctx with spaces',
  '-dash-first',
];

/** A folder with recording stand-ins for the three clients, ctl and curl, and where they record. */
function recorders(): { dir: string; bin: string; log: string } {
  const dir = tempDir('ctl-paste-');
  const bin = join(dir, 'bin');
  const log = join(dir, 'log');
  spawnSync('mkdir', [bin]);
  for (const name of ['kubectl', 'oc', 'helm', 'ctl', 'curl']) {
    const file = join(bin, name);
    // One record per call: the binary, each argument, then KUBECONFIG, NUL-separated.
    writeFileSync(
      file,
      `#!/bin/sh\n{ printf '%s\\0' ${name} "$@"; printf 'KUBECONFIG=%s\\0' "\${KUBECONFIG-}"; printf '\\n'; } >> '${log}'\n`,
    );
    chmodSync(file, 0o755);
  }
  return { dir, bin, log };
}

/** Runs `command` in sh as pasted, in `dir`, and returns each call's argv and KUBECONFIG. */
function paste(
  command: string,
  where: { dir: string; bin: string; log: string },
): { argv: string[]; kubeconfig: string }[] {
  rmSync(where.log, { force: true });
  const result = spawnSync('/bin/sh', ['-c', command], {
    cwd: where.dir,
    env: { PATH: `${where.bin}${delimiter}/usr/bin:/bin`, HOME: where.dir },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `sh -c ${command}\n${result.stderr}`);
  if (!existsSync(where.log)) return [];
  return readFileSync(where.log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const words = line.split('\0').slice(0, -1);
      const env = words.pop() ?? '';
      return { argv: words, kubeconfig: env.slice('KUBECONFIG='.length) };
    });
}

function noneInjected(dir: string): void {
  for (const name of ['pwned-quote', 'pwned-subst', 'pwned-backtick', 'pwned-dquote', 'pwned-and']) {
    assert.equal(existsSync(join(dir, name)), false, `${name} was created: a name became code`);
  }
}

describe('equivalent commands name the kubeconfig and context chosen for ctl', () => {
  it('nothing chosen: the commands are as before, with no flag', () => {
    assert.equal(kubectl({}, 'get', 'rec', '-n', 'redis'), 'kubectl get rec -n redis');
    assert.equal(oc({}, 'get', 'csv'), 'oc get csv');
    assert.equal(
      kubectlMergePatch({}, 'rec', 'rec', 'redis', { spec: { a: 1 } }),
      `kubectl patch rec rec -n redis --type merge -p '{"spec":{"a":1}}'`,
    );
  });

  it('a chosen file and context come first, before the subcommand (and before any --)', () => {
    const target: KubeTarget = { kubeconfigs: ['/home/me/k/prod.yaml'], context: 'prod' };
    assert.equal(
      kubectl(target, 'exec', '-it', 'rec-0', '-n', 'redis', '--', 'rladmin', 'status'),
      'kubectl --kubeconfig /home/me/k/prod.yaml --context prod exec -it rec-0 -n redis -- rladmin status',
    );
    assert.equal(
      kubectlApply(target, 'bundle.yaml', 'redis', 'oc'),
      'oc --kubeconfig /home/me/k/prod.yaml --context prod apply --server-side --force-conflicts --field-manager=ctl -n redis -f bundle.yaml',
    );
    // helm's spelling of the context flag.
    assert.equal(
      helmCommand(target, 'history', 'rel'),
      'helm --kubeconfig /home/me/k/prod.yaml --kube-context prod history rel',
    );
    // The management API is reached by URL: curl names no kubeconfig.
    assert.doesNotMatch(curlApi('GET', '/v1/nodes'), /kubeconfig|context/);
  });

  it('several KUBECONFIG files: the variable, which kubectl and helm merge as ctl did', () => {
    const target: KubeTarget = { kubeconfigs: ['/a/one', '/b/two files'] };
    assert.equal(
      kubectl(target, 'get', 'rec'),
      `KUBECONFIG='/a/one${delimiter}/b/two files' kubectl get rec`,
    );
  });

  it('hostile context and kubeconfig names stay one argument each, in a real shell; none becomes code', () => {
    const where = recorders();
    for (const context of HOSTILE) {
      const kubeconfig = join(where.dir, `k ${context}.yaml`);
      const target: KubeTarget = { kubeconfigs: [kubeconfig], context };
      const patch = kubectlMergePatch(target, 'rec', 'rec', 'redis', { spec: { versionTag: "7.8.2-6'x" } });
      const [call] = paste(patch, where);
      assert.deepEqual(call?.argv, [
        'kubectl',
        '--kubeconfig',
        kubeconfig,
        '--context',
        context,
        'patch',
        'rec',
        'rec',
        '-n',
        'redis',
        '--type',
        'merge',
        '-p',
        `{"spec":{"versionTag":"7.8.2-6'x"}}`,
      ]);
      const [ocCall] = paste(
        oc(target, 'adm', 'policy', 'add-scc-to-user', 'scc', '-z', 'rec', '-n', 'redis'),
        where,
      );
      assert.deepEqual(ocCall?.argv.slice(0, 5), ['oc', '--kubeconfig', kubeconfig, '--context', context]);
      const [helmCall] = paste(helmCommand(target, 'status', 'rel'), where);
      assert.deepEqual(helmCall?.argv.slice(0, 5), [
        'helm',
        '--kubeconfig',
        kubeconfig,
        '--kube-context',
        context,
      ]);
      // Several files: KUBECONFIG carries them, hostile paths and all.
      const several: KubeTarget = { kubeconfigs: [kubeconfig, join(where.dir, 'b')], context };
      const [merged] = paste(kubectl(several, 'get', 'rec'), where);
      assert.deepEqual(merged?.argv, ['kubectl', '--context', context, 'get', 'rec']);
      assert.equal(merged?.kubeconfig, several.kubeconfigs?.join(delimiter));
    }
    noneInjected(where.dir);
  });

  it('ctl upgrade plan/run --to repeat the -n and --cluster given, after --to and before the words', () => {
    assert.equal(ctlPlanTo({}, '8.2.0-18'), 'ctl upgrade plan --to 8.2.0-18');
    const given = ctlTarget({ kubeconfigs: ['/k/prod.yaml'] }, { namespace: 'prod', cluster: 'rec-a' });
    assert.equal(
      ctlPlanTo(given, '8.2.0-18'),
      'ctl --kubeconfig /k/prod.yaml upgrade plan --to 8.2.0-18 -n prod --cluster rec-a',
    );
    // The caller's words last: the value of its last flag may follow the command (`<its package>`).
    assert.equal(
      ctlRunTo(ctlTarget({}, { cluster: 'rec-a' }), '8.2.0-18', '--remediate', '--module-file'),
      'ctl upgrade run --to 8.2.0-18 --cluster rec-a --remediate --module-file',
    );
    assert.equal(
      ctlRunTo(ctlTarget({}, { namespace: 'prod' }), '8.2.0-18', '--user-defined-modules', 'FILE'),
      'ctl upgrade run --to 8.2.0-18 -n prod --user-defined-modules FILE',
    );
    // Not given (or given empty): not named, as ctl found the namespace and cluster without them.
    assert.equal(
      ctlRunTo(ctlTarget({}, { namespace: '', cluster: undefined }), '8.2.0-18'),
      'ctl upgrade run --to 8.2.0-18',
    );
    assert.equal(
      ctlPlanTo(
        ctlTargetOf({ kubeTarget: { context: 'eu' }, requestedNamespace: 'prod', requestedCluster: 'rec-a' }),
        '1.2.3-4',
      ),
      'ctl --context eu upgrade plan --to 1.2.3-4 -n prod --cluster rec-a',
    );
  });

  it('hostile -n and --cluster values stay one argument each, in a real shell; none becomes code', () => {
    const where = recorders();
    for (const name of [...HOSTILE, '<prod>', 'prod<x>y']) {
      const kubeconfig = join(where.dir, `k ${name}.yaml`);
      const target = ctlTarget(
        { kubeconfigs: [kubeconfig], context: name },
        { namespace: name, cluster: name },
      );
      const [plan] = paste(ctlPlanTo(target, '8.2.0-18', '--out', 'plan.json'), where);
      assert.deepEqual(plan?.argv, [
        'ctl',
        '--kubeconfig',
        kubeconfig,
        '--context',
        name,
        'upgrade',
        'plan',
        '--to',
        '8.2.0-18',
        '-n',
        name,
        '--cluster',
        name,
        '--out',
        'plan.json',
      ]);
      const [run] = paste(ctlRunTo(target, '8.2.0-18', '--yes'), where);
      assert.deepEqual(run?.argv.slice(5), [
        'upgrade',
        'run',
        '--to',
        '8.2.0-18',
        '-n',
        name,
        '--cluster',
        name,
        '--yes',
      ]);
    }
    noneInjected(where.dir);
  });

  it('a command inside "$(...)" (the OLM approval) keeps the quoting', async () => {
    const { olmUpgradeCommands } = await import('../../../src/planning/olm.js');
    const where = recorders();
    const context = HOSTILE[0] as string;
    const commands = olmUpgradeCommands(
      { context },
      {
        csv: 'redis-enterprise-operator.v7.4.6-2',
        subscription: { name: 'sub', channel: '7.8.2', approval: 'Manual' },
        installPlans: [],
      } as unknown as Parameters<typeof olmUpgradeCommands>[1],
      'redis',
      '7.8.2-6',
    );
    const approve = commands.find((c) => c.command.includes('installplan'));
    assert.ok(approve, JSON.stringify(commands));
    const calls = paste(approve.command, where);
    // The inner oc (which names the plan) and the outer one both get the context whole.
    assert.deepEqual(
      calls.map((c) => c.argv.slice(0, 3)),
      [
        ['oc', '--context', context],
        ['oc', '--context', context],
      ],
    );
    noneInjected(where.dir);
  });

  it("helm's printed upgrade is the operator step's argv after the same target flags", () => {
    const target: KubeTarget = { kubeconfigs: ['/k/prod.yaml'], context: HOSTILE[0] as string };
    const upgrade = {
      release: 'redis-enterprise',
      namespace: 'redis',
      chart: 'redis-enterprise-operator',
      repo: 'https://helm.redis.io',
      chartVersion: '7.8.2-6',
      openshift: false,
    };
    const where = recorders();
    const [call] = paste(helmUpgradeCommand(target, upgrade), where);
    assert.deepEqual(call?.argv, [
      'helm',
      '--kubeconfig',
      '/k/prod.yaml',
      '--kube-context',
      HOSTILE[0],
      ...helmUpgradeArgv(upgrade, true),
    ]);
  });
});

/** The text of `text` between `before` and `after` (the first of each), failing when either is missing. */
function between(text: string, before: string, after: string): string {
  const start = text.indexOf(before);
  assert.ok(start >= 0, `no "${before}" in: ${text}`);
  const from = start + before.length;
  const end = after === '' ? text.length : text.indexOf(after, from);
  assert.ok(end >= 0, `no "${after}" after "${before}" in: ${text}`);
  return text.slice(from, end);
}

/** The hint of the UsageError `run` throws (async or not). */
async function hintOf(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    assert.ok(isCtlError(error), String(error));
    return error.hint ?? '';
  }
  assert.fail('no error');
}

describe('the hints ctl prints, pasted into a real shell, run the argv they say', () => {
  // A placeholder is pasted as it is printed (FILE, VERSION): a plain word, never a redirection
  // (`<file>`) or a pipe (`<file|url>`). paste() fails on a non-zero exit, which `<file>` gives.
  const names = [...HOSTILE, '<prod>', 'prod|x'];

  it('every word is quoted, one shaped like `<x>` too; the capital placeholders paste as plain words', () => {
    const where = recorders();
    for (const word of ['<file>', '<name> -n x', '<a|b>', 'x>y', ...HOSTILE]) {
      for (const [build, binary] of [
        [kubectl, 'kubectl'],
        [oc, 'oc'],
        [helmCommand, 'helm'],
        [ctlCommand, 'ctl'],
      ] as const) {
        const [call] = paste(build({ context: word }, 'get', word, '-n', word), where);
        assert.deepEqual(call?.argv, [
          binary,
          binary === 'helm' ? '--kube-context' : '--context',
          word,
          'get',
          word,
          '-n',
          word,
        ]);
      }
      const [run] = paste(
        ctlRunTo(ctlTarget({}, { namespace: word }), '8.2.0-18', '--user-defined-modules', word),
        where,
      );
      assert.deepEqual(run?.argv, [
        'ctl',
        'upgrade',
        'run',
        '--to',
        '8.2.0-18',
        '-n',
        word,
        '--user-defined-modules',
        word,
      ]);
      const [manifest] = paste(printManifest(`https://example.test/${word}`), where);
      assert.deepEqual(manifest?.argv, ['curl', '-fsSL', `https://example.test/${word}`]);
    }
    // What ctl prints for the reader to fill in: each a word of its own, nothing a shell acts on.
    const [curl] = paste(curlApi('POST', '/v2/modules', ['-F', 'module=@MODULE_RHEL9_ZIP']), where);
    assert.deepEqual(curl?.argv, [
      'curl',
      '-sfk',
      '-u',
      'USERNAME:PASSWORD',
      '-X',
      'POST',
      '-F',
      'module=@MODULE_RHEL9_ZIP',
      'https://localhost:9443/v2/modules',
    ]);
    const [canI] = paste(kubectl({}, 'auth', 'can-i', 'VERB', 'RESOURCE', '-n', 'NAMESPACE'), where);
    assert.deepEqual(canI?.argv, ['kubectl', 'auth', 'can-i', 'VERB', 'RESOURCE', '-n', 'NAMESPACE']);
    for (const file of ['file', 'name', '-n', 'x', 'y', 'b']) {
      assert.equal(existsSync(join(where.dir, file)), false, `a redirection made ${file}`);
    }
    noneInjected(where.dir);
  });

  it('ctl upgrade run --plan repeats the -n and --cluster given, the file quoted', () => {
    assert.equal(ctlRunPlan({}, 'plan.json'), 'ctl upgrade run --plan plan.json');
    const where = recorders();
    for (const name of names) {
      const [run] = paste(
        ctlRunPlan(ctlTarget({ context: name }, { namespace: name, cluster: name }), name),
        where,
      );
      assert.deepEqual(run?.argv, [
        'ctl',
        '--context',
        name,
        'upgrade',
        'run',
        '--plan',
        name,
        '-n',
        name,
        '--cluster',
        name,
      ]);
    }
    noneInjected(where.dir);
  });

  it('the permissions check: a denied and an unreviewed permission, each its own kubectl auth can-i', () => {
    const where = recorders();
    for (const name of names) {
      const question = (allowed: boolean | undefined) =>
        runChecks(
          makeSnapshot((s) => {
            s.namespace = name;
            s.kubeTarget = { context: name };
            // Every permission granted but patching the cluster resource: denied, or not reviewed.
            const rest = grantEverything(s).filter(
              (p) => !(p.verb === 'patch' && p.resource === 'redisenterpriseclusters'),
            );
            const patch = {
              verb: 'patch',
              group: 'app.redislabs.com',
              resource: 'redisenterpriseclusters',
              namespace: name,
            };
            s.permissions = allowed === undefined ? rest : [...rest, { ...patch, allowed }];
          }),
          makeTarget(),
          { required: REQUIRED_PERMISSIONS },
        ).find((c) => c.id === 'permissions');
      for (const [allowed, status] of [
        [false, 'fail'],
        [undefined, 'warn'],
      ] as const) {
        const check = question(allowed);
        assert.equal(check?.status, status, check?.message);
        assert.doesNotMatch(check?.fix ?? '', /<verb>|<resource>|<namespace>/);
        const [call] = paste(between(check?.fix ?? '', 'e.g. ', ''), where);
        assert.deepEqual(call?.argv, [
          'kubectl',
          '--context',
          name,
          'auth',
          'can-i',
          'patch',
          'redisenterpriseclusters.app.redislabs.com',
          '-n',
          name,
        ]);
      }
    }
    noneInjected(where.dir);
  });

  it("the target list's line of a release outside the catalog: its plan names the cluster, IMAGE_TAG a word", () => {
    const where = recorders();
    for (const name of names) {
      const location = ['--context', name, '-n', name, '--cluster', name];
      const list: UpgradeTargets = {
        apiVersion: 'ctl/v1',
        kind: 'UpgradeTargets',
        cluster: { context: name, namespace: name, name, dialect: 'redis', platform: 'kubernetes' },
        current: { operator: '8.0.6-8', clusterVersion: '8.0.6-54' },
        maxHops: 1,
        recommended: null,
        targets: [],
        available: [{ operator: '8.2.0-25', clusterVersion: null, foundIn: 'helm repository x' }],
      };
      const text = renderTargets(list, false, (to) =>
        nextPlanCommand({ location, plan: ['--helm-repo', name] }, to),
      );
      const line = between(text, '(helm repository x): ', ' (its cluster image tag)');
      const [call] = paste(line, where);
      assert.deepEqual(call?.argv, [
        'ctl',
        'upgrade',
        'plan',
        '--to',
        '8.2.0-25',
        ...location,
        '--helm-repo',
        name,
        '--cluster-version',
        'IMAGE_TAG',
      ]);
    }
    noneInjected(where.dir);
  });

  it('a plan run --plan cannot read: save one and run it, for the cluster given', async () => {
    const dir = tempDir('ctl-paste-plan-');
    const where = recorders();
    for (const name of names) {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, '{"kind": "Upgr');
      const hint = await hintOf(() =>
        loadSavedPlan(file, ctlTarget({ context: name }, { namespace: name, cluster: name })),
      );
      const target = ['-n', name, '--cluster', name];
      const [save] = paste(between(hint, 'Save a plan with ', ', then run it with '), where);
      assert.deepEqual(save?.argv, [
        'ctl',
        '--context',
        name,
        'upgrade',
        'plan',
        '--to',
        'VERSION',
        ...target,
        '--out',
        'FILE',
      ]);
      const [run] = paste(between(hint, ', then run it with ', '').replace(/\.$/, ''), where);
      assert.deepEqual(run?.argv, ['ctl', '--context', name, 'upgrade', 'run', '--plan', 'FILE', ...target]);
    }
    noneInjected(where.dir);
    noneInjected(dir);
  });

  it('a resume that would change the selection of its saved plan: its two ways on, for the cluster given', async () => {
    const dir = tempDir('ctl-paste-resume-');
    const where = recorders();
    for (const name of names) {
      // The plan file the state names is gone: the hint's resume is built, not the recorded one.
      const file = join(dir, `gone ${name}.json`);
      const state = {
        ...newState({ context: 'c', namespace: 'redis', cluster: 'rec' }, { operator: '7.8.2-6' }, [
          'preflight',
        ]),
        savedPlan: { file, fingerprint: `sha256:${'a'.repeat(64)}` },
      };
      const plan = { target: { operator: '7.8.2-6' } } as unknown as Plan;
      const kube = ctlTarget({ kubeconfigs: [join(dir, `k ${name}`)] }, { namespace: name, cluster: name });
      const hint = await hintOf(() => checkResumeKeepsSavedPlan(state, plan, '/state.json', kube, () => {}));
      const first = ['ctl', '--kubeconfig', join(dir, `k ${name}`), 'upgrade'];
      const target = ['-n', name, '--cluster', name];
      const [resume] = paste(between(hint, 'Put that plan back and run: ', '. Or make a new plan'), where);
      assert.deepEqual(resume?.argv, [...first, 'run', '--plan', file, ...target]);
      const [plan2] = paste(between(hint, 'the selection you want (', ', plus the flags'), where);
      assert.deepEqual(plan2?.argv, [...first, 'plan', '--to', '7.8.2-6', ...target, '--out', 'FILE']);
      const [run] = paste(between(hint, 'and run it with ', '').replace(/\.$/, ''), where);
      assert.deepEqual(run?.argv, [...first, 'run', '--plan', 'FILE', ...target]);
    }
    noneInjected(where.dir);
    noneInjected(dir);
  });
});
