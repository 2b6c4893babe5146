/**
 * A byte stream split into lines, holding at most a bound of one line: the reader of a watch
 * stream (src/kube/bounded-watch.ts). node:readline, which client-node's Watch uses, holds a line
 * until its end comes, whatever its size: a stream that never sends one grows the reader until
 * the process dies.
 *
 * Lines end at LF; a CR before it is dropped (CRLF), as readline does. The bytes of a line are
 * kept as they arrive and decoded once it is whole, so a character split between two chunks is
 * read as one. A line's bound counts its bytes without the line break.
 */
export class BoundedLineSplitter {
  readonly #maxBytes: number;
  readonly #onLine: (line: string) => void;
  /** The start of the current line, as pieces of the chunks it came in. */
  #pieces: Buffer[] = [];
  #held = 0;
  #tooLong = false;

  /** `onLine` gets each non-empty line, in order; a line longer than `maxBytes` ends the reading. */
  constructor(maxBytes: number, onLine: (line: string) => void) {
    this.#maxBytes = maxBytes;
    this.#onLine = onLine;
  }

  /** Whether a line passed the bound: nothing more is read or held. */
  get tooLong(): boolean {
    return this.#tooLong;
  }

  /** Reads a chunk; false once a line has passed the bound. */
  push(chunk: Buffer): boolean {
    if (this.#tooLong) return false;
    let start = 0;
    for (;;) {
      const lineBreak = chunk.indexOf(0x0a, start);
      if (lineBreak < 0) break;
      if (!this.#complete(chunk.subarray(start, lineBreak))) return false;
      start = lineBreak + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      // One byte more than the bound may still be a CR before the line break.
      if (this.#held + rest.length > this.#maxBytes + 1) return this.#fail();
      this.#pieces.push(rest);
      this.#held += rest.length;
    }
    return true;
  }

  /** The end of the stream: a last line without a line break is a line too. */
  end(): boolean {
    if (this.#tooLong) return false;
    return this.#held === 0 || this.#complete(Buffer.alloc(0));
  }

  /** The current line ends with `last`: hands it over, or fails past the bound. */
  #complete(last: Buffer): boolean {
    if (this.#held + last.length > this.#maxBytes + 1) return this.#fail();
    const bytes = this.#held === 0 ? last : Buffer.concat([...this.#pieces, last]);
    this.#pieces = [];
    this.#held = 0;
    const length = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    if (length > this.#maxBytes) return this.#fail();
    if (length > 0) this.#onLine(bytes.toString('utf8', 0, length));
    return true;
  }

  #fail(): false {
    this.#tooLong = true;
    this.#pieces = [];
    this.#held = 0;
    return false;
  }
}
