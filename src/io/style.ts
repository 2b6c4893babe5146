import { randomBytes } from 'node:crypto';
import { terminalText } from './safe-text.js';

/**
 * ctl's own colours, kept apart from the text they colour. A style does not write an escape
 * sequence: it writes a marker that holds a random number chosen when ctl starts. The output edge
 * (Io) escapes every control character of the whole text, cluster values included, and only then
 * turns the markers into colour codes (or drops them when colour is off). Text from the cluster
 * cannot forge a marker, since it cannot know the number; so it cannot colour, clear or retitle
 * the terminal, while ctl's bold, dim and red keep working.
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
const marker = (code: number) => `\ue000${NONCE}${code}\ue001`;
const MARKER = new RegExp(`\\ue000${NONCE}(\\d+)\\ue001`, 'g');

/** The SGR codes chalk's level 1 writes for these styles. */
function style(open: number, close: number): (text: string) => string {
  const openMarker = marker(open);
  const closeMarker = marker(close);
  // As chalk does: a nested style that closes the same attribute re-opens the outer one.
  return (text) => `${openMarker}${text.split(closeMarker).join(closeMarker + openMarker)}${closeMarker}`;
}

/** The painter every layer uses for ctl's own styling; Io.render decides what it becomes. */
export const paint: Paint = {
  bold: style(1, 22),
  dim: style(2, 22),
  red: style(31, 39),
  green: style(32, 39),
  yellow: style(33, 39),
  cyan: style(36, 39),
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
    if (color) out += `\u001b[${match[1]}m`;
    last = match.index + match[0].length;
  }
  return out + terminalText(text.slice(last));
}
