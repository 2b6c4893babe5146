// `-o yaml`, loaded only when asked for. A static import: the bundled build turns a dynamic
// `import('yaml')` of this CommonJS package into a namespace with only `default` (scripts/bundle.mjs).
import { Document, Scalar, visit } from 'yaml';
import { escapeChar } from './safe-text.js';

/**
 * Characters that drive a terminal or reorder text (the set src/io/safe-text.ts escapes), a
 * newline included: a string holding one is written double-quoted, where YAML has escapes.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * A string that could end up as a GitHub workflow command (`::error::`, `::add-mask::`, the
 * older `##[error]`), or a line of one, once the runner trims the indentation.
 */
function needsQuoting(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const unsafe = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return unsafe || text.includes('::') || text.includes('##[');
}

/**
 * One value as a YAML document's body; no folding, so a long string stays one line. Text from
 * outside is as safe here as in the text and JSON outputs: a string with a control or bidi
 * character, a newline, `::` or `##[` is written double-quoted (one line, never a block at the
 * margin), its unsafe characters as `\u` escapes and `##[` as `#\x23[`, the same string to a
 * YAML reader but nothing a terminal or a GitHub runner acts on.
 */
export function toYaml(value: unknown): string {
  const document = new Document(value);
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && needsQuoting(node.value)) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  // Every raw unsafe character and `##[` left is inside a double-quoted scalar (made so above),
  // where these escapes are the same characters.
  return document
    .toString({ lineWidth: 0, doubleQuotedAsJSON: true })
    .replace(UNSAFE, (char) => (char === '\n' ? char : yamlEscape(char)))
    .replace(/##\[/g, '#\\x23[');
}

/** A YAML double-quoted escape: `\x1b`, `\u202e` (YAML has no `\r`-style name for every one). */
function yamlEscape(char: string): string {
  const shown = escapeChar(char);
  return shown.startsWith('\\x') || shown.startsWith('\\u')
    ? shown
    : `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
}
