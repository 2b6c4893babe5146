/**
 * The availability table of the run's summary (text) and of the GitHub step summary (Markdown):
 * the databases with an outage first (longest first), then those not measured, then a count of
 * the rest; the JSON result and `--report` list every database.
 */

import { markdownText, oneLine } from '../../io/safe-text.js';
import type { AvailabilityEntry } from './ledger.js';
import { compareText } from '../../io/text-order.js';

const MAX_ROWS = 20;

interface Row {
  database: string;
  availability: string;
  longest: string;
  outages: string;
  pods: string;
  note: string;
}

function rowsOf(entries: readonly AvailabilityEntry[]): { rows: Row[]; restNote: string } {
  const group = (entry: AvailabilityEntry) => (entry.outages.length > 0 ? 0 : entry.measured ? 2 : 1);
  // Outages first (longest first), then the databases not measured, then the quiet ones.
  const sorted = [...entries].sort(
    (a, b) =>
      group(a) - group(b) || b.longestOutageMs - a.longestOutageMs || compareText(nameOf(a), nameOf(b)),
  );
  const shown = sorted.slice(0, MAX_ROWS);
  const rest = sorted.slice(MAX_ROWS);
  const restNote =
    rest.length === 0
      ? ''
      : rest.every((entry) => group(entry) === 2)
        ? `${rest.length} more database${rest.length === 1 ? '' : 's'}, each available throughout`
        : `${rest.length} more database${rest.length === 1 ? '' : 's'} (the JSON result lists each)`;
  const rows = shown.map((entry) => ({
    database: nameOf(entry),
    availability:
      entry.measured && entry.availability !== null ? percent(entry.availability) : 'not measured',
    longest: entry.measured ? seconds(entry.longestOutageMs) : '-',
    outages: String(entry.outages.length),
    pods: [...new Set(entry.outages.map((outage) => outage.pod ?? 'none'))].join(', ') || '-',
    note: entry.outages.some((outage) => outage.ongoing)
      ? 'an outage was going on when measuring stopped'
      : (entry.why ?? ''),
  }));
  return { rows, restNote };
}

const HEADER: Row = {
  database: 'database',
  availability: 'available',
  longest: 'longest outage',
  outages: 'outages',
  pods: 'while restarting',
  note: 'note',
};

/**
 * No database measured because the run polled none (`--fast` on the simulator, a roll over
 * before the first answer): every row would repeat the same note, each wider than a terminal.
 */
function polledNone(entries: readonly AvailabilityEntry[]): boolean {
  return entries.every((entry) => !entry.measured && entry.outages.length === 0 && entry.notSeenMs === 0);
}

export function renderAvailabilityText(entries: readonly AvailabilityEntry[], how?: string): string {
  if (entries.length === 0) return '';
  if (polledNone(entries))
    return `database availability during the upgrade: not measured (${entries.length} database(s); no roll, or it ended before the first answer)`;
  const { rows, restNote } = rowsOf(entries);
  const keys = Object.keys(HEADER) as (keyof Row)[];
  const all = [HEADER, ...rows].map((row) => keys.map((key) => oneLine(row[key])));
  const widths = keys.map((_, i) => Math.max(...all.map((cells) => (cells[i] ?? '').length)));
  const lines = all.map((cells) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  const title = `database availability during the upgrade${how ? ` (${oneLine(how)})` : ''}:`;
  return [title, ...lines.map((line) => `  ${line}`), ...(restNote ? [`  ${restNote}`] : [])].join('\n');
}

export function renderAvailabilityMarkdown(entries: readonly AvailabilityEntry[]): string {
  if (entries.length === 0) return '';
  const { rows, restNote } = rowsOf(entries);
  const cell = (text: string) => markdownText(text);
  const keys = Object.keys(HEADER) as (keyof Row)[];
  return [
    '### Database availability',
    '',
    `| ${keys.map((key) => HEADER[key]).join(' | ')} |`,
    `| ${keys.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${keys.map((key) => cell(row[key])).join(' | ')} |`),
    ...(restNote ? ['', cell(restNote)] : []),
  ].join('\n');
}

function nameOf(entry: AvailabilityEntry): string {
  return entry.namespace ? `${entry.namespace}/${entry.name}` : entry.name;
}

function percent(share: number): string {
  if (share >= 1) return '100%';
  return `${(Math.floor(share * 10000) / 100).toFixed(2)}%`;
}

function seconds(ms: number): string {
  return ms === 0 ? '0 s' : `${(ms / 1000).toFixed(1)} s`;
}
