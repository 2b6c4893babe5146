import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_QUEUED_BYTES,
  stopBlocking,
  TerminalOutput,
  type TerminalStream,
} from '../../../src/io/terminal-output.js';

/**
 * A terminal stream whose writes the test lets through (`take`), as a paused terminal queues
 * them in Node's stream: writableLength is what it has not taken yet.
 */
function pausedTerminal(flags: number | 'unknown' = 0o2100002) {
  const queue: { chunk: string; callback?: (error?: Error | null) => void }[] = [];
  const screen: string[] = [];
  const blocking: boolean[] = [];
  const stream: TerminalStream = {
    isTTY: true,
    fd: 2,
    _handle: { setBlocking: (value: boolean) => blocking.push(value) },
    get writableLength() {
      return queue.reduce((sum, item) => sum + Buffer.byteLength(item.chunk), 0);
    },
    write(chunk, callback) {
      queue.push({ chunk, callback });
      return true;
    },
  };
  return {
    stream,
    screen,
    blocking,
    fdFlags: () => (flags === 'unknown' ? undefined : flags),
    /** Ctrl-Q: the terminal takes everything queued, callbacks in order. */
    take() {
      while (queue.length > 0) {
        const item = queue.shift()!;
        screen.push(item.chunk);
        item.callback?.();
      }
    },
  };
}

describe('a terminal that stops taking output (Ctrl-S)', () => {
  it('its writes are made non-blocking only on a descriptor libuv reopened (close-on-exec), on Linux', () => {
    const own = pausedTerminal();
    assert.equal(stopBlocking(own.stream, { fdFlags: own.fdFlags, platform: 'linux' }), true);
    assert.deepEqual(own.blocking, [false]);
    const shared = pausedTerminal(0o2); // the shell's own description: left blocking
    assert.equal(stopBlocking(shared.stream, { fdFlags: shared.fdFlags, platform: 'linux' }), false);
    const unknown = pausedTerminal('unknown');
    assert.equal(stopBlocking(unknown.stream, { fdFlags: unknown.fdFlags, platform: 'linux' }), false);
    const mac = pausedTerminal();
    assert.equal(stopBlocking(mac.stream, { fdFlags: mac.fdFlags, platform: 'darwin' }), false);
    const pipe = pausedTerminal();
    pipe.stream.isTTY = false;
    assert.equal(stopBlocking(pipe.stream, { fdFlags: pipe.fdFlags, platform: 'linux' }), false);
    assert.deepEqual([...shared.blocking, ...unknown.blocking, ...mac.blocking, ...pipe.blocking], []);
  });

  it('lines are queued up to the bound, then dropped and counted in one line once it drains', () => {
    const t = pausedTerminal();
    const out = new TerminalOutput(t.stream, { maxQueuedBytes: 100, fdFlags: t.fdFlags, platform: 'linux' });
    assert.equal(out.nonBlocking, true);
    const line = `${'x'.repeat(39)}\n`; // 40 bytes
    assert.equal(out.write(line), true);
    assert.equal(out.write(line), true);
    assert.equal(out.write(line), false, 'the third would pass 100 bytes');
    assert.equal(out.write(line), false);
    assert.equal(out.drained(), false);
    t.take();
    assert.deepEqual(t.screen.slice(0, 2), [line, line]);
    const note = t.screen.join('');
    assert.match(note, /warning: 2 lines of output \(1 KB\) not shown: the terminal stopped taking output/);
    assert.equal(out.drained(), true);
  });

  it('data (no bound) is never dropped, and flushed() waits for the terminal to take it', async () => {
    const t = pausedTerminal();
    const out = new TerminalOutput(t.stream, {
      maxQueuedBytes: Infinity,
      fdFlags: t.fdFlags,
      platform: 'linux',
    });
    for (let i = 0; i < 1000; i++) assert.equal(out.write(`${'d'.repeat(2047)}\n`), true);
    assert.ok(out.queuedBytes > MAX_QUEUED_BYTES);
    let flushed = false;
    const done = out.flushed().then(() => {
      flushed = true;
    });
    await Promise.resolve();
    assert.equal(flushed, false, 'still paused');
    t.take();
    await done;
    assert.equal(t.screen.join('').length, 1000 * 2048);
  });

  it('a stream that is no terminal is written as it was: nothing dropped, nothing changed', () => {
    const t = pausedTerminal();
    t.stream.isTTY = false;
    const out = new TerminalOutput(t.stream, { maxQueuedBytes: 10, fdFlags: t.fdFlags, platform: 'linux' });
    assert.equal(out.nonBlocking, false);
    assert.equal(out.write('a line longer than ten bytes\n'), true);
    assert.deepEqual(t.blocking, []);
  });
});
