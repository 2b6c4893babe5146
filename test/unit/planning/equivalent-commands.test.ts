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
  ctlRunTo,
  ctlTarget,
  ctlTargetOf,
  curlApi,
  helmCommand,
  helmUpgradeArgv,
  helmUpgradeCommand,
  kubectl,
  kubectlApply,
  kubectlMergePatch,
  type KubeTarget,
  oc,
} from '../../../src/planning/equivalent-commands.js';
import { tempDir } from '../../helpers/temp.js';

const HOSTILE = [
  "prod'; touch pwned-quote #",
  'prod$(touch pwned-subst)',
  'prod`touch pwned-backtick`',
  'prod"; touch pwned-dquote; "',
  'prod && touch pwned-and',
  'ctx with spaces',
  '-dash-first',
];

/** A folder with recording stand-ins for the three clients and ctl, and where they record. */
function recorders(): { dir: string; bin: string; log: string } {
  const dir = tempDir('ctl-paste-');
  const bin = join(dir, 'bin');
  const log = join(dir, 'log');
  spawnSync('mkdir', [bin]);
  for (const name of ['kubectl', 'oc', 'helm', 'ctl']) {
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
      ctlRunTo(ctlTarget({}, { namespace: 'prod' }), '8.2.0-18', '--user-defined-modules', '<file>'),
      'ctl upgrade run --to 8.2.0-18 -n prod --user-defined-modules <file>',
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
