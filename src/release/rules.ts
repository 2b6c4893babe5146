/**
 * The release notes' upgrade rules and the release lines' end of life, from the active catalog
 * (`rules`, `releaseLines`; docs/catalog.schema.json says what each field means). This module
 * answers "does this rule apply to that release" and "how near is this line's end of life";
 * what in a cluster sets a rule off is decided in src/planning/release-rules.ts.
 *
 * Rules are data: a rule the notes add later is a catalog change (or a `--catalog` file), not a
 * code change.
 */

import {
  activeCatalog,
  type ReleaseLineEntry,
  type RuleAppliesTo,
  type RuleEntry,
  type RuleTrigger,
} from './catalog-data.js';
import {
  compareOperatorVersions,
  compareReleases,
  type OperatorVersion,
  parseOperatorVersion,
  parseRelease,
  type Release,
} from './versions.js';

export type Rule = RuleEntry;

/** A release line's end of life is "near" this many days before it. */
export const END_OF_LIFE_WARNING_DAYS = 90;

export function allRules(): readonly Rule[] {
  return activeCatalog().document.rules ?? [];
}

export function allReleaseLines(): readonly ReleaseLineEntry[] {
  return activeCatalog().document.releaseLines ?? [];
}

/** `8.0` -> [8, 0, 0]; `8.0.2` -> [8, 0, 2]. */
function releaseBound(text: string): Release | undefined {
  return /^\d+\.\d+$/.test(text) ? parseRelease(`${text}.0`) : parseRelease(text);
}

function op(text: string): OperatorVersion | undefined {
  return parseOperatorVersion(text);
}

/**
 * Whether a rule applies to a release: every condition of `appliesTo` holds for `operator` (and
 * `rs`, the RS release it ships). A condition that cannot be judged (an RS condition with no
 * RS known) does not hold: the rule is not applied on a guess.
 */
export function ruleAppliesTo(
  appliesTo: RuleAppliesTo,
  release: { operator: string; rs?: Release | undefined; running?: string | undefined },
): boolean {
  const version = op(release.operator);
  if (!version) return false;
  if (appliesTo.runningOperators) {
    const running = release.running === undefined ? undefined : op(release.running);
    if (!running) return false;
    const listed = appliesTo.runningOperators.map(op).filter((v): v is OperatorVersion => v !== undefined);
    if (!listed.some((v) => compareOperatorVersions(v, running) === 0)) return false;
  }
  if (appliesTo.runningOperatorBefore !== undefined) {
    const running = release.running === undefined ? undefined : op(release.running);
    const before = op(appliesTo.runningOperatorBefore);
    if (!running || !before || compareOperatorVersions(running, before) >= 0) return false;
  }
  if (appliesTo.operators) {
    const listed = appliesTo.operators.map(op).filter((v): v is OperatorVersion => v !== undefined);
    if (!listed.some((v) => compareOperatorVersions(v, version) === 0)) return false;
  }
  const from = appliesTo.operatorFrom === undefined ? undefined : op(appliesTo.operatorFrom);
  if (appliesTo.operatorFrom !== undefined && (!from || compareOperatorVersions(version, from) < 0))
    return false;
  const before = appliesTo.operatorBefore === undefined ? undefined : op(appliesTo.operatorBefore);
  if (appliesTo.operatorBefore !== undefined && (!before || compareOperatorVersions(version, before) >= 0))
    return false;
  for (const [bound, atLeast] of [
    [appliesTo.rsFrom, true],
    [appliesTo.rsBefore, false],
  ] as const) {
    if (bound === undefined) continue;
    const limit = releaseBound(bound);
    if (!limit || !release.rs) return false;
    const order = compareReleases(release.rs, limit);
    if (atLeast ? order < 0 : order >= 0) return false;
  }
  return true;
}

/** The rules that apply to a release, in catalog order. */
export function rulesFor(release: {
  operator: string;
  rs?: Release | undefined;
  running?: string | undefined;
}): Rule[] {
  return allRules().filter((rule) => ruleAppliesTo(rule.appliesTo, release));
}

/** The applicable releases in words, for messages: `8.0.2-2, 8.0.2-6`, `RS 8.0 or later`. */
export function describeAppliesTo(appliesTo: RuleAppliesTo): string {
  const parts: string[] = [];
  if (appliesTo.operators) parts.push(appliesTo.operators.join(', '));
  if (appliesTo.operatorFrom) parts.push(`operator ${appliesTo.operatorFrom} or later`);
  if (appliesTo.operatorBefore) parts.push(`operators before ${appliesTo.operatorBefore}`);
  if (appliesTo.rsFrom) parts.push(`RS ${appliesTo.rsFrom} or later`);
  if (appliesTo.rsBefore) parts.push(`RS before ${appliesTo.rsBefore}`);
  if (appliesTo.runningOperators) parts.push(`from ${appliesTo.runningOperators.join(', ')}`);
  if (appliesTo.runningOperatorBefore) parts.push(`from operators before ${appliesTo.runningOperatorBefore}`);
  return parts.join(', ');
}

/** What sets a trigger off, in words, from the data alone (docs/reference.md's rules table). */
export function describeTrigger(trigger: RuleTrigger): string {
  switch (trigger.kind) {
    case 'upgrade':
      return 'the upgrade itself';
    case 'user-defined-modules':
      return 'a user-defined module (one RS 8 does not bundle) in use or in `spec.userDefinedModules`';
    case 'uploaded-modules':
      return 'a module in use that the management API reports as uploaded (`is_bundled: false`)';
    case 'deprecated-modules':
      return `module ${trigger.modules.map((m) => `\`${m}\``).join(' or ')} installed or in use`;
    case 'REAADB':
    case 'REDB':
      return `an ${trigger.kind}`;
    case 'secret-changed':
      return `an REAADB (a change to ${trigger.secrets.join(' or ')})`;
    case 'field-used':
      return `\`${trigger.field}\` set on an ${trigger.resource}`;
    case 'field-value':
      return `\`${trigger.field}\` of an ${trigger.resource} is ${trigger.values.map((v) => `\`${String(v)}\``).join(' or ')}`;
    case 'platform':
      return `${trigger.platform === 'openshift' ? 'OpenShift' : 'Kubernetes'}${trigger.versions ? ` ${trigger.versions.join(' or ')}` : ''}`;
    case 'install-method':
      return `an operator installed by ${trigger.methods.join(' or ')}`;
    case 'modules-in-use':
      return trigger.modules ? `module ${trigger.modules.join(' or ')} in use` : 'a module in use (any)';
    case 'all-of':
      return trigger.triggers.map(describeTrigger).join(', and ');
  }
}

export interface EndOfLife {
  /** `7.4`. */
  line: string;
  /** YYYY-MM-DD. */
  endOfLife: string;
  /** Whole days from `today` to the end of life; negative once past it. */
  daysLeft: number;
  source: string[];
}

const DAY_MS = 86_400_000;

/** The day part of a date, in UTC, as a day count. */
function dayNumber(date: Date): number {
  return Math.floor(date.getTime() / DAY_MS);
}

/**
 * The end of life of the line an RS release belongs to, with the days left from `today`;
 * undefined when the catalog has no date for the line.
 */
export function endOfLifeOf(rs: Release, today: Date): EndOfLife | undefined {
  const line = `${rs[0]}.${rs[1]}`;
  const entry = allReleaseLines().find((l) => l.rs === line);
  if (!entry?.endOfLife) return undefined;
  const end = new Date(`${entry.endOfLife}T00:00:00Z`);
  if (Number.isNaN(end.getTime())) return undefined;
  return {
    line,
    endOfLife: entry.endOfLife,
    daysLeft: dayNumber(end) - dayNumber(today),
    source: [...entry.source],
  };
}

/** Near (within END_OF_LIFE_WARNING_DAYS) or past its end of life. */
export function isNearEndOfLife(eol: EndOfLife | undefined): eol is EndOfLife {
  return eol !== undefined && eol.daysLeft <= END_OF_LIFE_WARNING_DAYS;
}

/** `reaches its end of life on 2026-11-30 (in 1 day)` or `reached ... (3 days ago)`. */
export function describeEndOfLife(eol: EndOfLife): string {
  if (eol.daysLeft > 0)
    return `reaches its end of life on ${eol.endOfLife} (in ${eol.daysLeft} day${eol.daysLeft === 1 ? '' : 's'})`;
  if (eol.daysLeft === 0) return `reaches its end of life today (${eol.endOfLife})`;
  const ago = -eol.daysLeft;
  return `reached its end of life on ${eol.endOfLife} (${ago} day${ago === 1 ? '' : 's'} ago)`;
}
