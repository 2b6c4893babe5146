import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dryRunWording } from '../../../src/run/dry-run-wording.js';

describe('dryRunWording', () => {
  it('words an announced change as what would be done', () => {
    assert.equal(
      dryRunWording('setting spec.redisVersion of rec/rec -n redis from 7.4 to 8.6', 'client'),
      'would set spec.redisVersion of rec/rec -n redis from 7.4 to 8.6',
    );
    assert.equal(
      dryRunWording('redis/cache: setting engineVersion to 7.4 (runs 7.2)', 'server'),
      'redis/cache: would set engineVersion to 7.4 (runs 7.2) (server dry run)',
    );
    assert.equal(
      dryRunWording('helm upgrade redis-enterprise to chart 7.8.2-6', 'client'),
      'would run helm upgrade redis-enterprise to chart 7.8.2-6',
    );
    assert.equal(
      dryRunWording('the cluster has rolled: unbinding redis-enterprise-scc-v2 from x', 'client'),
      'the cluster has rolled: would unbind redis-enterprise-scc-v2 from x',
    );
    assert.equal(
      dryRunWording('re-applying Role and RoleBinding redb-role', 'client'),
      'would re-apply Role and RoleBinding redb-role',
    );
  });

  it('keeps what was read, found or skipped as it is', () => {
    for (const line of [
      'redis-enterprise-admission is already up to date and trusts admission-tls',
      'not OpenShift',
      'would apply 8 objects',
      'redis/cache: runs 7.4',
      'settings: nothing to do',
    ]) {
      assert.equal(dryRunWording(line, 'server'), line);
    }
  });
});
