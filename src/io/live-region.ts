/**
 * The few lines at the bottom of a terminal that show what a run is doing now (a spinner, the
 * step, its latest progress), redrawn in place. Issue 34: the spinner library before this
 * redrew its whole frame every 80 ms, and each spinner left a hook on stderr behind it, so each
 * redraw cleared more than the last (113, then 227 ... 25,442 cursor moves per redraw); by the
 * second hop of a run the redraws took all the CPU, the step never moved, and the terminal
 * received 0.7 MB a second.
 *
 * Here drawing is bounded by construction:
 * - Nothing draws when asked: `show` only says what to draw, a timer draws (FRAME_MS), so a
 *   step's work never waits on the terminal, and a thousand progress events cost one frame.
 * - A tick finds the terminal behind (Ctrl-S, src/io/terminal-output.ts): no frame; the writes
 *   do not block, and the frames a paused terminal did not take are dropped, never queued.
 * - A frame that changed text is drawn at most every REDRAW_MS; between those only the spinner's
 *   glyph is written (a few bytes). A frame is at most MAX_LINES lines of at most
 *   MAX_LINE_BYTES bytes of text each, whatever the terminal's width, so the drawing is at most
 *   MAX_BYTES_PER_MINUTE (under 64 KB; docs/upgrade-run.md), plus the
 *   lines that stay (each clears the region first: a few bytes more).
 * - The cursor rests at the first column of the region's first line, hidden. Clearing is then
 *   `\r` and erase-below, whatever the terminal did to the lines since (a narrower terminal that
 *   re-wraps them, SIGWINCH), and a line that stays is written where the region was.
 * - Lines are cut to the width (one column spare) and drawn with autowrap off, so a line never
 *   wraps and the region's height is always known.
 * - The Io clears the region before every line it writes (src/io/io.ts), so warnings and logs
 *   written between frames land above it, never through it.
 * - `stop` clears the region and shows the cursor; so does the process's exit, however it comes.
 */

/** Where and how big: the terminal behind stderr (columns may be 0 or undefined on a pty). */
export interface LiveTerminal {
  write(chunk: string): unknown;
  /**
   * The terminal has taken what was written before (src/io/terminal-output.ts). A terminal that
   * has not (Ctrl-S, a paused pane) gets no frame: it is dropped, never queued.
   */
  drained(): boolean;
  columns(): number | undefined;
  /** Calls `listener` when the terminal is resized (SIGWINCH); returns how to stop listening. */
  onResize(listener: () => void): () => void;
}

/** The spinner's timer tick: the glyph moves ten times a second. */
export const FRAME_MS = 100;
/** Text that changed is redrawn at most twice a second (elapsed seconds, fan-out counts). */
export const REDRAW_MS = 500;
export const MAX_LINES = 2;
/** The text of one line, in bytes (a Kubernetes name is ASCII): longer is cut with `…`. */
export const MAX_LINE_BYTES = 180;
/** Below this many columns a line is still drawn cut to 80 (the reporter falls back to plain lines). */
const FALLBACK_COLUMNS = 80;

const ESC = '\u001b[';
const HIDE_CURSOR = `${ESC}?25l`;
const SHOW_CURSOR = `${ESC}?25h`;
const AUTOWRAP_OFF = `${ESC}?7l`;
const AUTOWRAP_ON = `${ESC}?7h`;
const ERASE_LINE_END = `${ESC}K`;
const ERASE_BELOW = `${ESC}J`;
const RESET = `${ESC}0m`;

/** What one spinner glyph costs at most: colour, three bytes of braille, colour off, `\r`. */
const GLYPH_BYTES = 5 + 3 + 5 + 1;
/** Controls of a full frame: hide, autowrap off/on, erases, newlines, the move up. */
const FRAME_CONTROL_BYTES = 6 + 5 + 5 + 1 + MAX_LINES * (3 + 1) + 3 + 6 + 1;
/** Styling inside one line (a few SGR codes, the reset after a cut). */
const LINE_STYLE_BYTES = 24;
/** The largest full frame. */
export const MAX_FRAME_BYTES =
  FRAME_CONTROL_BYTES + MAX_LINES * (MAX_LINE_BYTES + LINE_STYLE_BYTES) + GLYPH_BYTES;
/**
 * The most a live region writes in a minute: a full frame every REDRAW_MS (one more at the
 * edge of the minute) and a glyph on every tick. Under 64 KB (docs/upgrade-run.md states it; a unit
 * test holds the region to it).
 */
const FULL_PER_MINUTE = 60_000 / REDRAW_MS + 1;
export const MAX_BYTES_PER_MINUTE = FULL_PER_MINUTE * MAX_FRAME_BYTES + (60_000 / FRAME_MS) * GLYPH_BYTES;

export interface LiveRegionOptions {
  /** Colour the glyph (NO_COLOR, --no-color: not). */
  color: boolean;
  /** Braille frames, or `-\|/` on a terminal without them (the Linux console). */
  unicode: boolean;
}

const UNICODE_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const ASCII_FRAMES = ['-', '\\', '|', '/'];

/**
 * The lines to draw, asked for at each frame (so an elapsed time moves without events), given
 * the columns a line has after the spinner: longer lines are cut at their end, so a frame that
 * knows which of its parts matter most fits them first.
 */
export type LiveFrame = (columns: number) => readonly string[];

export class LiveRegion {
  #frame: LiveFrame | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The lines on the screen now (empty: nothing is drawn). */
  #drawn: readonly string[] = [];
  #lastFullAt = Number.NEGATIVE_INFINITY;
  #glyph = 0;
  #resized = false;
  #cursorHidden = false;
  #stopped = false;
  readonly #frames: readonly string[];
  readonly #stopListening: () => void;
  readonly #restoreOnExit = (): void => this.#showCursor();

  constructor(
    private readonly terminal: LiveTerminal,
    private readonly options: LiveRegionOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.#frames = options.unicode ? UNICODE_FRAMES : ASCII_FRAMES;
    this.#stopListening = terminal.onResize(() => {
      this.#resized = true;
    });
  }

  /** What to draw from the next frame on; undefined clears the region and stops the timer. */
  show(frame: LiveFrame | undefined): void {
    if (this.#stopped) return;
    this.#frame = frame;
    if (!frame) {
      this.suspend();
      this.#stopTimer();
      return;
    }
    if (!this.#timer) {
      this.#timer = setInterval(() => this.tick(), FRAME_MS);
      // Drawing never keeps a finished run alive.
      this.#timer.unref();
    }
  }

  /**
   * Clears the region (the cursor goes back to where it began) so that a line can be written
   * there; the next frame draws it again below that line.
   */
  suspend(): void {
    if (this.#drawn.length === 0) return;
    this.#drawn = [];
    this.terminal.write(`\r${ERASE_BELOW}`);
  }

  /** Clears the region, shows the cursor, and never draws again. */
  stop(): void {
    if (this.#stopped) return;
    this.show(undefined);
    this.#stopped = true;
    this.#stopListening();
    this.#showCursor();
  }

  /** One timer tick (exported for tests with mocked timers): the glyph, or the whole frame. */
  tick(): void {
    if (!this.#frame || this.#stopped || !this.terminal.drained()) return;
    this.#glyph = (this.#glyph + 1) % this.#frames.length;
    const now = this.now();
    const width = usableColumns(this.terminal.columns());
    const lines = this.#frame(width - 3)
      .slice(0, MAX_LINES)
      .map((line) => cutLine(line, width - 3, this.options.color));
    const changed =
      this.#resized ||
      lines.length !== this.#drawn.length ||
      lines.some((line, i) => line !== this.#drawn[i]);
    if (changed && now - this.#lastFullAt >= REDRAW_MS) {
      this.#drawFull(lines);
      this.#lastFullAt = now;
      this.#resized = false;
    } else if (this.#drawn.length > 0) {
      // Only the glyph moves: the cursor rests on it.
      this.terminal.write(`${this.#glyphText()}\r`);
    }
  }

  #drawFull(lines: readonly string[]): void {
    if (lines.length === 0) {
      this.suspend();
      return;
    }
    let out = '';
    if (!this.#cursorHidden) {
      out += HIDE_CURSOR;
      this.#cursorHidden = true;
      process.once('exit', this.#restoreOnExit);
    }
    const body = lines.map(
      (line, i) => `${i === 0 ? `${this.#glyphText()} ` : '  '}${line}${ERASE_LINE_END}`,
    );
    out += `${AUTOWRAP_OFF}\r${body.join('\n')}${ERASE_BELOW}`;
    if (lines.length > 1) out += `${ESC}${lines.length - 1}A`;
    out += `\r${AUTOWRAP_ON}`;
    this.#drawn = lines;
    this.terminal.write(out);
  }

  #glyphText(): string {
    const glyph = this.#frames[this.#glyph] ?? '-';
    return this.options.color ? `${ESC}36m${glyph}${ESC}39m` : glyph;
  }

  #showCursor(): void {
    process.off('exit', this.#restoreOnExit);
    if (!this.#cursorHidden) return;
    this.#cursorHidden = false;
    this.terminal.write(SHOW_CURSOR);
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

function usableColumns(columns: number | undefined): number {
  return typeof columns === 'number' && Number.isFinite(columns) && columns >= 20
    ? columns
    : FALLBACK_COLUMNS;
}

// The only escape sequences in a rendered line are ctl's own colours (Io.render escapes the rest).
const SGR = /^\u001b\[[0-9;]*m/;

/**
 * A rendered line cut to `maxChars` characters and MAX_LINE_BYTES bytes of text (colour codes
 * not counted); a cut line ends with `…` and, if it was coloured, a reset.
 */
export function cutLine(line: string, maxChars: number, color: boolean): string {
  const tokens: { text: string; char: boolean }[] = [];
  for (let index = 0; index < line.length;) {
    const sgr = line[index] === '\u001b' ? SGR.exec(line.slice(index)) : null;
    const text = sgr ? sgr[0] : String.fromCodePoint(line.codePointAt(index) ?? 0x3f);
    tokens.push({ text, char: !sgr });
    index += text.length;
  }
  const chars = tokens.filter((t) => t.char);
  const bytes = chars.reduce((sum, t) => sum + Buffer.byteLength(t.text), 0);
  if (chars.length <= maxChars && bytes <= MAX_LINE_BYTES) return line;
  let out = '';
  let shown = 0;
  let used = 0;
  let styled = false;
  for (const token of tokens) {
    if (!token.char) {
      out += token.text;
      styled = true;
      continue;
    }
    const size = Buffer.byteLength(token.text);
    // Room for the `…` (one column, three bytes).
    if (shown + 1 > maxChars - 1 || used + size > MAX_LINE_BYTES - 3) break;
    out += token.text;
    shown += 1;
    used += size;
  }
  return `${out}…${styled && color ? RESET : ''}`;
}

/** The terminal behind process.stderr, as a LiveRegion sees it. */
export function stderrTerminal(write: (chunk: string) => unknown, drained: () => boolean): LiveTerminal {
  return {
    write,
    drained,
    columns: () => process.stderr.columns,
    onResize: (listener) => {
      process.stderr.on('resize', listener);
      return () => process.stderr.off('resize', listener);
    },
  };
}
