/**
 * A step's waits' warnings, once a step for each cause (src/steps/wait-warnings.ts): the same
 * cause from another wait of the step is not said again, another cause is, a step's context
 * spread for its own progress (databases.ts) shares the step's, and another step says its own.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stepWaitWarning } from '../../../src/steps/wait-warnings.js';

const PLUGIN = "unbuilt: the kubeconfig's credential plugin /bin/login failed (exit 1): token expired";

describe('steps/wait-warnings', () => {
  it("one warning per cause across a step's waits, whichever wait meets it first", () => {
    const said: string[] = [];
    const ctx = { warn: (message: string) => said.push(message) };
    const resource = stepWaitWarning(ctx);
    const statefulSet = stepWaitWarning(ctx);
    const pods = stepWaitWarning({ ...ctx });
    resource(
      'GET /apis/app.redislabs.com/v1/namespaces/redis/redisenterpriseclusters: ... token expired',
      PLUGIN,
    );
    statefulSet('GET /apis/apps/v1/namespaces/redis/statefulsets: ... token expired', PLUGIN);
    pods('watch /api/v1/namespaces/redis/pods: ... token expired', PLUGIN);
    assert.deepEqual(said, [
      'GET /apis/app.redislabs.com/v1/namespaces/redis/redisenterpriseclusters: ... token expired',
    ]);
    statefulSet(
      'watch /apis/apps/v1/namespaces/redis/statefulsets: ... sent a line that is not JSON',
      'line: a line that is not JSON',
    );
    assert.equal(said.length, 2, 'another cause is said');
  });

  it("keeps the step's own words (a database's label), and another step says its own", () => {
    const databases: string[] = [];
    const step = { warn: (m: string) => databases.push(m) };
    stepWaitWarning(step, (m) => `redis/a: ${m}`)('GET ...: cause', PLUGIN);
    stepWaitWarning(step, (m) => `redis/b: ${m}`)('GET ...: cause', PLUGIN);
    assert.deepEqual(databases, ['redis/a: GET ...: cause']);
    // Another step's context has a warn of its own: it says the cause again.
    const monitor: string[] = [];
    stepWaitWarning({ warn: (m: string) => monitor.push(m) })('GET ...: cause', PLUGIN);
    assert.deepEqual(monitor, ['GET ...: cause']);
  });
});
