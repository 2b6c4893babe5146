/**
 * The cluster resource's licence status counts the shards the databases use, masters and
 * replicas (a replica is a shard of its own under the licence: redis/docs rs/clusters/configure/
 * license-keys.md), as `kubectl get rec` shows in its SHARDS column. The scenario is written
 * here, with names used nowhere else.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseTable, REC_COLUMNS, type SimHarness, startHarness } from './sim-support.js';

const SCENARIO = [
  'name: ledger-shards',
  'description: "Databases of several shards, replicated or not"',
  'namespace: ledger-west',
  'operator: { version: 7.8.6-20 }',
  'cluster: { name: ledger, nodes: 3 }',
  'databases:',
  // 3 masters and their 3 replicas, 2 masters alone, 1 master and its replica: 10 shards.
  '  - { name: journal, version: "7.2", shards: 3 }',
  '  - { name: scratch, version: "7.2", shards: 2, replication: false }',
  '  - { name: index, version: "7.2" }',
  '',
].join('\n');

describe('sim: the licence status counts the shards in use', () => {
  let dir: string;
  let sim: SimHarness;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-license-shards-'));
    const file = path.join(dir, 'ledger-shards.yaml');
    writeFileSync(file, SCENARIO);
    sim = await startHarness(file);
  });
  after(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl get rec shows every master and replica shard, as many as GET /v1/shards lists', async () => {
    const table = parseTable((await sim.kubectl(['get', 'rec'])).stdout);
    assert.deepEqual(table.header, REC_COLUMNS);
    assert.equal(table.rows[0]?.NAME, 'ledger');
    assert.equal(table.rows[0]?.SHARDS, '10');
    const shards = await sim.api('GET', '/v1/shards');
    assert.equal(shards.status, 200);
    assert.equal((shards.body as unknown[]).length, 10);
    const license = JSON.parse(
      (await sim.kubectl(['get', 'rec', 'ledger', '-o', 'jsonpath={.status.licenseStatus}'])).stdout,
    ) as Record<string, unknown>;
    // All RAM shards (no Auto Tiering), within the licence's limits.
    assert.equal(license.shardsUsage, '10');
    assert.equal(license.ramShards, 10);
    assert.equal(license.flashShards, 0);
    assert.ok(Number(license.shardsLimit) >= 10, JSON.stringify(license));
    assert.ok(Number(license.ramShardsLimit) >= 10, JSON.stringify(license));
  });
});
