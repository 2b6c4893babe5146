import { formatDuration } from '../io/progress.js';
import { markdownText, oneLine } from '../io/safe-text.js';
import type { StepSummary } from './runner.js';
import type { Verification } from './verification.js';

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

/** Lines under the run's summary table. */
export function renderVerificationText(verification: Verification): string {
  if (verification.status === 'unverified')
    return `verification: could not be made: ${verification.reason ?? 'no answer'} (the run's result stands; check with GET /v1/nodes and GET /v1/bdbs)`;
  const nodesOk = verification.nodes.filter((n) => n.ok).length;
  const databasesOk = verification.databases.filter((d) => d.ok).length;
  const head =
    `verification (management API): ${nodesOk} of ${verification.nodes.length} node(s)` +
    `${verification.expectedClusterVersion ? ` on RS ${verification.expectedClusterVersion}` : ''}, ` +
    `${databasesOk} of ${verification.databases.length} database(s) active at their target version`;
  if (verification.status === 'verified') return head;
  return [head, ...verification.mismatches.map((m) => `  mismatch: ${m}`)].join('\n');
}
