/**
 * `--state-store configmap`: the state in a ConfigMap and the lock in a Lease, in the cluster.
 * A run SIGKILLed in one process is resumed by a second process that shares nothing with it
 * on disk (another XDG_STATE_HOME); of two runs started together exactly one proceeds; a lease
 * that outlived its duration is taken over, a live one is not.
 */

import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import { type CtlResult, runCtl, spawnCtl } from '../helpers/run-ctl.js';
import { changes, describeEntries } from './upgrade-support.js';

const TARGET = '7.8.2-6';
const TIMING = { operatorStart: 0.3, podRestart: 0.6, databaseUpgrade: 0.2 };
const CONFIGMAP = 'ctl-upgrade-state-rec';
const LEASE = 'ctl-upgrade-lock-rec';

interface Event {
  type: string;
  step?: string;
  message: string;
  data?: Record<string, unknown>;
}

interface StoredState {
  result: string;
  serial: number;
  steps: Record<string, { status: string }>;
}

interface Spawned {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the NDJSON event matching `predicate` (the run must use -o json). */
  waitForEvent(predicate: (event: Event) => boolean): Promise<Event>;
  done: Promise<CtlResult>;
}

/** The built ctl (spawnCtl), with its NDJSON events as they come. */
function spawnWithEvents(args: string[], env: Record<string, string | undefined>, cwd: string): Spawned {
  const ctl = spawnCtl(args, { env, cwd });
  const waiters: { predicate: (event: Event) => boolean; resolve: (event: Event) => void }[] = [];
  ctl.onLine((line) => {
    // With -o json every stdout line is an event; a text-mode run writes its summary table and
    // result there instead, which no test waits for.
    if (!line.startsWith('{')) return;
    const event = JSON.parse(line) as Event;
    for (const waiter of [...waiters]) {
      if (waiter.predicate(event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  });
  return {
    child: ctl.child,
    done: ctl.result,
    waitForEvent: (predicate) =>
      Promise.race([
        new Promise<Event>((resolve) => waiters.push({ predicate, resolve })),
        ctl.result.then((result) => {
          throw new Error(`ctl exited ${result.code} before the event\n${result.stderr}`);
        }),
      ]),
  };
}

function events(stdout: string): Event[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Event);
}

interface Sim {
  cluster: SimulatedCluster;
  dir: string;
  env(stateHome: string): Record<string, string | undefined>;
  configMap(): { data?: Record<string, string>; metadata: { resourceVersion?: string } } | undefined;
  state(): StoredState | undefined;
  lease(): { spec: Record<string, unknown>; metadata: Record<string, unknown> } | undefined;
  putLease(spec: Record<string, unknown>, annotations?: Record<string, string>): void;
  close(): Promise<void>;
}

async function startSim(): Promise<Sim> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-state-store-'));
  const scenario = loadScenario('happy-path');
  const cluster = await startSimulatedCluster({
    scenario: { ...scenario, timing: TIMING },
    dir: path.join(dir, 'sim'),
  });
  const store = cluster.kube.store;
  const configMapType = store.resolve('v1', 'ConfigMap');
  const leaseType = store.resolve('coordination.k8s.io/v1', 'Lease');
  const configMap = () =>
    store.get(configMapType, 'redis', CONFIGMAP) as unknown as ReturnType<Sim['configMap']>;
  return {
    cluster,
    dir,
    env: (stateHome) => ({
      KUBECONFIG: cluster.kubeconfigPath,
      CTL_API_URL: cluster.env.CTL_API_URL,
      CTL_CA_FILE: cluster.caPath,
      CTL_BUNDLE: cluster.env.CTL_BUNDLE,
      XDG_STATE_HOME: path.join(dir, stateHome),
    }),
    configMap,
    state: () => {
      const text = configMap()?.data?.['state.json'];
      return text === undefined ? undefined : (JSON.parse(text) as StoredState);
    },
    lease: () => store.get(leaseType, 'redis', LEASE) as unknown as ReturnType<Sim['lease']>,
    putLease: (spec, annotations) => {
      const existing = store.get(leaseType, 'redis', LEASE);
      if (existing) store.delete(leaseType, 'redis', LEASE);
      store.create(leaseType, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: LEASE, namespace: 'redis', ...(annotations ? { annotations } : {}) },
        spec,
      } as never);
    },
    close: async () => {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function stateFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
}

/** MicroTime as the API server writes it. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

// The two suites use their own simulated clusters: they run side by side.
describe('--state-store configmap', { concurrency: true }, () => {
  describe('a SIGKILLed run is resumed by another process', { concurrency: 1 }, () => {
    let sim: Sim;
    before(async () => {
      sim = await startSim();
    });
    after(async () => {
      await sim?.close();
    });

    test('the first run dies during monitor; the second, sharing no file with it, finishes it', async () => {
      const first = spawnWithEvents(
        ['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json', '--state-store', 'configmap'],
        sim.env('state-first'),
        sim.dir,
      );
      await first.waitForEvent((e) => e.type === 'step-start' && e.step === 'monitor');
      first.child.kill('SIGKILL');
      const killed = await first.done;
      assert.equal(killed.signal, 'SIGKILL');

      // Everything the second process needs is in the cluster.
      const saved = sim.state();
      assert.ok(saved, 'the ConfigMap holds the state');
      assert.equal(saved.result, 'running');
      assert.equal(saved.steps.operator?.status, 'done');
      assert.equal(saved.steps.cluster?.status, 'done');
      assert.equal(saved.steps.monitor?.status, 'in-progress');
      const lease = sim.lease();
      assert.ok(lease, 'the dead run left its Lease behind');
      assert.match(String(lease.spec.holderIdentity), new RegExp(`^[0-9a-f-]{36}/${first.child.pid}/`));
      assert.equal(lease.spec.leaseDurationSeconds, 30);
      assert.deepEqual(stateFilesUnder(path.join(sim.dir, 'state-first')), [], 'no state file on disk');

      const second = await runCtl(
        ['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json', '--state-store', 'configmap'],
        { env: sim.env('state-second'), cwd: sim.dir },
      );
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stderr, new RegExp(`took over the stale lock of pid ${first.child.pid} `));
      assert.match(second.stderr, /resuming the upgrade to 7\.8\.2-6 at step monitor/);
      const resumed = events(second.stdout);
      assert.deepEqual(
        resumed.filter((e) => e.type === 'step-skip' && /earlier run/.test(e.message)).map((e) => e.step),
        ['preflight', 'operator', 'admission', 'security-context', 'cluster'],
      );
      assert.deepEqual(
        resumed.filter((e) => e.type === 'step-done').map((e) => e.step),
        ['monitor', 'databases'],
      );
      assert.equal(resumed.at(-1)?.data?.result, 'succeeded');

      const final = sim.state();
      assert.equal(final?.result, 'succeeded');
      assert.ok((final?.serial ?? 0) > saved.serial, 'the serial went on from the first run');
      assert.equal(sim.lease(), undefined, 'the lease is released at the end');
      assert.deepEqual(stateFilesUnder(path.join(sim.dir, 'state-second')), []);
      const text = sim.configMap()?.data?.['state.json'] ?? '';
      assert.ok(!text.includes(sim.cluster.env.CTL_PASSWORD ?? '<none>'), 'no password in the ConfigMap');

      const status = await runCtl(['upgrade', 'status', '--state-store', 'configmap', '-o', 'json'], {
        env: sim.env('state-third'),
        cwd: sim.dir,
      });
      assert.equal(status.code, 0, status.stderr);
      const shown = JSON.parse(status.stdout) as {
        path: string;
        store: string;
        state: StoredState;
        lock: unknown;
      };
      assert.equal(shown.path, `configmap/redis/${CONFIGMAP}`);
      assert.equal(shown.store, 'configmap');
      assert.equal(shown.state.result, 'succeeded');
      assert.equal(shown.lock, null);
    });
  });

  describe('one run at a time', { concurrency: 1 }, () => {
    let sim: Sim;
    before(async () => {
      sim = await startSim();
    });
    after(async () => {
      await sim?.close();
    });

    test('two runs started together: exactly one proceeds, the other exits 5 naming it', async () => {
      // A short lease: renewed every second while the winner runs.
      const args = [
        'upgrade',
        'run',
        '--to',
        TARGET,
        '--yes',
        '--state-store',
        'configmap',
        '--lease-duration',
        '3s',
      ];
      const runs = [
        spawnWithEvents(args, sim.env('state-a'), sim.dir),
        spawnWithEvents(args, sim.env('state-b'), sim.dir),
      ];
      const renewals = new Set<string>();
      const watcher = setInterval(() => {
        const spec = sim.lease()?.spec;
        if (spec && spec.renewTime !== spec.acquireTime) renewals.add(String(spec.renewTime));
      }, 50);
      const results = await Promise.all(runs.map((run) => run.done)).finally(() => clearInterval(watcher));
      const codes = results.map((r) => r.code).sort();
      assert.deepEqual(codes, [0, 5], results.map((r) => r.stderr).join('\n----\n'));
      const loser = results.findIndex((r) => r.code === 5);
      const winnerPid = runs[1 - loser]!.child.pid;
      assert.match(
        results[loser]!.stderr,
        new RegExp(`another upgrade of this cluster is running: pid ${winnerPid} on .*lock id [0-9a-f-]{36}`),
      );
      assert.match(
        results[loser]!.stderr,
        /ctl (--kubeconfig \S+ )?upgrade unlock --state-store configmap -n redis --cluster rec --lock-id/,
      );
      assert.equal(sim.state()?.result, 'succeeded');
      assert.ok(renewals.size > 0, 'the lease was renewed while the run lived');
      assert.equal(sim.lease(), undefined, 'and released at the end');
    });

    test('a lease not renewed within its duration is taken over; a live one is not', async () => {
      const foreign = (renewedMsAgo: number) => {
        const at = microTime(Date.now() - renewedMsAgo);
        sim.putLease(
          {
            holderIdentity: 'job-7f3c/1/runner-elsewhere',
            leaseDurationSeconds: 30,
            acquireTime: at,
            renewTime: at,
            leaseTransitions: 0,
          },
          {
            'ctl/lock-owner': JSON.stringify({
              id: 'job-7f3c',
              pid: 1,
              host: 'runner-elsewhere',
              user: 'ci',
              operation: 'upgrade run',
              createdAt: new Date(Date.now() - renewedMsAgo).toISOString(),
            }),
          },
        );
      };
      const run = (home: string) =>
        runCtl(['upgrade', 'run', '--to', TARGET, '--yes', '--state-store', 'configmap'], {
          env: sim.env(home),
          cwd: sim.dir,
        });

      foreign(10 * 60_000);
      const takeover = await run('state-c');
      assert.equal(takeover.code, 0, takeover.stderr);
      assert.match(takeover.stderr, /took over the stale lock of pid 1 on runner-elsewhere/);
      assert.equal(sim.lease(), undefined);

      foreign(1_000);
      const blocked = await run('state-d');
      assert.equal(blocked.code, 5, blocked.stderr);
      assert.match(
        blocked.stderr,
        /another upgrade of this cluster is running: pid 1 on runner-elsewhere \(user ci\)/,
      );
      assert.match(blocked.stderr, /Lease redis\/ctl-upgrade-lock-rec/);

      const env = { env: sim.env('state-e'), cwd: sim.dir };
      const status = await runCtl(['upgrade', 'status', '--state-store', 'configmap', '-o', 'json'], env);
      assert.equal(status.code, 0, status.stderr);
      const shown = JSON.parse(status.stdout) as {
        lock: { id: string; host: string };
        lease: { stale: boolean; leaseDurationSeconds: number };
      };
      assert.equal(shown.lock.id, 'job-7f3c');
      assert.equal(shown.lock.host, 'runner-elsewhere');
      assert.equal(shown.lease.stale, false);
      assert.equal(shown.lease.leaseDurationSeconds, 30);

      const refused = await runCtl(
        ['upgrade', 'unlock', '--state-store', 'configmap', '--lock-id', 'job-7f3c'],
        env,
      );
      assert.equal(refused.code, 5, refused.stderr);
      assert.ok(sim.lease(), 'a live lease is kept');
      const forced = await runCtl(
        ['upgrade', 'unlock', '--state-store', 'configmap', '--lock-id', 'job-7f3c', '--force'],
        env,
      );
      assert.equal(forced.code, 0, forced.stderr);
      assert.match(forced.stderr, /removed the lock held by pid 1 on runner-elsewhere/);
      assert.equal(sim.lease(), undefined);

      // A Lease with no holder (a tool that released it empties spec.holderIdentity): it holds
      // no lock, so status shows none and unlock says none was held, making up no owner.
      const now = microTime(Date.now());
      sim.putLease({ holderIdentity: '', leaseDurationSeconds: 30, acquireTime: now, renewTime: now });
      const holderless = await runCtl(['upgrade', 'status', '--state-store', 'configmap'], env);
      assert.equal(holderless.code, 0, holderless.stderr);
      assert.doesNotMatch(holderless.stdout, /locked by|pid 0/);
      const none = await runCtl(
        ['upgrade', 'unlock', '--state-store', 'configmap', '--lock-id', 'job-7f3c'],
        env,
      );
      assert.equal(none.code, 0, none.stderr);
      assert.match(none.stderr, /no lock was held for configmap\/redis\/ctl-upgrade-state-rec/);
      assert.equal(sim.lease(), undefined, 'the holderless Lease is removed');
    });

    test('a live Lease whose owner id is shell code: the unlock hint, pasted into sh, passes it as one --lock-id', async () => {
      // Anyone who may write Leases in the namespace names the owner; the hint is for pasting.
      const id = 'job; touch pwned $(touch pwned2) `touch pwned3`';
      const at = microTime(Date.now() - 1_000);
      sim.putLease(
        { holderIdentity: `x/1/elsewhere`, leaseDurationSeconds: 30, acquireTime: at, renewTime: at },
        {
          'ctl/lock-owner': JSON.stringify({
            id,
            pid: 1,
            host: 'elsewhere',
            user: 'ci',
            operation: 'upgrade run',
            createdAt: new Date().toISOString(),
          }),
        },
      );
      const env = { env: sim.env('state-f'), cwd: sim.dir };
      const blocked = await runCtl(
        ['upgrade', 'run', '--to', TARGET, '--yes', '--state-store', 'configmap'],
        env,
      );
      assert.equal(blocked.code, 5, blocked.stderr);
      // Its holder is on another host: the hint's unlock has --force (without it unlock refuses
      // a Lease still renewed) and names the cluster.
      const hint = /once you are sure it is not running there, run: (ctl .+)$/m.exec(blocked.stderr)?.[1];
      assert.ok(hint, `the unlock hint: ${blocked.stderr}`);
      // A stand-in ctl records the words sh hands it.
      const bin = path.join(sim.dir, 'paste-bin');
      mkdirSync(bin, { recursive: true });
      writeFileSync(path.join(bin, 'ctl'), '#!/bin/sh\nprintf "%s\\n" "$@" > "$CTL_ARGS"\n', { mode: 0o755 });
      const paste = path.join(sim.dir, 'paste');
      mkdirSync(paste, { recursive: true });
      const args = path.join(sim.dir, 'pasted-args');
      execFileSync('sh', ['-c', hint], {
        cwd: paste,
        env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, CTL_ARGS: args },
      });
      const pasted = readFileSync(args, 'utf8').split('\n').slice(0, -1);
      // After the kubeconfig ctl was given (src/kube/kube-target.ts), the unlock of this cluster.
      const subcommand = pasted.indexOf('upgrade');
      assert.deepEqual(
        pasted.slice(0, subcommand).filter((_, i) => i % 2 === 0),
        subcommand > 0 ? ['--kubeconfig'] : [],
      );
      assert.deepEqual(pasted.slice(subcommand), [
        'upgrade',
        'unlock',
        '--state-store',
        'configmap',
        '-n',
        'redis',
        '--cluster',
        'rec',
        '--lock-id',
        id,
        '--force',
      ]);
      assert.deepEqual(readdirSync(paste), [], 'the pasted hint ran nothing else');
      const forced = await runCtl(
        ['upgrade', 'unlock', '--state-store', 'configmap', '--lock-id', id, '--force'],
        env,
      );
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal(sim.lease(), undefined);
    });

    test('--state with --state-store configmap is a usage error before any request', async () => {
      const result = await runCtl(
        ['upgrade', 'run', '--to', TARGET, '--yes', '--state-store', 'configmap', '--state', 'x.json'],
        { env: sim.env('state-f'), cwd: sim.dir },
      );
      assert.equal(result.code, 2);
      assert.match(result.stderr, /--state names a file, but --state-store is configmap/);
    });
  });

  describe('the plan checks the ConfigMap and Lease permissions first', { concurrency: 1 }, () => {
    let sim: Sim;
    before(async () => {
      sim = await startSim();
      sim.cluster.kube.accessDenials.push({
        verb: 'create',
        group: 'coordination.k8s.io',
        resource: 'leases',
      });
    });
    after(async () => {
      await sim?.close();
    });

    interface PlanJson {
      blocked: boolean;
      checks: { id: string; status: string; message: string; fix: string }[];
    }
    const permissionsCheck = (stdout: string) =>
      (JSON.parse(stdout) as PlanJson).checks.find((check) => check.id === 'permissions');

    test('a file-store plan does not need them; a configmap-store plan fails without create on leases', async () => {
      const options = { env: sim.env('state-p'), cwd: sim.dir };
      const file = await runCtl(['upgrade', 'plan', '--to', TARGET, '-o', 'json'], options);
      assert.equal(file.code, 0, file.stderr);
      assert.equal(permissionsCheck(file.stdout)?.status, 'pass');

      const configmap = await runCtl(
        ['upgrade', 'plan', '--to', TARGET, '-o', 'json', '--state-store', 'configmap'],
        options,
      );
      assert.equal(configmap.code, 3, configmap.stderr);
      const check = permissionsCheck(configmap.stdout);
      assert.equal(check?.status, 'fail');
      assert.match(check?.message ?? '', /create leases\.coordination\.k8s\.io -n redis/);
      assert.match(
        check?.fix ?? '',
        /kubectl (--kubeconfig \S+ )?auth can-i create leases\.coordination\.k8s\.io -n redis/,
      );
    });

    test('a configmap-store run stops at the plan: no ConfigMap, no Lease, nothing changed', async () => {
      const options = { env: sim.env('state-r'), cwd: sim.dir };
      const run = await runCtl(
        ['upgrade', 'run', '--to', TARGET, '--yes', '--state-store', 'configmap'],
        options,
      );
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /permissions/);
      assert.equal(sim.configMap(), undefined);
      assert.equal(sim.lease(), undefined);
      assert.equal(describeEntries(changes(sim)), '');
    });
  });
});
