/**
 * Guarantee 5 (docs/reliability.md): bad input never crashes ctl. fast-check properties over
 * every flag that takes a value (run through the built `main`, in-process, so thousands of inputs
 * fit), then a corpus run as child processes of the built bin: corrupt, truncated and foreign
 * state files, broken scenario files, broken kubeconfigs, and hostile management API answers.
 * The figure: inputs tried, with zero uncaught exceptions, zero stack traces, and every exit code
 * one that CLI.md lists, and the one it names for that input.
 *
 * This file holds the state-file corpus (child processes of the built bin); bad-input-corpus-2
 * holds the scenario files, kubeconfigs and hostile answers (one file for all outlasted the
 * runner's per-file limit on a busy machine); the properties are in bad-input.test.ts.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { newState } from '../../src/run/state.js';
import { judge, problems, since } from './bad-input-judge.js';
import { useCorpusSandbox } from './bad-input-corpus-support.js';
import { runOnBed, spawnCtl, TARGET, UPGRADE } from './support.js';

describe('bad input: corpus, state files (the built bin, child processes)', () => {
  const sandbox = useCorpusSandbox('state files');

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
    const { bed, dir } = sandbox;
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
    const { bed, dir } = sandbox;
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
});
