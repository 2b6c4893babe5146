import type { Io } from './io.js';
import { type LiveFrame, LiveRegion, stderrTerminal } from './live-region.js';
import { oneLine } from './safe-text.js';

/** One NDJSON event of `ctl upgrade run -o json` (CLI.md). */
export type ProgressEventType =
  'step-start' | 'step-done' | 'step-skip' | 'progress' | 'warning' | 'error' | 'done';

export interface ProgressEvent {
  ts: string;
  type: ProgressEventType;
  step?: string;
  message: string;
  data?: Record<string, unknown>;
}

/**
 * Where the runner reports progress. Three renderers behind one interface: a spinner per step
 * on a terminal, timestamped lines in CI and pipes, NDJSON events with `-o json`.
 *
 * A message carries values from the cluster (names, operator messages), so each renderer makes
 * it safe before styling it: one line per event (newlines shown as `\n`) except a warning, which
 * ctl may write over several lines; the Io escapes every other control character.
 */
/**
 * A step working on many items at once (the databases step with `--max-parallel`) puts this in
 * each progress event's `data.fanOut`. A terminal shows it in place of the event's message;
 * plain lines and NDJSON still carry every event.
 */
export interface FanOutProgress {
  total: number;
  done: number;
  running: number;
  failed: number;
  waiting: number;
  /** The running items that started first, with their start time (ms since the epoch). */
  slowest: { name: string; since: number }[];
}

export interface ProgressReporter {
  emit(event: Omit<ProgressEvent, 'ts'>): void;
  /** Stops any animation (on exit or interruption) without printing anything more. */
  close(): void;
}

/**
 * The live lines of a terminal (src/io/live-region.ts): what to draw from the next frame on,
 * or nothing; `stop` clears them and gives the terminal back.
 */
export interface LiveDisplay {
  show(frame: LiveFrame | undefined): void;
  stop(): void;
}

/** Opens the terminal's live display; called once per run, only on a usable terminal. */
export type LiveDisplayFactory = () => LiveDisplay;

/** The terminal's size as the stream reports it (a pty may say 0 columns and 0 rows). */
export interface TerminalSize {
  columns?: number | undefined;
  rows?: number | undefined;
}

/**
 * A spinner redraws by clearing the lines it drew, counted from the width: a terminal that
 * reports 0 columns (`script`, some CI wrappers, `docker run -t`) made the spinner library
 * clear infinitely many lines (issue 28: 369 MB in 10 minutes). Such a terminal gets plain lines.
 */
export function isUsableTerminalSize(size: TerminalSize): boolean {
  const { columns, rows } = size;
  return (
    typeof columns === 'number' &&
    Number.isFinite(columns) &&
    columns >= MIN_COLUMNS &&
    typeof rows === 'number' &&
    Number.isFinite(rows) &&
    rows >= 1
  );
}

/** Narrower than this, a spinner line wraps on every redraw: plain lines read better. */
const MIN_COLUMNS = 20;

/** The real stderr's size; when it is no terminal the Io writes elsewhere (a test's stream). */
function stderrSize(): TerminalSize {
  if (!process.stderr.isTTY) return { columns: 80, rows: 24 };
  return { columns: process.stderr.columns, rows: process.stderr.rows };
}

export function createReporter(
  io: Io,
  liveDisplay?: LiveDisplayFactory,
  now: () => Date = () => new Date(),
  terminalSize: () => TerminalSize = stderrSize,
): ProgressReporter {
  // NDJSON on stdout for machines, and people's lines on stderr still (docs/ci.md: a CI log
  // keeps its progress with -o json; issue 28 found only empty ::group:: lines there).
  if (io.output === 'json') return new TeeReporter([new JsonReporter(io, now), new PlainReporter(io, now)]);
  if (io.canAnimate && liveDisplay && isUsableTerminalSize(terminalSize())) {
    return new SizeGuardedReporter(
      new SpinnerReporter(io, liveDisplay(), now),
      new PlainReporter(io, now),
      () => isUsableTerminalSize(terminalSize()),
    );
  }
  return new PlainReporter(io, now);
}

/**
 * Spinners while the terminal keeps a usable size; plain lines for good once it stops (a
 * resize to 0 columns mid-run). Checked on every event and every second in between.
 */
export class SizeGuardedReporter implements ProgressReporter {
  #current: ProgressReporter;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    spinners: ProgressReporter,
    private readonly plain: ProgressReporter,
    private readonly usable: () => boolean,
  ) {
    this.#current = spinners;
    this.#timer = setInterval(() => this.#check(), 1000);
    this.#timer.unref();
  }

  emit(event: Omit<ProgressEvent, 'ts'>): void {
    this.#check();
    this.#current.emit(event);
  }

  close(): void {
    this.#stopTimer();
    this.#current.close();
  }

  #check(): void {
    if (this.#current === this.plain || this.usable()) return;
    this.#current.close();
    this.#current = this.plain;
    this.#stopTimer();
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * The live region on stderr's terminal, through the Io: the Io clears it before each line it
 * writes, and it never draws after `stop`.
 */
export function terminalDisplay(io: Io): LiveDisplayFactory {
  return () => {
    const region = new LiveRegion(
      stderrTerminal(
        (chunk) => io.drawOnTerminal(chunk),
        () => io.terminalDrained(),
      ),
      { color: io.colorEnabled, unicode: io.unicode },
    );
    io.attachLiveRegion(region);
    return {
      show: (frame) => region.show(frame),
      stop: () => {
        region.stop();
        io.attachLiveRegion(undefined);
      },
    };
  };
}

export class JsonReporter implements ProgressReporter {
  constructor(
    private readonly io: Io,
    private readonly now: () => Date,
  ) {}

  emit(event: Omit<ProgressEvent, 'ts'>): void {
    this.io.json({ ts: this.now().toISOString(), ...event });
  }

  close(): void {}
}

/** Every event to each reporter, in order. */
export class TeeReporter implements ProgressReporter {
  constructor(readonly reporters: readonly ProgressReporter[]) {}

  emit(event: Omit<ProgressEvent, 'ts'>): void {
    for (const reporter of this.reporters) reporter.emit(event);
  }

  close(): void {
    for (const reporter of this.reporters) reporter.close();
  }
}

/** CI logs and pipes: one timestamped line per event, nothing that redraws. */
export class PlainReporter implements ProgressReporter {
  constructor(
    private readonly io: Io,
    private readonly now: () => Date,
  ) {}

  emit(event: Omit<ProgressEvent, 'ts'>): void {
    const time = this.now().toISOString().slice(11, 19);
    const where = event.step ? `[${oneLine(event.step)}] ` : '';
    const line = `${time} ${where}${oneLine(event.message)}`;
    if (event.type === 'warning') this.io.warn(`${where}${indentContinuation(event.message)}`);
    // The error itself, with its hint, is printed once at the end by main.
    else if (event.type === 'error') this.io.info(`${time} ${where}failed: ${firstLine(event.message)}`);
    else this.io.info(line);
  }

  close(): void {}
}

/**
 * A terminal: the running step on the live lines (a spinner, its title, its latest progress and
 * elapsed time), and one line that stays when it ends, saying what happened. Events only change
 * what the next frame shows: the drawing is the live region's, bounded whatever their number.
 */
export class SpinnerReporter implements ProgressReporter {
  #stepStart = 0;
  #title = '';
  #running = false;
  #detail = '';
  #fanOut: FanOutProgress | undefined;
  #closed = false;

  constructor(
    private readonly io: Io,
    private readonly display: LiveDisplay,
    private readonly now: () => Date,
  ) {}

  emit(event: Omit<ProgressEvent, 'ts'>): void {
    if (this.#closed) return;
    const { green, red, cyan, dim } = this.io.color;
    const marks = this.io.unicode ? UNICODE_SYMBOLS : ASCII_SYMBOLS;
    switch (event.type) {
      case 'step-start':
        this.#title = oneLine(event.message);
        this.#detail = '';
        this.#fanOut = undefined;
        this.#stepStart = this.now().getTime();
        this.#running = true;
        this.display.show((columns) => this.#lines(columns));
        break;
      case 'progress':
        // Many items at once: their counts, never one line each (a thousand databases).
        this.#fanOut = fanOutOf(event.data) ?? this.#fanOut;
        this.#detail = oneLine(event.message);
        break;
      case 'step-done':
        // The runner's message says what the step did (`Upgrade the operator: 7.8.2-6 running`).
        this.#end(`${green(marks.done)} ${oneLine(event.message)} ${dim(`(${this.#elapsed()})`)}`);
        break;
      case 'step-skip':
        if (this.#running) this.#end(`${cyan(marks.skip)} ${this.#title}: ${oneLine(event.message)}`);
        else this.io.info(`${dim('-')} ${oneLine(event.message)}`);
        break;
      case 'error':
        // Only the headline here: main prints the whole error and its hint once, at the end.
        if (this.#running) this.#end(`${red(marks.failed)} ${this.#title}: ${firstLine(event.message)}`);
        else this.io.info(`failed: ${firstLine(event.message)}`);
        break;
      case 'warning':
        // The Io clears the live lines first; the next frame draws them below the warning.
        this.io.warn(indentContinuation(event.message));
        break;
      case 'done':
        this.#end(undefined);
        this.io.info(oneLine(event.message));
        break;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#running = false;
    this.display.stop();
  }

  /** The step's line that stays; the live lines go first, so no frame of it is left behind. */
  #end(line: string | undefined): void {
    this.#running = false;
    this.display.show(undefined);
    if (line !== undefined) this.io.info(line);
  }

  /** The live lines of the running step, as the terminal gets them (escaped, redacted, coloured). */
  #lines(columns: number): string[] {
    const text = this.#fanOut ? this.#fanOutText(this.#fanOut, columns) : this.#text(columns);
    return text.map((line) => this.io.render(this.io.redactor.redact(line)));
  }

  #text(columns: number): string[] {
    const { dim } = this.io.color;
    // The time before the detail: a narrow terminal cuts the detail, never the time.
    const elapsed = this.#elapsed();
    const title = fitTitle(this.#title, columns, elapsed, this.#detail);
    const detail = this.#detail ? ` ${dim(this.#detail)}` : '';
    return [`${title} ${dim(elapsed)}${detail}`];
  }

  /**
   * Two lines at most, whatever the number of items: the counts, then the running items that
   * started first with how long they have run.
   */
  #fanOutText(f: FanOutProgress, columns: number): string[] {
    const { dim } = this.io.color;
    const counts = `${f.done}/${f.total} done, ${f.running} running, ${f.failed} failed, ${f.waiting} waiting`;
    const elapsed = this.#elapsed();
    const head = `${fitTitle(this.#title, columns, elapsed, counts)} ${dim(elapsed)} ${dim(counts)}`;
    if (f.slowest.length === 0) return [head];
    const now = this.now().getTime();
    const slowest = f.slowest.map((item) => `${oneLine(item.name)} ${formatDuration(now - item.since)}`);
    return [head, dim(`slowest: ${slowest.join(', ')}`)];
  }

  #elapsed(): string {
    return formatDuration(this.now().getTime() - this.#stepStart);
  }
}

/** A title is never cut shorter than this (with its `…`), nor its progress given more than DETAIL_COLUMNS. */
const MIN_TITLE_COLUMNS = 12;
const DETAIL_COLUMNS = 40;

/**
 * The step's title for a live line of `columns`, followed by ` <elapsed> <detail>`: whole when
 * they all fit, else cut (ending with `…`) so that the elapsed time and the start of the progress
 * are seen. The monitor step's title is 76 columns: on an 80-column terminal the line was cut
 * inside it, and the step that lasts longest showed neither its time nor how many pods were done.
 */
export function fitTitle(title: string, columns: number, elapsed: string, detail: string): string {
  const chars = [...title];
  const detailColumns = detail ? [...detail].length + 1 : 0;
  if (chars.length + 1 + elapsed.length + detailColumns <= columns) return title;
  // The widest elapsed time (`950ms`, `3m04s`) is kept free, so the cut stays put as time passes.
  const timeColumns = Math.max(elapsed.length, 5);
  const room = Math.max(
    MIN_TITLE_COLUMNS,
    columns - 1 - timeColumns - Math.min(detailColumns, DETAIL_COLUMNS),
  );
  return chars.length <= room ? title : `${chars.slice(0, room - 1).join('')}…`;
}

/** The marks of a step's last line, as log-symbols draws them (ASCII on the Linux console). */
const UNICODE_SYMBOLS = { done: '✔', skip: 'ℹ', failed: '✖' };
const ASCII_SYMBOLS = { done: 'v', skip: 'i', failed: 'x' };

/** The fan-out summary of a progress event's data, when it carries a well-formed one. */
function fanOutOf(data: Record<string, unknown> | undefined): FanOutProgress | undefined {
  const value = data?.fanOut as Partial<FanOutProgress> | undefined;
  if (!value || typeof value !== 'object') return undefined;
  const counts = [value.total, value.done, value.running, value.failed, value.waiting];
  if (!counts.every((n) => typeof n === 'number') || !Array.isArray(value.slowest)) return undefined;
  return value as FanOutProgress;
}

/**
 * A warning ctl wrote over several lines (commands to run, say): its other lines indented, so
 * that a line break hidden in a value it quotes can never start a line that looks like ctl's own
 * (each of those starts at the margin). Values should already be on one line (oneLine).
 */
function indentContinuation(text: string): string {
  return text.replace(/\n(?!$)/g, '\n  ');
}

/** The headline of an error, as one safe line (a lone `\r` in it is shown, not obeyed). */
function firstLine(text: string): string {
  return oneLine(text.split('\n', 1)[0] ?? '');
}

/** `950ms`, `12s`, `3m04s`, `1h02m`: short, for progress lines and summary tables. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
