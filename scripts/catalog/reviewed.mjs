// Which of the notes' breaking changes and known limitations have been reviewed for ctl's upgrade
// (scripts/catalog/overrides.json `reviewed`, docs/catalog.md "Rules from the notes"). Each
// reviewed entry matches items by their RED ticket (`RED-39300`, `RED39300`) or by their title
// (case, punctuation and the ticket aside), optionally only in some notes files, and says what
// was decided: a rule (`rule`), a ctl check or step that already decides it (`check`, `step`),
// not part of an upgrade ctl performs (`not-upgrade`), or affecting one through something ctl
// cannot observe (`not-observable`). An item no entry matches, and that no rule's quote covers
// in a file the rule cites, is listed by `--list-limitations`: a new limitation shows up there.

export const VERDICTS = ['rule', 'check', 'step', 'not-upgrade', 'not-observable'];

/** `RED-39300`, `RED39300`, `RED 39300` -> `RED-39300`. */
export function ticketsOf(text) {
  return [...text.matchAll(/\bRED[- ]?(\d{4,6})\b/gi)].map((m) => `RED-${m[1]}`);
}

/** The title without its tickets, case, quotes or punctuation: what two wordings share. */
export function normalizeTitle(text) {
  return text
    .replace(/\(?\bRED[- ]?\d{4,6}\b\)?/gi, ' ')
    .replace(/<!--.*?-->/g, ' ')
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, ' ')
    .replace(/\.(?=\s|$)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function entryMatches(entry, item, file) {
  if (entry.files && !entry.files.includes(file)) return false;
  const tickets = ticketsOf(item);
  if ((entry.refs ?? []).some((ref) => tickets.includes(ref))) return true;
  const title = normalizeTitle(item);
  return (entry.titles ?? []).some((t) => normalizeTitle(t) === title);
}

/** A rule covers an item of a file it cites when the item's title and the rule's quote overlap. */
function ruleCovers(rule, item, file) {
  const title = normalizeTitle(item);
  return (rule.cites ?? []).some((cite) => {
    if (cite.file !== file) return false;
    const quote = normalizeTitle(cite.quote);
    return title.length > 0 && (quote.includes(title) || title.includes(quote));
  });
}

/**
 * The review of every item of every notes file: what no entry covers (`uncovered`, one line
 * each), the counts by verdict, entries that are malformed (`problems`: they stop the script)
 * and entries that match nothing at this commit (`notices`).
 */
export function reviewLimitations(notes, overrides) {
  const entries = overrides.reviewed?.items ?? [];
  const ruleIds = new Set((overrides.rules ?? []).map((r) => r.id));
  const problems = [];
  entries.forEach((entry, i) => {
    const name = entry.titles?.[0] ?? entry.refs?.[0] ?? `#${i}`;
    if (!VERDICTS.includes(entry.verdict))
      problems.push(`reviewed ${name}: verdict ${entry.verdict} is not one of ${VERDICTS.join(', ')}`);
    if (entry.verdict === 'rule' && !ruleIds.has(entry.rule))
      problems.push(`reviewed ${name}: rule ${entry.rule} is not in the overrides' rules`);
    if (!entry.reason) problems.push(`reviewed ${name}: no reason`);
  });
  const used = new Set();
  const uncovered = [];
  let covered = 0;
  for (const note of notes)
    for (const item of [...note.breakingChanges, ...note.knownLimitations]) {
      const index = entries.findIndex((entry) => entryMatches(entry, item, note.file));
      if (index >= 0) {
        used.add(index);
        covered++;
      } else if ((overrides.rules ?? []).some((rule) => ruleCovers(rule, item, note.file))) covered++;
      else uncovered.push(`${note.operator} ${note.file}: ${item}`);
    }
  const notices = entries
    .map((entry, i) =>
      used.has(i) ? undefined : `reviewed ${entry.titles?.[0] ?? entry.refs?.[0]}: matches no item`,
    )
    .filter((n) => n !== undefined);
  const counts = { entries: entries.length, items: covered };
  for (const verdict of VERDICTS) counts[verdict] = entries.filter((e) => e.verdict === verdict).length;
  return { uncovered, problems, notices, counts };
}
