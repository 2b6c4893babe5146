/**
 * Guarantee 5 (docs/reliability.md): bad input never crashes ctl, the corpus's second part (the
 * first, state files, is bad-input-corpus.test.ts): broken scenario files, broken kubeconfigs,
 * and hostile management API answers, as child processes of the built bin.
 */

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { type HostileMode, HOSTILE_MODES, startHostileServer } from './hostile-server.js';
import { judge, problems, since } from './bad-input-judge.js';
import { useCorpusSandbox } from './bad-input-corpus-support.js';
import { type Bed, LONG, runOnBed, spawnCtl, startBed, TARGET, UPGRADE } from './support.js';

// The three tests are independent (the kubeconfig plans only read the shared cluster, the hostile
// answers stop every run before a change) and mostly wait for ctl: they run side by side, each
// judging only its own inputs.
describe(
  'bad input: corpus, scenarios, kubeconfigs, hostile answers (the built bin, child processes)',
  { concurrency: true },
  () => {
    const sandbox = useCorpusSandbox('scenarios, kubeconfigs, answers');

    test('broken scenario files: exit 2 (or 1) with the file and the problem, no simulator started', async () => {
      const { dir } = sandbox;
      const from = problems.length;
      const corpus: Record<string, string> = {
        empty: '',
        'not-yaml': 'name: [unclosed',
        list: '- a\n- b\n',
        'unknown-key': 'name: x\nnamespace: redis\nbogus: 1\n',
        'wrong-type': 'name: x\ncluster:\n  nodes: three\n',
        'bad-version': 'name: x\noperator:\n  version: seven\n',
        'bad-name': 'name: x\nnamespace: Not_A_Name\n',
        'bad-fault': 'name: x\nfaults:\n  - {api: ftp, match: "*"}\n',
        'negative-rate': 'name: x\nfaults:\n  - {api: rest, match: "*", rate: -1}\n',
        binary: '\u0000\u0001\u0002\u00ff',
        'huge-anchor': `a: &a [${'x,'.repeat(1000)}x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n`,
      };
      for (const [name, content] of Object.entries(corpus)) {
        const file = path.join(dir, `scenario-${name}.yaml`);
        writeFileSync(file, content);
        const result = await spawnCtl(
          ['sim', 'up', '--scenario', file, '--dir', path.join(dir, `sim-${name}`)],
          {
            cwd: dir,
            timeoutMs: 30_000,
          },
        ).result;
        judge(`sim up --scenario ${name}`, result.code, result.stderr, [1, 2]);
      }
      const missing = await spawnCtl(['sim', 'up', '--scenario', path.join(dir, 'nope.yaml')], {
        cwd: dir,
        timeoutMs: 30_000,
      }).result;
      judge('sim up --scenario <missing>', missing.code, missing.stderr, [1, 2]);
      assert.deepEqual(since(from, 'sim up --scenario '), []);
    });

    test('broken kubeconfigs: exit 1 or 2 with a message', async () => {
      const { bed, dir } = sandbox;
      const from = problems.length;
      const good = readFileSync(bed.cluster.kubeconfigPath, 'utf8');
      const corpus: Record<string, string> = {
        empty: '',
        garbage: '{{{{',
        'no-contexts': 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n',
        'no-current': good.replace(/current-context: .*/, 'current-context: missing'),
        'wrong-port': good.replace(/server: https:\/\/127\.0\.0\.1:\d+/, 'server: https://127.0.0.1:1'),
        'wrong-ca': good.replace(
          /certificate-authority-data: .*/,
          `certificate-authority-data: ${Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64')}`,
        ),
        'wrong-token': good.replace(/token: .*/, 'token: not-the-token'),
        'http-url': good.replace(/server: https:/, 'server: http:'),
        'no-server': good.replace(/ *server: .*\n/, ''),
      };
      for (const [name, content] of Object.entries(corpus)) {
        const file = path.join(dir, `kubeconfig-${name}`);
        writeFileSync(file, content, { mode: 0o600 });
        const result = await spawnCtl(['upgrade', 'plan', '--to', TARGET, '--kubeconfig', file], {
          env: { ...bed.env, KUBECONFIG: undefined },
          cwd: dir,
          timeoutMs: 60_000,
        }).result;
        judge(`plan --kubeconfig ${name}`, result.code, result.stderr, [1, 2, 4]);
      }
      const missing = await spawnCtl(
        ['upgrade', 'plan', '--to', TARGET, '--kubeconfig', path.join(dir, 'none')],
        {
          env: { ...bed.env, KUBECONFIG: undefined },
          cwd: dir,
        },
      ).result;
      judge('plan --kubeconfig <missing>', missing.code, missing.stderr, [1, 2]);
      assert.deepEqual(since(from, 'plan --kubeconfig '), []);
    });

    test('hostile management API answers: exit 1 (or 4) with a message, never a crash', async () => {
      const { bed, dir } = sandbox;
      const from = problems.length;
      // Three lanes side by side, each with its own hostile server and its own cluster (two runs
      // on one cluster would meet each other's lock): most of a mode's time is ctl's retry
      // backoff. The slowloris pair goes to the lane with the fewest modes.
      const LANES = 3;
      const others = await Promise.all(Array.from({ length: LANES - 1 }, () => startBed('happy-path')));
      const lanes = [bed, ...others].map((laneBed, lane) => ({
        bed: laneBed,
        modes: HOSTILE_MODES.filter((_, i) => i % LANES === lane),
      }));
      const changesOf = (b: Bed): number =>
        b.changes.versionTag + b.changes.operatorImage + b.changes.databaseVersion.size;
      const changesBefore = lanes.map((lane) => changesOf(lane.bed));
      const slowLane = lanes.reduce(
        (fewest, lane, index) => (lane.modes.length < lanes[fewest]!.modes.length ? index : fewest),
        0,
      );
      try {
        await Promise.all(
          lanes.map((lane, index) =>
            hostileLane(lane.bed, lane.modes, path.join(dir, `hostile-${index}`), index === slowLane),
          ),
        );
      } finally {
        await Promise.all(others.map((other) => other.close()));
      }
      assert.deepEqual(
        lanes.map((lane) => changesOf(lane.bed)),
        changesBefore,
        'hostile answers led to changes',
      );
      assert.deepEqual(since(from, 'auth token, ', 'upgrade plan, API ', 'upgrade run, API '), []);
    });
  },
);

/** Each of `modes` from its own hostile server, against `bed`; then the slowloris pair if asked. */
async function hostileLane(bed: Bed, modes: HostileMode[], dir: string, slow: boolean): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const server = await startHostileServer();
  const ca = path.join(dir, 'hostile-ca.pem');
  writeFileSync(ca, server.caPem);
  const apiEnv = { ...bed.env, CTL_API_URL: server.url, CTL_CA_FILE: ca };
  try {
    for (const mode of modes) {
      // Authorize itself answers badly.
      server.setMode('ok', mode);
      const token = await spawnCtl(['auth', 'token'], { env: apiEnv, cwd: dir, timeoutMs: 150_000 }).result;
      judge(`auth token, authorize ${mode}`, token.code, token.stderr, [1, 4]);
      // Authorize works; every later call answers badly: the plan must report it as a check.
      if (mode === 'bad-token') continue; // A fault of authorize alone.
      server.setMode(mode, 'ok');
      const plan = await runOnBed(bed, ['upgrade', 'plan', '--to', TARGET], {
        env: apiEnv,
        timeoutMs: 150_000,
      });
      judge(`upgrade plan, API ${mode}`, plan.code, plan.stderr, [1, 3]);
      const run = await runOnBed(bed, UPGRADE, { env: apiEnv, timeoutMs: 150_000 });
      judge(`upgrade run, API ${mode}`, run.code, run.stderr, [1, 3]);
    }
    if (slow) await slowloris(server, apiEnv, dir);
  } finally {
    await server.close();
  }
}

/**
 * Slowloris: headers or a body that trickle forever. ctl's deadlines (30 s for headers, 120 s a
 * call) end it with exit 1 in the long form; the short form checks that ctl waits without
 * crashing and stops cleanly on SIGTERM.
 */
async function slowloris(
  server: Awaited<ReturnType<typeof startHostileServer>>,
  env: Record<string, string>,
  dir: string,
): Promise<void> {
  for (const mode of ['slowloris-headers', 'slowloris-body'] as HostileMode[]) {
    server.setMode('ok', mode);
    const run = spawnCtl(['auth', 'token'], { env, cwd: dir, timeoutMs: 200_000 });
    if (LONG) {
      const result = await run.result;
      judge(`auth token, authorize ${mode}`, result.code, result.stderr, [1]);
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const alive = run.child.exitCode === null;
    run.child.kill('SIGTERM');
    const result = await run.result;
    judge(
      `auth token, authorize ${mode} (stopped after 2.5 s)`,
      alive ? 143 : result.code,
      result.stderr,
      [143],
    );
  }
}
