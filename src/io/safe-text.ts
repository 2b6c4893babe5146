/**
 * Text that ctl did not write (names, messages and logs from the cluster, the management API,
 * Kubernetes objects and events, helm, a scenario file) made safe for where it goes. Such text is
 * set by whoever created the object, not by the person running ctl, so it must never drive the
 * terminal (escape sequences, carriage returns, bidi overrides), start a GitHub workflow command,
 * break a Markdown table, or forge a line that looks like ctl's own.
 *
 * Unsafe characters are shown escaped (`\x1b`, `\r`, `\u202e`), never dropped: what the cluster
 * holds stays readable, and a reader sees that something odd is there.
 */

/**
 * C0 controls, DEL, C1 controls (U+009B is a one-character CSI on some terminals), the marks and
 * overrides that reorder text (bidi), the line and paragraph separators, and a BOM.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;
const UNSAFE_KEEP_NEWLINE =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\x1b`, `\n`, `\u202e`: how one unsafe character is shown. */
export function escapeChar(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** True when `text` holds a character that could drive a terminal (newlines allowed or not). */
export function hasUnsafeChar(text: string, allowNewline = false): boolean {
  const pattern = allowNewline ? UNSAFE_KEEP_NEWLINE : UNSAFE;
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}

/** A value on one line of a terminal or log: every control character, newlines too, escaped. */
export function oneLine(value: unknown): string {
  return String(value).replace(UNSAFE, escapeChar);
}

/**
 * A block of someone else's text quoted in a message of ctl's (helm's stderr, say): each line
 * kept and escaped, the lines after the first indented, so none sits at the margin where ctl's
 * own lines start.
 */
export function quotedLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => oneLine(line))
    .join('\n  ');
}

/**
 * Text that may span lines (a message ctl composed, already with its values in it): every
 * control character escaped but the newline. The last line of defence at the output edge; the
 * values inside should already have gone through {@link oneLine} so that they forge no line.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE_KEEP_NEWLINE, escapeChar);
}

/**
 * The data of a GitHub workflow command (`::error::<data>`): the runner's own escaping (`%25`,
 * `%0D`, `%0A`, which it turns back into newlines in the annotation), then the other controls
 * shown escaped.
 */
export function workflowData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(UNSAFE, escapeChar);
}

/** A property of a workflow command (`title=...`): `:` and `,` would end it. */
export function workflowProperty(value: string): string {
  return workflowData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * Log text on a GitHub Actions runner, which reads stdout and stderr for workflow commands: a line
 * that starts (after spaces) with `::`, or holds `##[` (the older form), would be obeyed. A
 * backslash in front keeps it a plain line. ANSI colour codes ctl put in front are skipped over
 * too, since they are invisible.
 */
export function neutralizeWorkflowCommands(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/^((?:\s|\u001b\[[0-9;]*m)*)::/, '$1\\::').replace(/##\[/g, '##\\['))
    .join('\n');
}

/**
 * A value in a Markdown table cell or inside a line ctl writes (GitHub's job summary): one line,
 * and nothing that makes a link, an image, HTML or an entity, code, emphasis, a heading or a new
 * cell. Backslash escapes are CommonMark's, so the text reads as it was.
 */
export function markdownText(value: unknown): string {
  return oneLine(value).replace(/[\\`*_{}[\]()<>#+!|~&]/g, (c) => `\\${c}`);
}

/**
 * JSON.stringify, with the characters it leaves raw but that still drive a terminal (DEL, C1,
 * bidi, U+2028/9) written as `\u` escapes: the same JSON value, so nothing reading it sees a
 * difference, and `cat` of the file or of NDJSON output is safe.
 */
export function safeJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space);
  // JSON.stringify(undefined) is undefined; keep the type honest for callers.
  if (text === undefined) return 'null';
  return text.replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g,
    (c) => {
      return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    },
  );
}
