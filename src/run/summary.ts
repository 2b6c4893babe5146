import { formatDuration } from '../io/progress.js';
import type { StepSummary } from './runner.js';

/** The final table of a run, for people (text) and for CI job summaries (Markdown). */
export function renderSummaryText(rows: readonly StepSummary[]): string {
  return renderColumns(
    ['STEP', 'RESULT', 'DURATION'],
    rows.map((r) => [r.id, r.result, r.durationMs > 0 ? formatDuration(r.durationMs) : '-']),
  );
}

/** A plain table like kubectl's: columns padded to their widest cell, two spaces apart. */
export function renderColumns(header: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...body.map(line)].join('\n');
}

export function renderSummaryMarkdown(title: string, rows: readonly StepSummary[], footer?: string): string {
  const lines = [`### ${title}`, '', '| step | result | duration | note |', '|---|---|---|---|'];
  for (const r of rows) {
    const note = (r.message ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
    lines.push(
      `| ${r.id} | ${r.result} | ${r.durationMs > 0 ? formatDuration(r.durationMs) : '-'} | ${note} |`,
    );
  }
  if (footer) lines.push('', footer);
  return `${lines.join('\n')}\n`;
}
