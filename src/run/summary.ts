import { formatDuration } from '../io/progress.js';
import { markdownText, oneLine } from '../io/safe-text.js';
import type { StepSummary } from './runner.js';

/** The final table of a run, for people (text) and for CI job summaries (Markdown). */
export function renderSummaryText(rows: readonly StepSummary[]): string {
  return renderColumns(
    ['STEP', 'RESULT', 'DURATION'],
    rows.map((r) => [r.id, r.result, r.durationMs > 0 ? formatDuration(r.durationMs) : '-']),
  );
}

/**
 * A plain table like kubectl's: columns padded to their widest cell, two spaces apart. A cell
 * may hold text from the cluster: it is kept to one line, its control characters shown escaped.
 */
export function renderColumns(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const body = rows.map((row) => row.map(oneLine));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...body.map(line)].join('\n');
}

/**
 * The job summary's table. Every cell goes through markdownText: a message from the cluster
 * can neither add a row or cell nor make a link, an image or HTML.
 */
export function renderSummaryMarkdown(title: string, rows: readonly StepSummary[], footer?: string): string {
  const lines = [
    `### ${markdownText(title)}`,
    '',
    '| step | result | duration | note |',
    '|---|---|---|---|',
  ];
  for (const r of rows) {
    const cells = [r.id, r.result, r.durationMs > 0 ? formatDuration(r.durationMs) : '-', r.message ?? ''];
    lines.push(`| ${cells.map(markdownText).join(' | ')} |`);
  }
  if (footer) lines.push('', markdownText(footer));
  return `${lines.join('\n')}\n`;
}
