import assert from 'node:assert/strict';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { describe, it } from 'node:test';
import { atCommandEnd, endCommand } from '../../../src/io/command-end.js';
import { keepAliveAgent } from '../../../src/kube/agent.js';

describe('kept connection pools end with the command (src/io/command-end.ts)', () => {
  it('the pool kept for a command is destroyed at its end, and the next command gets its own', () => {
    const first = keepAliveAgent(new HttpsAgent({ rejectUnauthorized: true }));
    assert.ok(first instanceof HttpsAgent);
    assert.equal(
      keepAliveAgent(new HttpsAgent({ rejectUnauthorized: true })),
      first,
      'one pool per settings',
    );
    let destroyed = 0;
    const destroy = first.destroy.bind(first);
    first.destroy = () => {
      destroyed += 1;
      destroy();
    };
    endCommand();
    assert.equal(destroyed, 1, 'the command end destroyed the kept pool');
    const next = keepAliveAgent(new HttpsAgent({ rejectUnauthorized: true }));
    assert.notEqual(next, first, 'a command after it keeps a new pool');
    endCommand();
  });

  it('each closer runs once, a failing one does not stop the others', () => {
    const calls: string[] = [];
    atCommandEnd(() => {
      calls.push('a');
      throw new Error('closing failed');
    });
    atCommandEnd(() => calls.push('b'));
    endCommand();
    endCommand();
    assert.deepEqual(calls, ['a', 'b']);
  });

  it('a plain http pool is kept and ended the same way', () => {
    const first = keepAliveAgent(new HttpAgent());
    assert.ok(first instanceof HttpAgent);
    endCommand();
    assert.notEqual(keepAliveAgent(new HttpAgent()), first);
    endCommand();
  });
});
