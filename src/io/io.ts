import { type LiveRegion } from './live-region.js';
import { CTL, renameProgram } from './program-name.js';
import { Redactor } from './redact.js';
import { terminalHasUnicode } from './terminal-unicode.js';
import { neutralizeWorkflowCommands, safeJson, terminalText } from './safe-text.js';
import { type Paint, paint, renderStyled } from './style.js';

export type OutputFormat = 'text' | 'json';

export interface WritableLike {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /**
   * The terminal has taken everything written so far (src/io/terminal-output.ts); a stream
   * without it always has.
   */
  drained?(): boolean;
}

export interface ReadableLike {
  isTTY?: boolean;
}

export interface IoOptions {
  stdout: WritableLike;
  stderr: WritableLike;
  stdin: ReadableLike;
  env: NodeJS.ProcessEnv;
  output?: OutputFormat;
  /** `-o yaml`: how to write a value as YAML (`output` is then json: the same data). */
  yaml?: ((value: unknown) => string) | undefined;
  /** `-o name` / `-o jsonpath=...`: the text to print for each document (`output` is json). */
  document?: ((value: unknown) => string) | undefined;
  verbose?: number;
  quiet?: boolean;
  /** `--no-color` given (commander sets color=false). */
  color?: boolean;
  /** How the person typed the program (src/io/program-name.ts): its mentions in text say so. */
  programName?: string | undefined;
}

/**
 * The one object through which ctl talks to the world (after gh's IOStreams):
 * stdout carries data (a token, JSON); everything meant for a person goes to stderr.
 *
 * It is also the output edge where text from the cluster is made safe (src/io/safe-text.ts):
 * every write escapes control characters except the newline, turns ctl's own style markers
 * (`color`) into colour codes, and on GitHub Actions keeps any line from being read as a
 * workflow command; JSON goes out with the terminal-driving characters as `\u` escapes.
 */
export class Io {
  readonly output: OutputFormat;
  readonly verbose: number;
  readonly quiet: boolean;
  readonly isStderrTTY: boolean;
  readonly isStdoutTTY: boolean;
  readonly isStdinTTY: boolean;
  /** Running in a CI system (CI, GITHUB_ACTIONS, GITLAB_CI ...). */
  readonly isCI: boolean;
  readonly isGitHubActions: boolean;
  readonly colorEnabled: boolean;
  /** The terminal draws Unicode marks and spinners (src/io/terminal-unicode.ts); else ASCII. */
  readonly unicode: boolean;
  /**
   * Colour on stdout as well: only when stdout is a terminal too (or FORCE_COLOR asks), so a plan
   * or a run's summary redirected to a file (`> plan.txt`) holds no escape codes.
   */
  readonly #stdoutColor: boolean;
  /** ctl's own styling: markers that the edge turns into colours, or drops (src/io/style.ts). */
  readonly color: Paint = paint;
  readonly redactor = new Redactor();
  readonly #stdout: WritableLike;
  readonly #stderr: WritableLike;

  constructor(options: IoOptions) {
    const env = options.env;
    this.#stdout = options.stdout;
    this.#stderr = options.stderr;
    this.output = options.output ?? 'text';
    this.verbose = options.verbose ?? 0;
    this.quiet = options.quiet ?? false;
    this.isStderrTTY = options.stderr.isTTY === true;
    this.isStdoutTTY = options.stdout.isTTY === true;
    this.isStdinTTY = options.stdin.isTTY === true;
    this.isGitHubActions = env.GITHUB_ACTIONS === 'true';
    this.isCI = Boolean(env.CI && env.CI !== 'false') || this.isGitHubActions || Boolean(env.GITLAB_CI);
    this.colorEnabled = decideColor(options.color, env, this.isStderrTTY);
    this.#stdoutColor = this.colorEnabled && (this.isStdoutTTY || colorForced(env));
    this.#dumbTerminal = env.TERM === 'dumb';
    this.unicode = terminalHasUnicode(env);
    this.#toYaml = options.yaml;
    this.#document = options.document;
    this.programName = options.programName ?? CTL;
  }

  /**
   * `ctl`, or `kubectl rec` when run as the kubectl plugin: text for people names the program
   * so (hints, Next lines); JSON keeps `ctl` (its shapes are a contract).
   */
  readonly programName: string;

  /** `-o name` / `-o jsonpath=...` (src/io/document-printers.ts). */
  readonly #document: ((value: unknown) => string) | undefined;

  readonly #dumbTerminal: boolean;
  /**
   * The progress lines drawn at the bottom of the terminal (src/io/live-region.ts), if any:
   * cleared before every other write, so a line never lands inside them.
   */
  #live: LiveRegion | undefined;
  /** `-o yaml`: the JSON documents and events written as YAML documents instead (`yaml`'s stringify). */
  readonly #toYaml: ((value: unknown) => string) | undefined;

  /**
   * Gives the terminal's bottom lines to a live region until it stops; every line the Io writes
   * meanwhile clears it first (the region draws itself again below).
   */
  attachLiveRegion(region: LiveRegion | undefined): void {
    this.#live = region;
  }

  /** A raw write to stderr's terminal (the live region's own drawing): no escaping, no clearing. */
  drawOnTerminal(chunk: string): void {
    this.#stderr.write(chunk);
  }

  /**
   * stderr's terminal has taken everything written to it: a frame may be drawn. A paused
   * terminal (Ctrl-S) is not, and its frames are dropped rather than queued.
   */
  terminalDrained(): boolean {
    return this.#stderr.drained?.() ?? true;
  }

  /** A prompt may be shown: stdin and stderr are terminals. */
  get canPrompt(): boolean {
    return this.isStdinTTY && this.isStderrTTY;
  }

  /** Spinners only on an interactive terminal that is not CI and not json mode. */
  get canAnimate(): boolean {
    return this.isStderrTTY && !this.isCI && this.output === 'text' && !this.quiet && !this.#dumbTerminal;
  }

  /**
   * Data for stdout (the caller decides what is data), made safe for a terminal and redacted
   * like stderr: a plan's check line can quote a server's answer, and a server may echo the
   * credentials it was sent (issue 28).
   */
  data(text: string): void {
    this.#writeData(this.redactor.redact(text));
  }

  /**
   * The one secret a command was asked to print (`ctl auth token`'s token): made safe for a
   * terminal like any data, and the only stdout that is not redacted.
   */
  requestedSecret(text: string): void {
    this.#writeData(text);
  }

  #writeData(text: string): void {
    const safe = this.render(text, this.#stdoutColor);
    this.#clearLiveFor(this.#stdout);
    this.#stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
  }

  /** One JSON document or NDJSON event on stdout: one line, whatever the strings in it hold; redacted. */
  json(value: unknown): void {
    this.#writeJson(value, (text) => this.redactor.redact(text));
  }

  /** `ctl auth token -o json`: the document that carries the requested token, not redacted. */
  jsonWithRequestedSecret(value: unknown): void {
    this.#writeJson(value, (text) => text);
  }

  #writeJson(value: unknown, redact: (text: string) => string): void {
    if (this.#document) {
      // The redacted data (its JSON form stays valid JSON), printed as asked, made safe as text.
      const text = this.#document(JSON.parse(redact(safeJson(value))));
      if (text !== '') this.#stdout.write(this.render(text, this.#stdoutColor));
      return;
    }
    if (this.#toYaml) {
      // The same data as -o json, made safe the same way, then written as one YAML document.
      this.#clearLiveFor(this.#stdout);
      this.#stdout.write(`---\n${redact(this.#toYaml(JSON.parse(safeJson(value))))}`);
      return;
    }
    // Redacted in its JSON form: the redactor knows each secret JSON-escaped, and its placeholder
    // holds no quote or backslash, so the line stays valid JSON.
    const text = redact(safeJson(value));
    // `#` only occurs inside JSON strings, where `\u005b` is the same `[`.
    this.#clearLiveFor(this.#stdout);
    this.#stdout.write(`${this.isGitHubActions ? text.replace(/##\[/g, '##\\u005b') : text}\n`);
  }

  /**
   * Text as it may reach the terminal or log: controls escaped but newlines, ctl's styles as
   * colours (or nothing), and on GitHub Actions no line that the runner would obey.
   */
  render(text: string, color = this.colorEnabled): string {
    const safe = renameProgram(renderStyled(text, color), this.programName);
    return this.isGitHubActions ? neutralizeWorkflowCommands(safe) : safe;
  }

  /** A workflow command ctl itself writes (src/io/github.ts escapes its data): one line. */
  workflowCommand(line: string): void {
    const text = terminalText(this.redactor.redact(line.replace(/\n$/, ''))).replace(/\n/g, '%0A');
    this.#live?.suspend();
    this.#stderr.write(`${text}\n`);
  }

  /**
   * Text that has already passed another Io's edge (a fleet member's, src/commands/fleet.ts):
   * escaped, redacted and with its colours, so stdout is written as is; stderr is redacted again.
   */
  passThrough(stream: 'stdout' | 'stderr', text: string): void {
    this.#clearLiveFor(stream === 'stdout' ? this.#stdout : this.#stderr);
    if (stream === 'stdout') this.#stdout.write(text);
    else this.#stderr.write(this.redactor.redact(text));
  }

  /** `hint: ...`, dimmed, silent with --quiet. */
  hint(text: string): void {
    this.info(this.color.dim(`hint: ${text}`));
  }

  /** A line for people on stderr; silent with --quiet. */
  info(message: string): void {
    if (!this.quiet) this.#writeErr(message);
  }

  warn(message: string): void {
    if (!this.quiet) this.#writeErr(`${this.color.yellow('warning:')} ${message}`);
  }

  /** Errors are shown even with --quiet. */
  error(message: string): void {
    this.#writeErr(`${this.color.red('error:')} ${message}`);
  }

  /** Diagnostics shown from -v (level 1: each call) or -vv (level 2: bodies). Always redacted. */
  debug(level: 1 | 2, message: string): void {
    if (this.verbose >= level) this.#writeErr(this.color.dim(message));
  }

  /** Raw text to stderr (already formatted: tables, summaries), still redacted. */
  stderrWrite(text: string): void {
    this.#live?.suspend();
    this.#stderr.write(this.render(this.redactor.redact(text)));
  }

  #writeErr(message: string): void {
    const text = this.render(this.redactor.redact(message));
    this.#live?.suspend();
    this.#stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** stderr's live region shares the screen with stdout when stdout is a terminal too. */
  #clearLiveFor(stream: WritableLike): void {
    if (stream === this.#stderr || stream.isTTY === true) this.#live?.suspend();
  }
}

function decideColor(flag: boolean | undefined, env: NodeJS.ProcessEnv, stderrIsTTY: boolean): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return colorForced(env);
  // A terminal that says it understands no escape sequences (Emacs shells, some CI logs).
  if (env.TERM === 'dumb') return false;
  return stderrIsTTY;
}

function colorForced(env: NodeJS.ProcessEnv): boolean {
  return env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
}
