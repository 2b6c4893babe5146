import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { assertExit, assertNoChanges, readState, withUpgradeSim } from './upgrade-support.js';

/**
 * A run that stopped in preflight changed nothing, so it never holds the state against a run to
 * another --to (issue 27 item 7): here the target the failed check itself suggests.
 */

function scenarioFile(): string {
  const file = path.join(tempDir('ctl-preflight-replaced-'), 'preflight-replaced.yaml');
  writeFileSync(
    file,
    `name: preflight-replaced
description: "Operator 7.2.4-12 in namespace shop, cluster east: written by test/e2e/upgrade-preflight-replaced.test.ts"
namespace: shop
operator:
  version: 7.2.4-12
cluster:
  name: east
  versionTag: 7.2.4-92
  apiVersion: 7.2.4-92
databases:
  - { name: ledger, version: "7.2" }
`,
  );
  return file;
}

describe('ctl upgrade run after a failed preflight (e2e)', () => {
  it('the run to the target the failed check suggests replaces the one that changed nothing', async () => {
    await withUpgradeSim(scenarioFile(), async (sim) => {
      const blocked = await sim.ctl(['upgrade', 'run', '--to', '7.8.2-6', '--max-hops', '1', '--yes']);
      assertExit(blocked, 3, 'run to 7.8.2-6');
      assert.match(blocked.stderr, /nothing was changed/);
      assertNoChanges(sim, 0, 'the blocked run');
      assert.equal(readState(sim).steps.preflight?.status, 'failed');
      const suggested = /first ctl --kubeconfig \S+ upgrade run --to (\d+\.\d+\.\d+-\d+)/.exec(
        blocked.stderr,
      )?.[1];
      assert.ok(suggested, `the failed check suggests a first hop: ${blocked.stderr}`);

      const run = await sim.ctl(['upgrade', 'run', '--to', suggested, '--yes'], { timeoutMs: 180_000 });
      assertExit(run, 0, `run to ${suggested}`);
      assert.match(
        run.stderr,
        new RegExp(
          `the run to 7\\.8\\.2-6 recorded in .* stopped in preflight, having changed nothing: this run to ${suggested.replaceAll('.', '\\.')} replaces it`,
        ),
      );
      assert.equal(readState(sim).result, 'succeeded');
      const deployment = await sim.get(['deployment', 'redis-enterprise-operator', '-n', 'shop']);
      const image = String(
        (deployment.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec
          .containers[0]?.image,
      );
      assert.ok(image.endsWith(`:${suggested}`), `operator image ${image}`);
    });
  });
});
