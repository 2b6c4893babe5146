import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cutLine,
  FRAME_MS,
  LiveRegion,
  type LiveTerminal,
  MAX_BYTES_PER_MINUTE,
  MAX_FRAME_BYTES,
  MAX_LINE_BYTES,
  REDRAW_MS,
} from '../../../src/io/live-region.js';
import { createTestIo } from '../../../src/io/test-io.js';

/** A terminal that records each write, with a width the test sets and a resize it fires. */
function fakeTerminal(columns = 120): {
  terminal: LiveTerminal;
  writes: string[];
  resize(to: number): void;
  setWrite(write: (chunk: string) => void): void;
  /** Whether the terminal has taken what was written (false: paused, Ctrl-S). */
  setDrained(value: boolean): void;
} {
  const writes: string[] = [];
  let width = columns;
  let drained = true;
  let onResize: (() => void) | undefined;
  let write = (chunk: string): void => {
    writes.push(chunk);
  };
  return {
    terminal: {
      write: (chunk) => write(chunk),
      drained: () => drained,
      columns: () => width,
      onResize: (listener) => {
        onResize = listener;
        return () => {
          onResize = undefined;
        };
      },
    },
    writes,
    resize: (to) => {
      width = to;
      onResize?.();
    },
    setWrite: (next) => {
      write = next;
    },
    setDrained: (value) => {
      drained = value;
    },
  };
}

const bytes = (chunks: readonly string[]): number => chunks.reduce((sum, c) => sum + Buffer.byteLength(c), 0);

const visible = (line: string): string => line.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

/** A region driven by hand: `step` advances the clock one timer tick and draws. */
function drivenRegion(columns = 120, color = true) {
  const fake = fakeTerminal(columns);
  let clock = 1_000_000;
  const region = new LiveRegion(fake.terminal, { color, unicode: true }, () => clock);
  return {
    ...fake,
    region,
    step: (ticks = 1) => {
      for (let i = 0; i < ticks; i++) {
        clock += FRAME_MS;
        region.tick();
      }
    },
  };
}

describe('the live region of a terminal', () => {
  it('the stated bound holds: under 64 KB a minute of drawing, however fast the text changes', () => {
    assert.ok(MAX_BYTES_PER_MINUTE < 64 * 1024, `${MAX_BYTES_PER_MINUTE} bytes a minute`);
    const { region, writes, step } = drivenRegion(400);
    let n = 0;
    // The worst text: two lines, longer than any terminal, new at every frame, multi-byte.
    region.show(() => {
      n += 1;
      const long = `\u001b[2m${`é${n} 日本 db-${n}`.repeat(100)}\u001b[22m`;
      return [long, long, long];
    });
    step(600); // one minute of frames
    region.stop();
    const total = bytes(writes);
    assert.ok(total <= MAX_BYTES_PER_MINUTE, `${total} bytes in a minute (bound ${MAX_BYTES_PER_MINUTE})`);
    for (const chunk of writes)
      assert.ok(Buffer.byteLength(chunk) <= MAX_FRAME_BYTES, 'one frame within its bound');
    const full = writes.filter((w) => w.includes('\u001b[?7l'));
    assert.ok(full.length <= 60_000 / REDRAW_MS + 1, `${full.length} full frames in a minute`);
    assert.ok(full.length >= 60_000 / REDRAW_MS - 1, 'changed text is drawn twice a second');
  });

  it('between redraws only the glyph moves; nothing changed, nothing but the glyph is written', () => {
    const { region, writes, step } = drivenRegion();
    region.show(() => ['Upgrade the operator 1s']);
    step();
    assert.equal(writes.length, 1);
    assert.match(visible(writes[0]!), /^\r⠙ Upgrade the operator 1s\r$/);
    step(50);
    assert.equal(writes.filter((w) => w.includes('Upgrade')).length, 1, 'the same text is drawn once');
    for (const glyph of writes.slice(1)) assert.ok(Buffer.byteLength(glyph) <= 14, JSON.stringify(glyph));
    region.stop();
  });

  it('a terminal that has not taken the last frame (Ctrl-S) gets no frame: dropped, then drawn anew', () => {
    const { region, writes, step, setDrained } = drivenRegion();
    let text = 'Wait for the rolling upgrade 1s';
    region.show(() => [text]);
    step();
    assert.equal(writes.length, 1);
    setDrained(false);
    text = 'Wait for the rolling upgrade 9s';
    step(100); // ten seconds paused
    assert.equal(writes.length, 1, 'nothing written while the terminal was behind');
    setDrained(true);
    step(5);
    assert.ok(
      writes.some((w) => visible(w).includes('upgrade 9s')),
      'the frame of now once it drains',
    );
    region.stop();
  });

  it('a line written meanwhile clears the region first; it is drawn again below it', () => {
    const t = createTestIo({ stderrIsTTY: true, env: { NO_COLOR: '1' } });
    const fake = fakeTerminal();
    fake.setWrite((chunk) => t.io.drawOnTerminal(chunk));
    let clock = 0;
    const region = new LiveRegion(fake.terminal, { color: false, unicode: true }, () => clock);
    t.io.attachLiveRegion(region);
    region.show(() => ['Wait for the rolling upgrade 3s', 'slowest: a 1s']);
    clock += FRAME_MS;
    region.tick();
    t.io.warn('the operator restarted');
    clock += REDRAW_MS;
    region.tick();
    region.stop();
    const screen = t.stderr();
    const warning = screen.indexOf('warning: the operator restarted');
    assert.ok(warning > 0);
    assert.equal(screen.slice(warning - 4, warning), '\r\u001b[J', 'cleared right before the warning');
    assert.ok(screen.lastIndexOf('Wait for the rolling upgrade') > warning, 'drawn again after it');
    assert.ok(screen.endsWith('\r\u001b[J\u001b[?25h'), 'the end clears the region and shows the cursor');
  });

  it('two lines at most, cut to the width with autowrap off; the cursor rests on the first', () => {
    const { region, writes, step } = drivenRegion(40, false);
    region.show(() => ['a'.repeat(300), 'b'.repeat(300), 'c']);
    step();
    const frame = writes[0]!;
    assert.ok(frame.includes('\u001b[?7l') && frame.endsWith('\u001b[?7h'));
    const lines = visible(frame).split('\n');
    assert.equal(lines.length, 2);
    for (const line of lines) assert.ok([...line.replace(/\r/g, '')].length <= 39, JSON.stringify(line));
    assert.ok(frame.includes('\u001b[1A\r'), 'back on the first line');
    region.stop();
  });

  it('a resize (SIGWINCH) redraws at the new width at the next frame', () => {
    const { region, writes, resize, step } = drivenRegion(120, false);
    region.show(() => ['x'.repeat(200)]);
    step(10);
    const before = writes.length;
    resize(30);
    step(5);
    const redrawn = writes.slice(before).filter((w) => w.includes('x'));
    assert.equal(redrawn.length, 1);
    assert.ok(visible(redrawn[0]!).replace(/\r/g, '').length <= 29);
    region.stop();
  });

  it('after stop nothing is drawn, whatever is asked', () => {
    const { region, writes, step } = drivenRegion();
    region.show(() => ['one']);
    step();
    region.stop();
    const after = writes.length;
    region.show(() => ['two']);
    step(10);
    region.suspend();
    assert.equal(writes.length, after);
    assert.ok(writes.at(-1)?.endsWith('\u001b[?25h'));
  });

  it('hiding the region (a step ended) clears it and stops the timer', () => {
    const { region, writes, step } = drivenRegion();
    region.show(() => ['one']);
    step();
    region.show(undefined);
    assert.equal(writes.at(-1), '\r\u001b[J');
    step(10);
    assert.equal(writes.at(-1), '\r\u001b[J', 'no glyph for a hidden region');
    region.stop();
  });

  it('cutLine: within the columns and bytes, colours kept, a reset after a coloured cut', () => {
    assert.equal(cutLine('short', 10, true), 'short');
    assert.equal(cutLine('abcdefghij', 5, false), 'abcd…');
    assert.equal(cutLine('\u001b[2mabcdefghij\u001b[22m', 5, true), '\u001b[2mabcd…\u001b[0m');
    const wide = cutLine('é'.repeat(500), 1000, false);
    assert.ok(Buffer.byteLength(wide) <= MAX_LINE_BYTES, `${Buffer.byteLength(wide)} bytes`);
  });
});
