import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/run-ctl.js';
import { tempDir } from '../helpers/temp.js';
import {
  assertExit,
  changes,
  describeEntries,
  TARGET,
  type UpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * `ctl upgrade run --dry-run=server` (issue 30): every Kubernetes write goes to the API server
 * with dryRun=All, which judges it and keeps nothing; what it refused is listed and the run
 * exits 1. The simulator's API server honours dryRun as a real one does.
 */

/** resourceVersion of everything the run would write: unchanged means nothing was persisted. */
async function versions(sim: UpgradeSim): Promise<string> {
  const rec = await sim.get(['rec', 'rec', '-n', 'redis']);
  const operator = await sim.get(['deployment', 'redis-enterprise-operator', '-n', 'redis']);
  const redbs = await sim.list(['redb', '-n', 'redis']);
  return JSON.stringify([rec, operator, ...redbs].map((o) => [o.metadata.name, o.metadata.resourceVersion]));
}

/** Every write the run sent carried dryRun=All. */
function assertAllDryRun(sim: UpgradeSim): void {
  const writes = changes(sim).filter((e) => e.api === 'kube');
  assert.ok(writes.length > 0, 'the run sent its writes to the API server');
  const persisted = writes.filter((e) => !/[?&]dryRun=All\b/.test(e.path));
  assert.deepEqual(persisted, [], `writes without dryRun=All:\n${describeEntries(persisted)}`);
}

describe('ctl upgrade run --dry-run=server (e2e)', () => {
  it('the API server accepts every write: exit 0, nothing persisted, no state file', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const before = await versions(sim);
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run=server']);
      assertExit(result, 0, 'dry-run=server');
      assert.match(result.stderr, /would patch rec\/rec -n redis: /);
      assert.match(result.stderr, /server dry run: the API server accepted all \d+ write\(s\)/);
      assertAllDryRun(sim);
      assert.equal(await versions(sim), before, 'no object changed');
      assert.equal(existsSync(sim.statePath), false, 'no state file');
    });
  });

  it('a write the API server refuses: listed, exit 1, nothing changed', async () => {
    const dir = tempDir('ctl-dry-run-');
    const file = path.join(dir, 'refused-rec.yaml');
    // happy-path, with the API server refusing (403) every patch of the cluster resource.
    const base = readFileSync(path.join(repoRoot, 'scenarios', 'happy-path.yaml'), 'utf8');
    writeFileSync(
      file,
      base
        .replace(/^name: happy-path$/m, 'name: refused-rec')
        .replace(
          /^faults: \[\]$/m,
          'faults:\n  - { api: kube, match: "PATCH /apis/app.redislabs.com/v1/namespaces/redis/redisenterpriseclusters/rec", status: 403 }',
        ),
    );
    await withUpgradeSim(file, async (sim) => {
      const before = await versions(sim);
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run=server']);
      assertExit(result, 1, 'dry-run=server with a refusal');
      assert.match(result.stderr, /the API server refused 1 of \d+ write\(s\); nothing was changed/);
      assert.match(result.stderr, /patch rec\/rec -n redis: 403/);
      assertAllDryRun(sim);
      assert.equal(await versions(sim), before, 'no object changed');
      // --dry-run alone (client) sends nothing and so sees no refusal.
      const client = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run']);
      assertExit(client, 0, 'dry-run (client)');
      const bad = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run=everything']);
      assertExit(bad, 2, '--dry-run=everything');
    });
  });
});
