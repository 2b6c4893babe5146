import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { createTestIo } from '../../../src/io/test-io.js';
import { guardInterrupts, OutputClosed, tolerateClosedOutputs } from '../../../src/run/signals.js';

/** An 'error' event as a write to a closed pipe gives it. */
function errorOf(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`write ${code}`), { code });
}

describe('a closed stdout or stderr (src/run/signals.ts)', () => {
  it('stops the run like a first interrupt, naming the stream, with exit 141 after the grace', async () => {
    const { io, stderr } = createTestIo();
    const outputs = { stdout: new EventEmitter(), stderr: new EventEmitter() };
    const exits: number[] = [];
    const guard = guardInterrupts(io, (code) => exits.push(code), 20, outputs);
    try {
      outputs.stderr.emit('error', errorOf('EPIPE'));
      assert.ok(guard.signal.aborted);
      assert.ok(guard.signal.reason instanceof OutputClosed);
      assert.equal(String(guard.signal.reason), 'a broken pipe: the reader of stderr went away');
      // Said nowhere: stderr is the stream that closed.
      assert.equal(stderr(), '');
      // A later error changes nothing: the first reason stays.
      outputs.stdout.emit('error', errorOf('EPIPE'));
      assert.equal((guard.signal.reason as OutputClosed).stream, 'stderr');
      await new Promise((resolve) => setTimeout(resolve, 60));
      assert.deepEqual(exits, [141], 'a run that does not stop within the grace exits 141');
    } finally {
      guard.dispose();
    }
  });

  it('a closed stdout is said on stderr; after dispose the guard no longer listens', () => {
    const { io, stderr } = createTestIo();
    const outputs = { stdout: new EventEmitter(), stderr: new EventEmitter() };
    const guard = guardInterrupts(io, () => undefined, 1_000, outputs);
    outputs.stdout.emit('error', errorOf('EPIPE'));
    guard.dispose();
    assert.equal((guard.signal.reason as OutputClosed).stream, 'stdout');
    assert.match(stderr(), /a broken pipe: the reader of stdout went away: stopping and saving the state/);
    assert.equal(outputs.stdout.listenerCount('error'), 0);
    assert.equal(outputs.stderr.listenerCount('error'), 0);
  });

  it('tolerateClosedOutputs takes a broken pipe quietly and lets any other error through', () => {
    const stream = new EventEmitter();
    tolerateClosedOutputs([stream]);
    assert.doesNotThrow(() => stream.emit('error', errorOf('EPIPE')));
    assert.doesNotThrow(() => stream.emit('error', errorOf('ERR_STREAM_DESTROYED')));
    assert.throws(() => stream.emit('error', errorOf('EIO')), /write EIO/);
  });
});
