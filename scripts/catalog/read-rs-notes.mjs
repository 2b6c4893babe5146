// Reads the breaking changes and known limitations of the Redis Software release-line pages the
// overrides name (`rsNotes.files`: content/operate/rs/release-notes/rs-<line>-releases/_index.md,
// the lines ctl upgrades clusters to), for the reviewed list (reviewed.mjs) only: nothing of
// them goes into the catalog but the rules that cite them. An item is a `####` heading, a bold
// lead-in, or (in "Breaking changes") a top-level bullet's first sentence, up to the first
// heading inside it: the database version's breaking changes under it are commands' behaviour,
// listed by their heading.

import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The lines from a `##`/`###` heading named `name` to the next heading of its level or higher. */
function sectionLines(lines, name) {
  const start = lines.findIndex((l) => new RegExp(`^#{2,3}\\s+${name}\\s*$`, 'i').test(l.trim()));
  if (start < 0) return [];
  const level = /^#+/.exec(lines[start])[0].length;
  const end = lines.findIndex((l, i) => i > start && new RegExp(`^#{2,${level}}\\s`).test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

function firstSentence(text) {
  const plain = text.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').trim();
  const end = plain.search(/\.(\s|$)/);
  return end < 0 ? plain : plain.slice(0, end + 1);
}

/** `####` headings and bold lead-ins; with `bullets`, also each top-level bullet's first sentence. */
function itemsOf(lines, bullets) {
  const out = [];
  for (const line of lines) {
    const heading = /^#{4}\s+(.+?)\s*(\{#[^}]*\})?\s*$/.exec(line);
    if (heading) out.push(heading[1].trim());
    const bold = /^[-*]\s+\*\*(.+?)\*\*/.exec(line);
    if (bold) out.push(bold[1].trim());
    else if (bullets) {
      const bullet = /^[-*]\s+(.+)$/.exec(line);
      if (bullet) out.push(firstSentence(bullet[1]));
    }
  }
  return out;
}

/** One RS line page's items, in the shape read-notes.mjs gives a Kubernetes note. */
export function readRsLine(docs, file) {
  const text = readFileSync(path.join(docs, file), 'utf8').replace(/\r\n/g, '\n');
  const lines = text.split('\n');
  const line = /rs-(\d+)-(\d+)(?:-\d+)?-releases/.exec(file);
  const breaking = sectionLines(lines, 'Breaking changes');
  // The database version's breaking changes under their own heading: the heading is the item.
  const cut = breaking.findIndex((l) => /^#{3,5}\s/.test(l));
  return {
    file,
    operator: line ? `RS ${line[1]}.${line[2]}` : 'RS',
    breakingChanges: itemsOf(cut < 0 ? breaking : breaking.slice(0, cut + 1), true),
    knownLimitations: itemsOf(sectionLines(lines, 'Known limitations'), false),
  };
}
