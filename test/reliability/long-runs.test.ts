/**
 * Guarantee 8 (docs/reliability.md): tokens never end a long run. A run longer than the token's
 * lifetime (the simulator caps every token at 2 s) keeps working by renewing; an upgrade to a
 * cluster version from 8.0.22 on, which invalidates every token, costs exactly one 401 and one
 * new token.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import { checkUpgraded, figure, runOnBed, startBed, UPGRADE } from './support.js';

// Each test has its own cluster, and most of its time is its simulated waits: side by side.
describe('long runs and token lifetimes', { concurrency: true }, () => {
  test('a run several times longer than the token lifetime completes, renewing the token', async () => {
    const bed = await startBed('happy-path', {
      timing: { operatorStart: 1, podRestart: 1.5, databaseUpgrade: 1 },
    });
    try {
      const model = bed.cluster.rest.model;
      const issue = model.issueToken.bind(model);
      const TOKEN_SECONDS = 2;
      model.issueToken = (user, ttl) => issue(user, Math.min(ttl, TOKEN_SECONDS));
      const result = await runOnBed(bed, UPGRADE);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(checkUpgraded(bed), []);
      const rest = bed.cluster.audit.entries.filter((e) => e.api === 'rest');
      const tokens = rest.filter(
        (e) => /^\/v1\/users\/(authorize|refresh_jwt)/.test(e.path) && e.status === 200,
      ).length;
      const rejected = rest.filter((e) => e.status === 401).length;
      assert.ok(result.durationMs > 3 * TOKEN_SECONDS * 1000, `the run took only ${result.durationMs} ms`);
      assert.ok(tokens >= 2, `${tokens} tokens for a ${result.durationMs} ms run`);
      figure(
        `long run: ${Math.round(result.durationMs / 1000)} s with ${TOKEN_SECONDS} s tokens, ${tokens} tokens obtained, ${rejected} requests refused with 401, exit 0`,
      );
    } finally {
      await bed.close();
    }
  });

  test('an upgrade to 8.2 (tokens invalidated from 8.0.22) re-obtains the token exactly once', async () => {
    const bed = await startBed('happy-path', {
      timing: { operatorStart: 0.2, podRestart: 0.5, databaseUpgrade: 0.2 },
    });
    try {
      const target = '8.2.0-13';
      const result = await runOnBed(bed, ['upgrade', 'run', '--to', target, '--yes']);
      assert.equal(result.code, 0, result.stderr);
      const store = bed.cluster.kube.store;
      const rec = store.get(
        store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster'),
        'redis',
        'rec',
      ) as unknown as {
        spec: { redisEnterpriseImageSpec: { versionTag: string } };
        status: { state: string };
      };
      assert.equal(rec.spec.redisEnterpriseImageSpec.versionTag, clusterTagFor(target));
      assert.equal(rec.status.state, 'Running');
      const rest = bed.cluster.audit.entries.filter((e) => e.api === 'rest');
      const authorized = rest.filter(
        (e) => e.path.startsWith('/v1/users/authorize') && e.status === 200,
      ).length;
      const rejected = rest.filter((e) => e.status === 401).length;
      assert.equal(authorized, 2, 'one token before the upgrade, one after');
      // The calls in flight when the cluster invalidated the token each meet it once: the monitor's
      // and the availability poller's (at most 4 at once, docs/availability.md), all answered by
      // the one token re-obtained above.
      assert.ok(rejected >= 1 && rejected <= 5, `${rejected} calls met the invalidated token`);
      figure(
        `token invalidation on upgrade to ${target}: ${rejected} 401, ${authorized - 1} token re-obtained, exit 0`,
      );
    } finally {
      await bed.close();
    }
  });
});
