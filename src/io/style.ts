import { randomBytes } from 'node:crypto';
import { Chalk } from 'chalk';
import { terminalText } from './safe-text.js';

/**
 * ctl's own colours, kept apart from the text they colour. A style does not write an escape
 * sequence: it writes a marker that holds a random number chosen when ctl starts. The output edge
 * (Io) escapes every control character of the whole text, cluster values included, and only then
 * turns the markers into colour codes (or drops them when colour is off). Text from the cluster
 * cannot forge a marker, since it cannot know the number; so it cannot colour, clear or retitle
 * the terminal, while ctl's bold, dim and red keep working. The sequences themselves are
 * chalk's.
 */

export interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** Private-use characters: printable, never controls, so no sanitizer touches them. */
const NONCE = randomBytes(8).toString('hex');
const marker = (index: number) => `\ue000${NONCE}${index}\ue001`;
const MARKER = new RegExp(`\\ue000${NONCE}(\\d+)\\ue001`, 'g');

/** The escape sequences behind the markers, as chalk writes them (basic 16 colours). */
const CODES: string[] = [];
const chalk = new Chalk({ level: 1 });

/** One marker per sequence: bold and dim close alike, so a nested close is found as chalk finds it. */
function codeIndex(sequence: string): number {
  const known = CODES.indexOf(sequence);
  return known >= 0 ? known : CODES.push(sequence) - 1;
}

function style(name: 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan'): (text: string) => string {
  const [open = '', close = ''] = chalk[name]('\u0000').split('\u0000');
  const openMarker = marker(codeIndex(open));
  const closeMarker = marker(codeIndex(close));
  // As chalk does: a nested style that closes the same attribute re-opens the outer one.
  return (text) => `${openMarker}${text.split(closeMarker).join(closeMarker + openMarker)}${closeMarker}`;
}

/** The painter every layer uses for ctl's own styling; Io.render decides what it becomes. */
export const paint: Paint = {
  bold: style('bold'),
  dim: style('dim'),
  red: style('red'),
  green: style('green'),
  yellow: style('yellow'),
  cyan: style('cyan'),
};

/** No styling at all (plain output, tests). */
export const noPaint: Paint = {
  bold: (t) => t,
  dim: (t) => t,
  red: (t) => t,
  green: (t) => t,
  yellow: (t) => t,
  cyan: (t) => t,
};

/**
 * Text for a terminal or log: every control character escaped except the newline, then ctl's
 * markers turned into SGR codes (color) or removed.
 */
export function renderStyled(text: string, color: boolean): string {
  let out = '';
  let last = 0;
  MARKER.lastIndex = 0;
  for (let match = MARKER.exec(text); match; match = MARKER.exec(text)) {
    out += terminalText(text.slice(last, match.index));
    if (color) out += CODES[Number(match[1])] ?? '';
    last = match.index + match[0].length;
  }
  return out + terminalText(text.slice(last));
}
