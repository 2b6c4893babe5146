import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiAction } from '../../../src/api/types.js';
import { TimeoutError } from '../../../src/errors.js';
import { waitForAction } from '../../../src/steps/remediate-action-wait.js';
import { harness } from './fakes.js';

/**
 * An action's status the REST reference does not list (objects/action.md; requests/actions):
 * neither done nor failed. The wait warns once, naming it, goes on while the action answers so,
 * and ends as the action does; one that stays so ends at --stall-timeout, naming the status.
 */
describe('waitForAction: a status the reference does not list', () => {
  /** A harness whose action answers `statuses` in turn (the last one from then on), on a fake clock. */
  function waiting(statuses: string[], stallTimeoutMs = 30_000) {
    const h = harness({ settings: { stallTimeoutMs, timeoutMs: 600_000 } });
    let now = 0;
    let asked = 0;
    h.deps.clock = {
      now: () => now,
      sleep: (ms: number) => {
        now += ms;
        return Promise.resolve();
      },
    };
    h.deps.api = {
      getAction: (uid: string): Promise<ApiAction> =>
        Promise.resolve({
          action_uid: uid,
          name: 'module_upload',
          status: statuses[Math.min(asked++, statuses.length - 1)]!,
          progress: 50,
        } as ApiAction),
    } as unknown as typeof h.deps.api;
    return { h, asked: () => asked };
  }
  const warnings = (h: ReturnType<typeof harness>) =>
    h.log.filter((e) => e.type === 'warn').map((e) => e.text);

  it('warns once naming it, keeps waiting through it, and ends when the action completes', async () => {
    const { h, asked } = waiting(['weird', 'weird', 'running', 'weird', 'completed']);
    await waitForAction(h.ctx(), 'a1', 'the upload of m.zip');
    assert.equal(asked(), 5);
    const warned = warnings(h);
    assert.equal(warned.length, 1, warned.join('\n'));
    assert.match(
      warned[0] ?? '',
      /the upload of m\.zip: the action a1 reports the status "weird", which the REST reference does not list .*keeps waiting, within --stall-timeout and --timeout/,
    );
  });

  it('the documented states under way are no warning', async () => {
    const { h } = waiting(['queued', 'starting', 'running', 'pending', 'active', 'cancelling', 'completed']);
    await waitForAction(h.ctx(), 'a2', 'the upgrade of database cache');
    assert.deepEqual(warnings(h), []);
  });

  it('an action that stays so ends at --stall-timeout (exit 6), the error naming the status', async () => {
    const { h } = waiting(['weird'], 5_000);
    await assert.rejects(waitForAction(h.ctx(), 'a3', 'the upload of m.zip'), (error: unknown) => {
      assert.ok(error instanceof TimeoutError, String(error));
      assert.match(
        error.message,
        /made no progress for .*\(action a3: "weird", a status the REST reference does not list\)/,
      );
      return true;
    });
    assert.equal(warnings(h).length, 1);
  });
});
