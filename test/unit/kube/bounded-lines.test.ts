import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedLineSplitter } from '../../../src/kube/bounded-lines.js';

/** The lines a splitter of `max` bytes hands over for `chunks`, and whether it read them all. */
function split(max: number, chunks: (string | Buffer)[]): { lines: string[]; ok: boolean; tooLong: boolean } {
  const lines: string[] = [];
  const splitter = new BoundedLineSplitter(max, (line) => lines.push(line));
  let ok = true;
  for (const chunk of chunks) {
    ok = splitter.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    if (!ok) break;
  }
  if (ok) ok = splitter.end();
  return { lines, ok, tooLong: splitter.tooLong };
}

describe('kube/bounded-lines', () => {
  it('splits lines, one chunk or many lines a chunk', () => {
    assert.deepEqual(split(100, ['a\nbb\nccc\n']), { lines: ['a', 'bb', 'ccc'], ok: true, tooLong: false });
  });

  it('joins a line split across chunks', () => {
    assert.deepEqual(split(100, ['{"ty', 'pe":"AD', 'DED"}\n{"x"', ':1}\n']).lines, [
      '{"type":"ADDED"}',
      '{"x":1}',
    ]);
  });

  it('reads a character whose bytes are split across chunks as one character', () => {
    const bytes = Buffer.from('ré€😀\n', 'utf8');
    // Every cut of the line into two chunks, each in the middle of some character at least once.
    for (let cut = 1; cut < bytes.length; cut++) {
      assert.deepEqual(
        split(100, [bytes.subarray(0, cut), bytes.subarray(cut)]).lines,
        ['ré€😀'],
        `cut ${cut}`,
      );
    }
    // And a byte a chunk.
    assert.deepEqual(
      split(
        100,
        [...bytes].map((byte) => Buffer.from([byte])),
      ).lines,
      ['ré€😀'],
    );
  });

  it('drops the CR of a CRLF, also when the CR and the LF come in different chunks', () => {
    assert.deepEqual(split(100, ['a\r\nb\r', '\nc\r\n']).lines, ['a', 'b', 'c']);
  });

  it('hands over the last line without a line break at the end', () => {
    assert.deepEqual(split(100, ['a\nlast']), { lines: ['a', 'last'], ok: true, tooLong: false });
  });

  it('skips empty lines', () => {
    assert.deepEqual(split(100, ['\n\na\n\r\n']).lines, ['a']);
  });

  it('reads a line exactly at the bound, with LF or CRLF, whole or in pieces', () => {
    const line = 'x'.repeat(16);
    assert.deepEqual(split(16, [`${line}\n`]), { lines: [line], ok: true, tooLong: false });
    assert.deepEqual(split(16, [`${line}\r\n`]), { lines: [line], ok: true, tooLong: false });
    assert.deepEqual(split(16, [line.slice(0, 5), line.slice(5), '\r', '\n']).lines, [line]);
    assert.deepEqual(split(16, [line]).lines, [line]); // the last one, at the end
    // The bound counts bytes: 8 two-byte characters are 16.
    assert.deepEqual(split(16, ['éééééééé\n']).lines, ['éééééééé']);
  });

  it('refuses a line one byte past the bound, and reads nothing after it', () => {
    const over = 'x'.repeat(17);
    assert.deepEqual(split(16, [`a\n${over}\nb\n`]), { lines: ['a'], ok: false, tooLong: true });
    assert.deepEqual(split(16, [`${over}\r\n`]), { lines: [], ok: false, tooLong: true });
    assert.deepEqual(split(16, [over]), { lines: [], ok: false, tooLong: true }); // at the end
    assert.deepEqual(split(16, ['ééééééééé\n']), { lines: [], ok: false, tooLong: true }); // 18 bytes
    // In pieces: refused as soon as what it holds cannot be a line within the bound, before its end.
    const lines: string[] = [];
    const splitter = new BoundedLineSplitter(16, (line) => lines.push(line));
    assert.equal(splitter.push(Buffer.from('x'.repeat(10))), true);
    assert.equal(splitter.push(Buffer.from('x'.repeat(7))), true); // 17: may still be 16 and a CR
    assert.equal(splitter.push(Buffer.from('x')), false); // 18: cannot
    assert.equal(splitter.tooLong, true);
    assert.equal(splitter.push(Buffer.from('\nshort\n')), false);
    assert.equal(splitter.end(), false);
    assert.deepEqual(lines, []);
  });

  it('holds no more than the bound of a line that never ends', () => {
    // readline holds a line of any size; here the line stops at the chunk that passes the bound.
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const splitter = new BoundedLineSplitter(1024 * 1024, () => assert.fail('no line ends'));
    let pushed = 0;
    while (splitter.push(chunk)) pushed += 1;
    assert.equal(pushed, 16, 'the 17th chunk passes 1 MiB');
  });
});
