/**
 * Guarantee 5 (docs/reliability.md): bad input never crashes ctl. fast-check properties over
 * every flag that takes a value (run through the built `main`, in-process, so thousands of inputs
 * fit), then a corpus run as child processes of the built bin: corrupt, truncated and foreign
 * state files, broken scenario files, broken kubeconfigs, and hostile management API answers.
 * The figure: inputs tried, with zero uncaught exceptions, zero stack traces, and every exit code
 * one that CLI.md lists, and the one it names for that input.
 *
 * This file holds the corpus (child processes of the built bin); the properties are in
 * bad-input.test.ts.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newState } from '../../src/run/state.js';
import { type HostileMode, HOSTILE_MODES, startHostileServer } from './hostile-server.js';
import { judge, problems, since, tally } from './bad-input-judge.js';
import { type Bed, figure, LONG, runOnBed, spawnCtl, startBed, TARGET, UPGRADE } from './support.js';

describe('bad input: corpus (the built bin, child processes)', () => {
  let bed: Bed;
  let dir: string;
  before(async () => {
    bed = await startBed('happy-path');
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-rel-corpus-'));
  });
  after(async () => {
    await bed?.close();
    rmSync(dir, { recursive: true, force: true });
    figure(
      `bad inputs tried ${tally.inputs}: uncaught exceptions ${tally.uncaught}, stack traces ${tally.stacks}, undocumented exit codes ${tally.undocumented}, unexpected exit codes ${tally.wrongCode}`,
    );
  });

  const valid = () =>
    newState({ context: 'ctl-sim-happy-path', namespace: 'redis', cluster: 'rec' }, { operator: TARGET }, [
      'preflight',
      'operator',
      'admission',
      'security-context',
      'cluster',
      'monitor',
      'databases',
    ]);

  test('corrupt, truncated and foreign state files: exit 1 or 2 with a message, cluster untouched', async () => {
    const from = problems.length;
    const full = JSON.stringify(valid(), null, 2);
    const corpus: Record<string, string | Buffer> = {
      empty: '',
      whitespace: '   \n',
      truncated: full.slice(0, Math.floor(full.length / 2)),
      'truncated-1': full.slice(0, -2),
      garbage: Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x81]),
      array: '[]',
      null: 'null',
      number: '42',
      'other-kind': JSON.stringify({ ...valid(), kind: 'UpgradePlan' }),
      'newer-schema': JSON.stringify({ ...valid(), apiVersion: 'ctl/v9' }),
      'wrong-types': JSON.stringify({ ...valid(), serial: 'seven', steps: [] }),
      'missing-lineage': JSON.stringify({ ...valid(), lineage: undefined }),
      'bad-status': JSON.stringify({ ...valid(), steps: { preflight: { status: 'maybe' } } }),
      'huge-10mb': `{"pad":"${'x'.repeat(10 * 1024 * 1024)}"}`,
      'yaml-not-json': 'apiVersion: ctl/v1\nkind: UpgradeState\n',
    };
    const before = bed.changes.versionTag + bed.changes.operatorImage;
    for (const [name, content] of Object.entries(corpus)) {
      const file = path.join(dir, `state-${name}.json`);
      writeFileSync(file, content, { mode: 0o600 });
      const status = await spawnCtl(['upgrade', 'status', '--state', file], { env: bed.env, cwd: dir })
        .result;
      judge(`status --state ${name}`, status.code, status.stderr, [1]);
      const run = await runOnBed(bed, [...UPGRADE, '--state', file]);
      judge(`run --state ${name}`, run.code, run.stderr, [1]);
      if (run.code === 1 && !/not a valid ctl state file/.test(run.stderr))
        problems.push(`run --state ${name}: no clear message: ${run.stderr.slice(0, 400)}`);
    }
    // A folder where the state file should be, and a state file whose parent is a file.
    const status = await spawnCtl(['upgrade', 'status', '--state', dir], { env: bed.env, cwd: dir }).result;
    judge('status --state <a folder>', status.code, status.stderr, [2]);
    const blocked = await runOnBed(bed, [
      ...UPGRADE,
      '--state',
      path.join(dir, 'state-empty.json', 'x.json'),
    ]);
    judge('run --state <under a file>', blocked.code, blocked.stderr, [1]);
    assert.equal(
      bed.changes.versionTag + bed.changes.operatorImage,
      before,
      'a corrupt state file led to changes',
    );
    assert.deepEqual(since(from), []);
  });

  test('a state file of another cluster is refused, not resumed', async () => {
    const from = problems.length;
    const foreign = {
      ...valid(),
      lineage: { ...valid().lineage, context: 'prod-eu', cluster: 'other' },
      steps: Object.fromEntries(
        ['preflight', 'operator', 'admission', 'security-context', 'cluster', 'monitor'].map((id) => [
          id,
          { status: 'done' },
        ]),
      ),
    };
    const file = path.join(dir, 'state-foreign.json');
    writeFileSync(file, JSON.stringify(foreign), { mode: 0o600 });
    const run = await runOnBed(bed, [...UPGRADE, '--state', file]);
    judge('run --state <another cluster>', run.code, run.stderr, [2]);
    // Whatever it answered, it must not have skipped the cluster upgrade on the word of another cluster's file.
    assert.notEqual(
      bed.changes.databaseVersion.size > 0 && bed.changes.versionTag === 0,
      true,
      'databases upgraded before the cluster',
    );
    assert.deepEqual(since(from), []);
  });

  test('broken scenario files: exit 2 (or 1) with the file and the problem, no simulator started', async () => {
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
    assert.deepEqual(since(from), []);
  });

  test('broken kubeconfigs: exit 1 or 2 with a message', async () => {
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
    assert.deepEqual(since(from), []);
  });

  test('hostile management API answers: exit 1 (or 4) with a message, never a crash', async () => {
    const from = problems.length;
    const server = await startHostileServer();
    const ca = path.join(dir, 'hostile-ca.pem');
    writeFileSync(ca, server.caPem);
    const apiEnv = { ...bed.env, CTL_API_URL: server.url, CTL_CA_FILE: ca };
    const changesBefore =
      bed.changes.versionTag + bed.changes.operatorImage + bed.changes.databaseVersion.size;
    try {
      for (const mode of HOSTILE_MODES) {
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
      await slowloris(server, apiEnv, dir);
    } finally {
      await server.close();
    }
    assert.equal(
      bed.changes.versionTag + bed.changes.operatorImage + bed.changes.databaseVersion.size,
      changesBefore,
      'hostile answers led to changes',
    );
    assert.deepEqual(since(from), []);
  });
});

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
