/**
 * The plan's table of what the roll does to each database (./availability-prediction.ts): the
 * ones that go down first, then those it could not predict, then those that fail over; at most
 * MAX_ROWS rows (the JSON plan lists every database).
 */

import { oneLine } from '../io/safe-text.js';
import type { Paint } from '../io/style.js';
import { compareText } from '../io/text-order.js';
import type {
  AvailabilityPrediction,
  DatabasePrediction,
  PredictedAvailability,
} from './availability-prediction.js';

const MAX_ROWS = 20;

const ORDER: Record<PredictedAvailability, number> = {
  'goes-down': 0,
  unknown: 1,
  'fails-over': 2,
  'stays-available': 3,
};

const WORDS: Record<PredictedAvailability, string> = {
  'goes-down': 'goes down',
  unknown: 'unknown',
  'fails-over': 'fails over',
  'stays-available': 'stays available',
};

export function renderAvailabilityPrediction(prediction: AvailabilityPrediction, p: Paint): string[] {
  const s = oneLine;
  const order =
    prediction.rollOrder.length > 0 ? ` (${s(prediction.rollOrder.join(', '))}, one pod at a time)` : '';
  const out = [p.bold(`Availability during the roll${order}`)];
  if (!prediction.predicted && prediction.why)
    out.push(p.yellow(`  not predicted for every database: ${s(prediction.why)}`));
  const sorted = [...prediction.databases].sort(
    (a, b) => ORDER[a.prediction] - ORDER[b.prediction] || compareText(nameOf(a), nameOf(b)),
  );
  const shown = sorted.slice(0, MAX_ROWS);
  const rows = shown.map((db) => [
    s(nameOf(db)),
    db.replication === null ? '?' : db.replication ? 'yes' : 'no',
    db.shards === null ? '?' : String(db.shards),
    WORDS[db.prediction],
    s(
      db.pods.length > 0
        ? db.pods.map((step) => step.pod).join(', ')
        : db.prediction === 'unknown'
          ? db.why
          : '-',
    ),
  ]);
  const header = ['database', 'replication', 'shards', 'prediction', 'when'];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  out.push(`  ${p.dim(line(header))}`);
  shown.forEach((db, i) => {
    const text = `  ${line(rows[i] ?? [])}`;
    out.push(db.prediction === 'goes-down' ? p.yellow(text) : text);
  });
  const rest = sorted.slice(MAX_ROWS);
  if (rest.length > 0) {
    const counts = new Map<PredictedAvailability, number>();
    for (const db of rest) counts.set(db.prediction, (counts.get(db.prediction) ?? 0) + 1);
    const parts = [...counts].map(([prediction, count]) => `${count} ${WORDS[prediction]}`);
    out.push(p.dim(`  and ${rest.length} more: ${parts.join(', ')} (--output json lists each)`));
  }
  return out;
}

function nameOf(db: DatabasePrediction): string {
  return db.namespace ? `${db.namespace}/${db.name}` : `bdb ${db.uid} ${db.name}`;
}
