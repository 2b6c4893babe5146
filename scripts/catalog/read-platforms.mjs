// Reads which Kubernetes and OpenShift versions each operator release supports:
// - redis/docs content/operate/kubernetes/reference/supported_k8s_distributions.md, its
//   "Version history" table: one column per feature release (`**<nobr>8.2.0-12</nobr>**`), one
//   row per OpenShift/Kubernetes pair (`| 4.22 | 1.35 | ...`, `&mdash;` where no OpenShift
//   matches), each cell a status icon: supported, deprecated ("Deprecation warning"), end of
//   life ("X icon", not listed), or empty (not listed);
// - the release notes, for a release without a column of its own: the notes of a maintenance
//   release send the reader elsewhere for its supported distributions ("For supported
//   distributions ..., see the [...]({{<relref "/operate/kubernetes/release-notes/<dir>/<file>">}})"),
//   to another release's notes or to a release line's page (`7-22-2-releases/`).
//
// The notes' own per-distribution tables (written at each feature release) are not read: the
// reference page is the maintained one, and where the two differ (8.0.6-8's and 8.0.10-21's notes
// list OpenShift 4.17 to 4.20, their columns 4.18 to 4.21 and 4.18 to 4.22) the catalog follows
// the reference page, as ctl always has.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NOTES_DIR } from './read-notes.mjs';

export const SUPPORT_TABLE = 'content/operate/kubernetes/reference/supported_k8s_distributions.md';

const OPERATOR = /\d+\.\d+\.\d+-\d+/;

function cells(line) {
  return line
    .replace(/\{\{<\/?[^>]*>\}\}/g, '')
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
}

/** `4.09` -> `4.9`, `1.36` -> `1.36`; undefined for `&mdash;`, empty or unreadable cells. */
function minor(cell) {
  const match = /^(\d+)\.(\d+)$/.exec(cell.replace(/\*/g, '').trim());
  return match ? `${Number(match[1])}.${Number(match[2])}` : undefined;
}

/** A cell's status: 'supported', 'deprecated', 'end-of-life', '' (empty), or undefined (unreadable). */
function status(cell) {
  if (cell === '') return '';
  const title = /title="([^"]+)"/.exec(cell)?.[1]?.toLowerCase() ?? '';
  if (title.startsWith('supported') || cell.includes('&#x2705;')) return 'supported';
  if (title.startsWith('deprecat') || cell.includes('&#x26a0;')) return 'deprecated';
  if (title === 'x icon' || title.startsWith('end of life') || cell.includes('&#x274c;'))
    return 'end-of-life';
  return undefined;
}

/**
 * The "Version history" table: `{ columns: Map<operator, { kubernetes, openshift }>, problems }`,
 * each platform `{ supported: [...], deprecated: [...] }` newest first, as the rows run.
 */
export function readSupportHistory(docs) {
  const file = path.join(docs, SUPPORT_TABLE);
  const problems = [];
  const columns = new Map();
  if (!existsSync(file)) {
    problems.push(
      `${SUPPORT_TABLE} is not in the docs checkout: no Kubernetes or OpenShift support can be read`,
    );
    return { columns, problems };
  }
  const lines = readFileSync(file, 'utf8').replace(/\r\n/g, '\n').split('\n');
  const start = lines.findIndex((l) => /^#{2,4}\s+version history\s*$/i.test(l.trim()));
  const header = lines.findIndex((l, i) => i > start && l.includes('|'));
  if (start < 0 || header < 0) {
    problems.push(`${SUPPORT_TABLE}: no "Version history" table`);
    return { columns, problems };
  }
  const operators = cells(lines[header]).map((c) => OPERATOR.exec(c)?.[0]);
  for (const operator of operators)
    if (operator) columns.set(operator, { kubernetes: empty(), openshift: empty() });
  for (let i = header + 1; i < lines.length && lines[i].includes('|'); i++) {
    const row = cells(lines[i]);
    const kubernetes = minor(row[1] ?? '');
    if (!kubernetes) continue; // the separator, the release dates, the "OpenShift | Kubernetes" labels
    const openshift = minor(row[0] ?? '');
    row.forEach((cell, at) => {
      const operator = operators[at];
      if (!operator) return;
      const state = status(cell);
      if (state === undefined) {
        problems.push(
          `${SUPPORT_TABLE}: ${operator} on Kubernetes ${kubernetes}: unreadable status "${cell}"`,
        );
        return;
      }
      if (state !== 'supported' && state !== 'deprecated') return;
      const column = columns.get(operator);
      column.kubernetes[state].push(kubernetes);
      if (openshift) column.openshift[state].push(openshift);
    });
  }
  if (columns.size === 0)
    problems.push(`${SUPPORT_TABLE}: the "Version history" table names no operator release`);
  return { columns, problems };
}

function empty() {
  return { supported: [], deprecated: [] };
}

/**
 * Where a note sends the reader for its supported distributions: `{ file }` (another notes file,
 * relative to the checkout) or `{ line: 'x.y.z' }` (a release line's page), or undefined.
 */
export function supportReference(text) {
  for (const sentence of text.replace(/\r\n/g, '\n').split(/\n\s*\n|(?<=[.)])\s+(?=[A-Z])/)) {
    if (!/supported distributions/i.test(sentence) || !/\bsee\b/i.test(sentence)) continue;
    const after = sentence.slice(sentence.search(/\bsee\b/i));
    for (const [, target] of after.matchAll(/relref\s+"([^"]+)"/g)) {
      const parts = target
        .replace(/^\/+|\/+$/g, '')
        .replace(/\.md$/, '')
        .split('/');
      const at = parts.indexOf('release-notes');
      if (at < 0 || parts[at - 1] !== 'kubernetes') continue;
      const [dir, name] = parts.slice(at + 1);
      if (!dir) continue;
      if (name) return { file: `${NOTES_DIR}/${dir}/${name}.md` };
      const line = /^(\d+)-(\d+)-(\d+)-releases$/.exec(dir);
      if (line) return { line: `${line[1]}.${line[2]}.${line[3]}` };
    }
  }
  return undefined;
}

function lineOf(operator) {
  return /^(\d+\.\d+\.\d+)-/.exec(operator)?.[1];
}

/** The newest column of `line` not newer than `operator`, or undefined. */
function lineColumn(columns, line, operator, compare) {
  return [...columns.keys()]
    .filter((column) => lineOf(column) === line && compare(column, operator) <= 0)
    .sort(compare)
    .at(-1);
}

/**
 * The column whose support a release has (`platformsFrom`): its own; else its line's (the
 * newest column of its x.y.z not newer than it: a maintenance release has the support of the
 * feature release it follows); else the one its notes send the reader to (another release's
 * notes: that release's column, found the same way; a line's page: that line's newest column
 * not newer than the release). Undefined when none. 8.0.16-24 is the case of the last: the
 * page has no 8.0.16 column, and its notes send to the 8.0.10 releases.
 *
 * `notesOf(operator)` gives the release's notes (`{ text }`), `operatorOfFile(file)` the
 * release of a notes file, `compare` orders operator versions.
 */
export function platformsFromOf(operator, { columns, notesOf, operatorOfFile, compare }, seen = new Set()) {
  if (columns.has(operator)) return operator;
  const own = lineColumn(columns, lineOf(operator), operator, compare);
  if (own !== undefined || seen.has(operator)) return own;
  seen.add(operator);
  for (const note of notesOf(operator)) {
    const reference = supportReference(note.text);
    const target = reference?.file ? operatorOfFile(reference.file) : undefined;
    if (target && target !== operator)
      return platformsFromOf(target, { columns, notesOf, operatorOfFile, compare }, seen);
    if (reference?.line) return lineColumn(columns, reference.line, operator, compare);
  }
  return undefined;
}
