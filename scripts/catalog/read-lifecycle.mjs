// Reads redis/docs content/operate/rs/installing-upgrading/product-lifecycle.md: the
// "Cluster version end-of-life schedule" table (`| 7.4 – February 2024 | November 30, 2026 |`)
// and the "Bundled Redis database versions" table (content/embeds/rs-bundled-db-versions.md).

import { readFileSync } from 'node:fs';
import path from 'node:path';

export const LIFECYCLE = 'content/operate/rs/installing-upgrading/product-lifecycle.md';
export const BUNDLED_DB = 'content/embeds/rs-bundled-db-versions.md';

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

function isoDate(text) {
  const match = /^([A-Za-z]+)\s+(\d{1,2}),\s*(\d{4})$/.exec(text.trim());
  const month = match ? MONTHS.indexOf(match[1].toLowerCase()) : -1;
  if (!match || month < 0) return undefined;
  return `${match[3]}-${String(month + 1).padStart(2, '0')}-${match[2].padStart(2, '0')}`;
}

function cells(line) {
  return line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
}

/** `[{ rs: '7.4', endOfLife: '2026-11-30' }, { rs: '8.2' }]`, newest first as the table lists them. */
export function readEndOfLife(docs) {
  const text = readFileSync(path.join(docs, LIFECYCLE), 'utf8');
  const start = text.indexOf('end-of-life schedule');
  const lines = text.slice(start).split('\n');
  const rows = [];
  let inTable = false;
  for (const line of lines) {
    if (!line.trim().startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const [version, eol] = cells(line);
    const rs = /^(\d+\.\d+)\s/.exec(version ?? '')?.[1];
    if (!rs) continue;
    const date = isoDate(eol ?? '');
    rows.push(date ? { rs, endOfLife: date } : { rs });
  }
  return rows;
}

/** `[{ rs: '8.2.0', versions: [...], default: '8.6' }, { rs: '7.22', ... }]`; `x.y.x` rows become `x.y`. */
export function readBundledDatabases(docs) {
  const text = readFileSync(path.join(docs, BUNDLED_DB), 'utf8');
  const rows = [];
  for (const line of text.split('\n')) {
    const [rs, versions, def] = cells(line);
    const release = /^(\d+\.\d+)(?:\.(\d+|x))?$/.exec(rs ?? '');
    if (!release || !versions || !def) continue;
    rows.push({
      rs: release[2] === undefined || release[2] === 'x' ? release[1] : `${release[1]}.${release[2]}`,
      versions: versions.split(',').map((v) => v.trim()),
      default: def.trim(),
    });
  }
  return rows;
}
