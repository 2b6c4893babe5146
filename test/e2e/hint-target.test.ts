/**
 * The commands ctl's hints print name the kubeconfig and context ctl was given, as the plan's
 * commands do (./plan-context.test.ts): the state store's (a ConfigMap state that is not valid, a
 * Lease another run holds, a lock id that is not the lock's), the exec credential plugin's, the
 * kubeconfig without a current context, and `ctl sim capture`'s; `ctl upgrade status` with no
 * run (the plan first, then the run), `ctl auth token`'s port-forward, a server dry run's
 * `kubectl auth can-i`, the run's verification notes, and the check fixes that name
 * `ctl upgrade plan --to` / `ctl upgrade run --to` (release-advisories, operator-method,
 * platform-supported, modules-compatible, operator-min-version), and a saved plan's state store.
 * The ctl commands of a fix and of status with no run repeat the `-n` and `--cluster` given too,
 * each value shell-quoted (a hostile one stays one word). Each is driven through the
 * built ctl with `--kubeconfig <file> --context <name with a quote and a space>` and KUBECONFIG
 * unset: a hint's command that named nothing would reach the default kubeconfig's cluster.
 * The unlock a lock's hint gives, held on another host, is pasted into sh and must unlock: the
 * Lease a run with the file store met (the hint names --cluster and --force), and the lock file
 * of a run with --state (the hint names --force and that file). So are the commands
 * `ctl upgrade status` prints, and the status a wrong --lock-id's hint names: they name the state
 * status read (the file, absolute; the ConfigMap's -n and --cluster), so that pasted after a
 * status -n of a namespace not the context's, or beside another cluster's state ConfigMap, they
 * act on that state. A Lease renewed by a run on another host is said as held there.
 */

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { shellQuote } from '../../src/io/shell-words.js';
import { defaultStatePath, newState } from '../../src/run/state.js';
import { type CtlResult } from '../helpers/run-ctl.js';
import { pasteInShell } from '../helpers/paste-in-shell.js';
import {
  assertExit,
  parseEvents,
  type SimOptions,
  startUpgradeSim,
  TARGET,
  type UpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

const CONTEXT = "prod's cluster";

interface KubeconfigDoc {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: Record<string, unknown> }[];
  'current-context'?: string;
}

/** The simulator's kubeconfig with its one context renamed CONTEXT; `edit` changes it further. */
function kubeconfigAs(sim: UpgradeSim, name: string, edit: (doc: KubeconfigDoc) => void = () => {}): string {
  const doc = parse(readFileSync(sim.cluster.kubeconfigPath, 'utf8')) as KubeconfigDoc;
  const context = doc.contexts[0]!;
  context.name = CONTEXT;
  doc['current-context'] = CONTEXT;
  edit(doc);
  const file = path.join(sim.sandbox.dir, 'kube', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, stringify(doc), { mode: 0o600 });
  return file;
}

/** KUBECONFIG unset: only the flags can name the cluster. */
const env = { KUBECONFIG: '' };

interface Chosen {
  sim: UpgradeSim;
  /** ctl with `--kubeconfig <chosen> --context CONTEXT` and KUBECONFIG unset. */
  ctl: (
    args: string[],
    options?: { env?: Record<string, string>; timeoutMs?: number },
  ) => ReturnType<UpgradeSim['ctl']>;
  /** `<binary> --kubeconfig <chosen> --context <CONTEXT>`, as every hint must begin. */
  named: (binary: 'kubectl' | 'ctl') => string;
}

function choose(sim: UpgradeSim): Chosen {
  const chosen = kubeconfigAs(sim, 'chosen.yaml');
  return {
    sim,
    ctl: (args, options = {}) =>
      sim.ctl([...args, '--kubeconfig', chosen, '--context', CONTEXT], {
        ...options,
        env: { ...env, ...options.env },
      }),
    named: (binary) => `${binary} --kubeconfig ${chosen} --context ${shellQuote(CONTEXT)}`,
  };
}

/** Runs `body` on a fresh simulated cluster of `scenario`, reached through the chosen kubeconfig only. */
async function onScenario(
  scenario: string,
  body: (chosen: Chosen) => Promise<void>,
  options?: SimOptions,
): Promise<void> {
  await withUpgradeSim(scenario, (sim) => body(choose(sim)), options);
}

/** The command a hint's last `run: ` gives, to paste. */
function hintCommand(stderr: string): string {
  const command = /run: (ctl .+)$/m.exec(stderr)?.[1];
  assert.ok(command, `no command to run in the hint:\n${stderr}`);
  return command;
}

/**
 * A hint's command pasted into sh, as a person would, in the simulator's environment with
 * KUBECONFIG unset (only the command's own flags name the cluster).
 */
function paste(sim: UpgradeSim, command: string): Promise<CtlResult> {
  return pasteInShell(sim.sandbox.dir, command, { env: { ...sim.env, ...env }, cwd: sim.sandbox.dir });
}

/** stdout and stderr together: a plan's checks are on stdout, its errors and hints on stderr. */
function both(result: { stdout: string; stderr: string }): string {
  return `${result.stdout}\n${result.stderr}`;
}

const STEPS = ['preflight', 'operator', 'admission', 'security-context', 'cluster', 'monitor', 'databases'];

/** A valid state of the cluster redis/rec reached through CONTEXT, as a run writes it at its start. */
function stateText(): string {
  return JSON.stringify(
    newState({ context: CONTEXT, namespace: 'redis', cluster: 'rec' }, { operator: TARGET }, STEPS),
  );
}

/** A lock file's owner, or a Lease's: a run on another host, never judged from here. */
function ownerElsewhere(id: string): Record<string, unknown> {
  return {
    id,
    pid: 4242,
    host: 'another-host',
    user: 'ops',
    operation: 'upgrade run',
    createdAt: new Date().toISOString(),
  };
}

/** The cluster's Lease, held and just renewed by a run on another host, for an hour. */
async function leaseHeldElsewhere(sim: UpgradeSim, id: string): Promise<void> {
  const now = new Date().toISOString().replace(/Z$/, '000Z');
  const lease = path.join(sim.sandbox.dir, 'lease.json');
  writeFileSync(
    lease,
    JSON.stringify({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: 'ctl-upgrade-lock-rec',
        namespace: 'redis',
        annotations: { 'ctl/lock-owner': JSON.stringify({ ...ownerElsewhere(id), createdAt: now }) },
      },
      spec: {
        holderIdentity: `${id}/4242/another-host`,
        leaseDurationSeconds: 3600,
        acquireTime: now,
        renewTime: now,
      },
    }),
  );
  await sim.kubectl(['create', '-f', lease]);
}

/** A state ConfigMap as the ConfigMap store writes it (labelled so that status lists it). */
async function stateConfigMap(sim: UpgradeSim, cluster: string, text: string): Promise<void> {
  const file = path.join(sim.sandbox.dir, `configmap-${cluster}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `ctl-upgrade-state-${cluster}`,
        namespace: 'redis',
        labels: {
          'app.kubernetes.io/managed-by': 'ctl',
          'app.kubernetes.io/component': 'upgrade-state',
          'app.kubernetes.io/instance': cluster,
        },
      },
      data: { 'state.json': text },
    }),
  );
  await sim.kubectl(['create', '-f', file]);
}

describe("the commands of ctl's hints name the kubeconfig and context it was given (e2e)", () => {
  let sim: UpgradeSim;
  let named: Chosen['named'];
  let ctl: Chosen['ctl'];

  before(async () => {
    sim = await startUpgradeSim('happy-path');
    ({ named, ctl } = choose(sim));
  });
  after(async () => {
    await sim?.close();
  });

  it('a ConfigMap state that is not valid: the kubectl that inspects it', async () => {
    await sim.kubectl([
      'create',
      'configmap',
      'ctl-upgrade-state-rec',
      '-n',
      'redis',
      '--from-literal=state.json=not json',
    ]);
    try {
      const status = await ctl([
        'upgrade',
        'status',
        '--state-store',
        'configmap',
        '-n',
        'redis',
        '--cluster',
        'rec',
      ]);
      assertExit(status, 1, 'status of a ConfigMap state that is not JSON');
      assert.match(status.stderr, /is not a valid ctl state/);
      assert.ok(
        status.stderr.includes(
          `Inspect it with ${named('kubectl')} get configmap ctl-upgrade-state-rec -n redis -o yaml`,
        ),
        status.stderr,
      );
    } finally {
      await sim.kubectl(['delete', 'configmap', 'ctl-upgrade-state-rec', '-n', 'redis']);
    }
  });

  it("the cluster's Lease held by a run elsewhere: the ctl upgrade unlock for this cluster", async () => {
    await leaseHeldElsewhere(sim, 'lock-elsewhere');
    try {
      const run = await ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--state-store', 'configmap']);
      assertExit(run, 5, 'a run while another holds the Lease');
      // Its holder is elsewhere: unlock refuses it without --force (while it is renewed), and
      // finds the cluster by --cluster.
      assert.ok(
        run.stderr.includes(
          `run: ${named('ctl')} upgrade unlock --state-store configmap -n redis --cluster rec --lock-id lock-elsewhere --force\n`,
        ),
        run.stderr,
      );
      // A run with the file store takes the same Lease: its hint, pasted into sh, unlocks it,
      // though no state ConfigMap names the cluster.
      const fileRun = await ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(fileRun, 5, 'a run with the file store while another holds the Lease');
      const pasted = await paste(sim, hintCommand(fileRun.stderr));
      assertExit(pasted, 0, 'the pasted unlock of the Lease');
      assert.match(pasted.stderr, /removed the lock held by pid 4242 on another-host/);
      assert.equal(await leaseOf(sim), '', 'the Lease is gone');
    } finally {
      await sim.kubectl(['delete', 'lease', 'ctl-upgrade-lock-rec', '-n', 'redis', '--ignore-not-found']);
    }
  });

  it('a lock file held on another host, a run with --state: its hint, pasted into sh, unlocks that file', async () => {
    const state = path.join(sim.sandbox.dir, 'elsewhere', 'state.json');
    mkdirSync(path.dirname(state), { recursive: true });
    writeFileSync(
      `${state}.lock`,
      JSON.stringify({
        id: 'held-elsewhere',
        pid: 4242,
        host: 'another-host',
        user: 'ops',
        operation: 'upgrade run',
        createdAt: new Date().toISOString(),
      }),
    );
    const run = await ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--state', state]);
    assertExit(run, 5, 'a run while a process on another host holds the lock');
    assert.match(
      run.stderr,
      /hint: Wait for it to finish\. ctl cannot tell from here whether it still runs \(it was started on host another-host\); once you are sure it is not running there, run: /,
    );
    const hint = hintCommand(run.stderr);
    assert.equal(
      hint,
      `${named('ctl')} upgrade unlock --lock-id held-elsewhere --force --state ${shellQuote(state)}`,
    );
    const pasted = await paste(sim, hint);
    assertExit(pasted, 0, 'the pasted unlock');
    assert.match(pasted.stderr, /removed the lock held by pid 4242 on another-host/);
    assert.ok(!existsSync(`${state}.lock`), 'the lock file is gone');
  });

  it("a lock id that is not the lock file's: the ctl upgrade status that shows it (with --state, nothing read), pasted into sh, shows that lock", async () => {
    const state = path.join(sim.sandbox.dir, 'unlock', 'state.json');
    mkdirSync(path.dirname(state), { recursive: true, mode: 0o700 });
    writeFileSync(state, stateText(), { mode: 0o600 });
    writeFileSync(
      `${state}.lock`,
      JSON.stringify({
        id: 'held',
        pid: 1,
        host: 'another-host',
        operation: 'upgrade run',
        createdAt: new Date().toISOString(),
      }),
    );
    const unlock = await ctl(['upgrade', 'unlock', '--state', state, '--lock-id', 'other']);
    assertExit(unlock, 1, 'unlock with another id');
    // The status names the lock's state file: without --state it reads the default file of the
    // context's namespace, another state (or none) than this lock's.
    assert.ok(
      unlock.stderr.includes(
        `Check the id with: ${named('ctl')} upgrade status --state ${shellQuote(state)}.`,
      ),
      unlock.stderr,
    );
    const command = /Check the id with: (ctl .+?)\. The lock: /.exec(unlock.stderr)?.[1];
    assert.ok(command, unlock.stderr);
    const pasted = await paste(sim, command);
    assertExit(pasted, 0, 'the pasted status');
    assert.ok(pasted.stdout.includes(`\nstate     ${state}\n`), pasted.stdout);
    assert.match(pasted.stdout, /\nlocked by pid 1 on another-host .*, lock id held\n/);
  });

  it("ctl upgrade status -n of a namespace not the context's, locked on another host: its unlock, pasted into sh, unlocks that state's lock", async () => {
    // The context names no namespace (so kubectl's `default`); the state is the run's in redis.
    const bare = kubeconfigAs(sim, 'no-namespace.yaml', (doc) => {
      delete doc.contexts[0]!.context.namespace;
    });
    const state = defaultStatePath({ context: CONTEXT, namespace: 'redis', cluster: 'rec' }, sim.env);
    mkdirSync(path.dirname(state), { recursive: true, mode: 0o700 });
    writeFileSync(state, stateText(), { mode: 0o600 });
    writeFileSync(`${state}.lock`, JSON.stringify(ownerElsewhere('held-in-redis')), { mode: 0o600 });
    try {
      const status = await sim.ctl(
        ['upgrade', 'status', '-n', 'redis', '--kubeconfig', bare, '--context', CONTEXT],
        {
          env,
        },
      );
      assertExit(status, 0, 'status -n redis with a lock held on another host');
      assert.match(
        status.stdout,
        /\nheld by pid 4242 on another-host \(user ops\) since \S+, on another host or in another container: ctl cannot tell from here whether it still runs; /,
      );
      const command = /if it is gone for good, run (ctl .+), then run it again to resume$/m.exec(
        status.stdout,
      )?.[1];
      // The state file status read, absolute: without it unlock reads the context's namespace.
      assert.equal(
        command,
        `ctl --kubeconfig ${bare} --context ${shellQuote(CONTEXT)} upgrade unlock --lock-id held-in-redis --force --state ${shellQuote(state)}`,
      );
      const pasted = await paste(sim, command);
      assertExit(pasted, 0, 'the pasted unlock');
      assert.match(pasted.stderr, /removed the lock held by pid 4242 on another-host/);
      assert.ok(!existsSync(`${state}.lock`), 'the lock file of the state status showed is gone');
    } finally {
      // The tests after this one expect no run of CONTEXT in redis.
      rmSync(state, { force: true });
      rmSync(`${state}.lock`, { force: true });
    }
  });

  it('ctl upgrade status of the ConfigMap store, its Lease renewed by a run on another host: said as held elsewhere; its unlock and the status of a wrong --lock-id, pasted into sh, act on this cluster', async () => {
    await stateConfigMap(sim, 'rec', stateText());
    // Another cluster's state in the namespace: status and unlock need --cluster to pick this one.
    await stateConfigMap(sim, 'other', stateText());
    await leaseHeldElsewhere(sim, 'lock-elsewhere');
    try {
      const where = ['--state-store', 'configmap', '-n', 'redis'];
      const guessed = await ctl(['upgrade', 'status', ...where]);
      assertExit(guessed, 2, 'status without --cluster beside two state ConfigMaps');
      assert.match(guessed.stderr, /several clusters have upgrade state in namespace redis: other, rec/);

      const status = await ctl(['upgrade', 'status', ...where, '--cluster', 'rec']);
      assertExit(status, 0, 'status of a Lease renewed elsewhere');
      // Its renewals say it runs, on another host: not a run seen here.
      assert.match(
        status.stdout,
        /\nheld elsewhere: pid 4242 on another-host \(user ops\) holds the lock since \S+ and renews its Lease ctl-upgrade-lock-rec \(last at \S+\); ctl cannot see that process from here \(it was started on host another-host\); no step in progress, per the state written \S+\n/,
      );
      assert.match(
        status.stdout,
        /\n {2}wait for it to finish: another ctl upgrade run exits 5 \(locked\) meanwhile; if it is gone, its Lease expires 3600 s after its last renewal and the next run takes it over; /,
      );
      assert.doesNotMatch(status.stdout, /running now/);
      const json = await ctl(['upgrade', 'status', ...where, '--cluster', 'rec', '-o', 'json']);
      assertExit(json, 0, 'status -o json of a Lease renewed elsewhere');
      const doc = JSON.parse(json.stdout) as { running: unknown; lockStale: unknown };
      // A Lease still renewed holds a run (docs/status.md), whoever renews it.
      assert.equal(doc.running, true);
      assert.equal(doc.lockStale, false);

      // A wrong id: the status the hint names, pasted, shows this cluster's lock.
      const wrong = await ctl(['upgrade', 'unlock', ...where, '--cluster', 'rec', '--lock-id', 'other']);
      assertExit(wrong, 1, 'unlock with another id');
      assert.ok(
        wrong.stderr.includes(
          `Check the id with: ${named('ctl')} upgrade status --state-store configmap -n redis --cluster rec.`,
        ),
        wrong.stderr,
      );
      const shown = await paste(
        sim,
        /Check the id with: (ctl .+?)\. The lock: /.exec(wrong.stderr)?.[1] ?? '',
      );
      assertExit(shown, 0, 'the pasted status');
      assert.match(shown.stdout, /\nstate {5}configmap\/redis\/ctl-upgrade-state-rec\n/);
      assert.match(shown.stdout, /\nlocked by pid 4242 on another-host .*, lock id lock-elsewhere\n/);

      // The unlock status names: --force (unlock refuses a renewed Lease without it) and --cluster.
      const command =
        /once you are sure it is not running there, run (ctl .+), then run it again to resume$/m.exec(
          status.stdout,
        )?.[1];
      assert.equal(
        command,
        `${named('ctl')} upgrade unlock --state-store configmap -n redis --cluster rec --lock-id lock-elsewhere --force`,
      );
      const pasted = await paste(sim, command);
      assertExit(pasted, 0, 'the pasted unlock of the Lease');
      assert.match(pasted.stderr, /removed the lock held by pid 4242 on another-host/);
      assert.equal(await leaseOf(sim), '', 'the Lease is gone');
    } finally {
      await sim.kubectl(['delete', 'lease', 'ctl-upgrade-lock-rec', '-n', 'redis', '--ignore-not-found']);
      await sim.kubectl([
        'delete',
        'configmap',
        'ctl-upgrade-state-rec',
        'ctl-upgrade-state-other',
        '-n',
        'redis',
        '--ignore-not-found',
      ]);
    }
  });

  it('a saved plan of another state store: the plan command that matches the run', async () => {
    const saved = path.join(sim.sandbox.dir, 'store', 'plan.json');
    mkdirSync(path.dirname(saved), { recursive: true });
    const plan = await ctl(['upgrade', 'plan', '--to', TARGET, '--state-store', 'file', '--out', saved]);
    assertExit(plan, 0, 'plan --out with the file store');
    const run = await ctl(['upgrade', 'run', '--plan', saved, '--state-store', 'configmap', '--yes']);
    assertExit(run, 2, 'a run with another store than its saved plan');
    assert.ok(
      run.stderr.includes(
        `${named('ctl')} upgrade plan --to ${TARGET} --state-store configmap --out ${shellQuote(saved)}`,
      ),
      run.stderr,
    );
  });

  it("the kubeconfig's credential plugin fails: the kubectl that runs it the same way", async () => {
    const plugin = path.join(sim.sandbox.dir, 'kube', 'plugin.sh');
    writeFileSync(plugin, '#!/bin/sh\necho "sign-in needed" >&2\nexit 3\n');
    chmodSync(plugin, 0o700);
    const withPlugin = kubeconfigAs(sim, 'plugin.yaml', (doc) => {
      doc.users[0]!.user = {
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' },
      };
    });
    const plan = await sim.ctl(
      ['upgrade', 'plan', '--to', TARGET, '--kubeconfig', withPlugin, '--context', CONTEXT],
      { env },
    );
    assert.notEqual(plan.code, 0, plan.stderr);
    assert.match(plan.stderr, /credential plugin .* failed \(exit 3\)/);
    assert.ok(
      plan.stderr.includes(
        `kubectl --kubeconfig ${withPlugin} --context ${shellQuote(CONTEXT)} get namespaces runs it too`,
      ),
      plan.stderr,
    );
  });

  it('a kubeconfig without a current context: the kubectl config use-context of that file', async () => {
    const none = kubeconfigAs(sim, 'no-current.yaml', (doc) => {
      delete doc['current-context'];
    });
    const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--kubeconfig', none], { env });
    assertExit(plan, 2, 'plan without a current context');
    assert.ok(
      plan.stderr.includes(`run kubectl --kubeconfig ${none} config use-context CONTEXT_NAME.`),
      plan.stderr,
    );
  });

  it('ctl sim capture of a namespace without a cluster: the kubectl that lists them', async () => {
    const capture = await ctl(['sim', 'capture', '-n', 'default']);
    assertExit(capture, 2, 'capture of a namespace without a cluster');
    assert.ok(capture.stderr.includes(`(${named('kubectl')} get rec -A lists them)`), capture.stderr);
  });

  it("a check fix's other target (release-advisories): the ctl upgrade plan of it", async () => {
    const plan = await ctl(['upgrade', 'plan', '--to', TARGET]);
    assert.match(plan.stdout, /release-advisories/);
    // The advisory's fixed release on the target's line (7.8.6-20 today): whichever, it is planned
    // through the same kubeconfig and context.
    assert.match(
      both(plan),
      new RegExp(`instead \\(${escaped(named('ctl'))} upgrade plan --to \\d+\\.\\d+\\.\\d+-\\d+\\)`),
    );
    assert.doesNotMatch(both(plan), /\(ctl upgrade plan --to/);
  });

  it("a check fix's other target with -n and --cluster given: the ctl upgrade plan repeats them, quoted", async () => {
    const plan = await ctl(['upgrade', 'plan', '--to', TARGET, '-n', 'redis', '--cluster', 'rec']);
    assert.match(plan.stdout, /release-advisories/);
    // After --to, each value shell-quoted as the kubeconfig and context are (src/io/shell-words.ts).
    assert.match(
      both(plan),
      new RegExp(
        `instead \\(${escaped(named('ctl'))} upgrade plan --to \\d+\\.\\d+\\.\\d+-\\d+ -n ${escaped(shellQuote('redis'))} --cluster ${escaped(shellQuote('rec'))}\\)`,
      ),
    );
  });

  it('ctl upgrade status with no run, -n and --cluster given: the plan and run that repeat them, quoted', async () => {
    // Values no shell may take for code or a redirection (`<x>` is not a placeholder here).
    const namespace = '<prod>';
    const cluster = "rec's $(touch pwned)";
    const status = await ctl(['upgrade', 'status', '-n', namespace, '--cluster', cluster]);
    assertExit(status, 2, 'status with no run of that cluster');
    assert.match(status.stderr, /there is no state file at /);
    const where = `-n ${shellQuote(namespace)} --cluster ${shellQuote(cluster)}`;
    assert.ok(
      status.stderr.includes(
        `See the targets with ${named('ctl')} upgrade plan ${where}, then start one with ${named('ctl')} upgrade run --to VERSION ${where}.`,
      ),
      status.stderr,
    );
  });

  it('ctl upgrade status with no run: the plan first, then the run, of this cluster', async () => {
    const status = await ctl(['upgrade', 'status']);
    assertExit(status, 2, 'status with no run');
    assert.match(status.stderr, /no upgrade has run for context/);
    assert.ok(
      status.stderr.includes(
        `See the targets with ${named('ctl')} upgrade plan, then start one with ${named('ctl')} upgrade run --to VERSION, or pass --state FILE.`,
      ),
      status.stderr,
    );

    const state = path.join(sim.sandbox.dir, 'no-run', 'state.json');
    const atState = await ctl(['upgrade', 'status', '--state', state]);
    assertExit(atState, 2, 'status of a state file that is not there');
    assert.ok(
      atState.stderr.includes(
        `See the targets with ${named('ctl')} upgrade plan, then start one with ${named('ctl')} upgrade run --to VERSION --state ${state}.`,
      ),
      atState.stderr,
    );

    const inCluster = await ctl(['upgrade', 'status', '--state-store', 'configmap', '-n', 'redis']);
    assertExit(inCluster, 2, 'status with no ConfigMap state');
    assert.ok(
      inCluster.stderr.includes(
        `See the targets with ${named('ctl')} upgrade plan -n redis, then start one with ${named('ctl')} upgrade run --to VERSION -n redis --state-store configmap, or pass -n NAMESPACE.`,
      ),
      inCluster.stderr,
    );
  });

  it('ctl auth token without an API URL it can find: the kubectl port-forward of this cluster', async () => {
    const token = await ctl(['auth', 'token', '-n', 'default'], { env: { CTL_API_URL: '' } });
    assertExit(token, 2, 'auth token in a namespace without a cluster');
    assert.match(token.stderr, /no management API URL/);
    assert.ok(
      token.stderr.includes(`after ${named('kubectl')} port-forward svc/CLUSTER 9443:9443 -n default)`),
      token.stderr,
    );
  });

  // Last: it upgrades the simulated cluster.
  it("the run's verification notes: the ctl upgrade run of a database left out", async () => {
    const run = await ctl(
      ['upgrade', 'run', '--to', TARGET, '--yes', '--databases', 'redis/orders', '-o', 'json'],
      {
        timeoutMs: 180_000,
      },
    );
    assertExit(run, 0, 'a run of one database');
    const done = parseEvents(run.stdout).find((event) => event.type === 'done');
    const verification = done?.data?.verification as { mismatches: string[] } | undefined;
    assert.ok(
      verification?.mismatches.some((line) =>
        line.includes(
          `not selected for this run (--databases): upgrade it with ${named('ctl')} upgrade run --to ${TARGET} --databases redis/sessions`,
        ),
      ),
      JSON.stringify(verification),
    );
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe("the check fixes' ctl commands name the kubeconfig and context it was given (e2e)", () => {
  it('OLM without an update edge, --to a release that is no channel head: operator-method and platform-supported', async () => {
    await onScenario('olm-no-edge', async ({ ctl, named }) => {
      const plan = await ctl(['upgrade', 'plan', '--to', '7.22.0-7']);
      assertExit(plan, 3, 'the plan');
      const text = both(plan);
      // operator-method: the head of the target's own release line.
      assert.match(
        text,
        new RegExp(
          `release line is 7\\.22\\.0-\\d+ \\(channel 7\\.22\\.0\\): ${escaped(named('ctl'))} upgrade plan --to 7\\.22\\.0-\\d+\\. Or`,
        ),
      );
      // platform-supported: the newest release this OpenShift runs.
      assert.match(
        text,
        new RegExp(`no further than (\\S+) \\(${escaped(named('ctl'))} upgrade plan --to \\1\\)`),
      );
      assert.doesNotMatch(text, /\bctl upgrade (plan|run) --to/);
    });
  });

  it('a module without a RHEL9 build: the ctl upgrade run --remediate of modules-compatible', async () => {
    await onScenario('module-without-rhel9', async ({ ctl, named }) => {
      const plan = await ctl(['upgrade', 'plan', '--to', TARGET]);
      assertExit(plan, 3, 'the plan');
      assert.ok(
        both(plan).includes(
          `Or let ctl upload it when the upgrade freezes: ${named('ctl')} upgrade run --to ${TARGET} --ignore-check modules-compatible --remediate --module-file RHEL9_PACKAGE (its RHEL9 package).`,
        ),
        both(plan),
      );
    });
  });

  it('an operator too old for the target: the first hop of operator-min-version', async () => {
    await onScenario(
      'happy-path',
      async ({ ctl, named }) => {
        const plan = await ctl(['upgrade', 'plan', '--to', TARGET, '--max-hops', '1']);
        assertExit(plan, 3, 'the plan');
        assert.match(
          both(plan),
          new RegExp(
            `Upgrade in two hops: first ${escaped(named('ctl'))} upgrade run --to \\d+\\.\\d+\\.\\d+-\\d+[ ,]`,
          ),
        );
        assert.doesNotMatch(both(plan), /first ctl upgrade run/);
      },
      {
        patch: (scenario) => ({
          ...scenario,
          operator: { ...scenario.operator, version: '7.2.4-12' },
          cluster: { ...scenario.cluster, versionTag: '7.2.4-92', apiVersion: '7.2.4-92' },
        }),
      },
    );
  });

  it('a write the API server refuses in a server dry run: the kubectl auth can-i of this cluster', async () => {
    await onScenario(
      'happy-path',
      async ({ ctl, named }) => {
        const dry = await ctl(['upgrade', 'run', '--to', TARGET, '--dry-run=server']);
        assertExit(dry, 1, 'a server dry run with a refusal');
        assert.match(dry.stderr, /the API server refused 1 of \d+ write\(s\)/);
        assert.ok(
          dry.stderr.includes(`(permissions: ${named('kubectl')} auth can-i VERB RESOURCE -n NAMESPACE;`),
          dry.stderr,
        );
      },
      {
        patch: (scenario) => ({
          ...scenario,
          faults: [
            {
              api: 'kube',
              match: 'PATCH /apis/app.redislabs.com/v1/namespaces/redis/redisenterpriseclusters/rec',
              status: 403,
            },
          ],
        }),
      },
    );
  });
});

/** The cluster's Lease lock by name, or '' when there is none. */
function leaseOf(sim: UpgradeSim): Promise<string> {
  return sim.kubectl([
    'get',
    'lease',
    'ctl-upgrade-lock-rec',
    '-n',
    'redis',
    '--ignore-not-found',
    '-o',
    'name',
  ]);
}
