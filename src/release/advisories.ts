/**
 * Known issues of operator releases, from the active catalog's `advisories`
 * (src/release/catalog.json; docs/catalog.schema.json says what each field means).
 *
 * An advisory lists the first affected release (`introduced`) and the first fixed release of
 * each release line (`fixed`, one per x.y.z). A release is affected when it is at least
 * `introduced`, older than the fix of its own line (a line without a fix is affected through
 * and through), and not newer than every fixed release: a line released after the fix carries
 * it (an inference; the notes of 8.0.20-27 name the five fixed releases, nothing later).
 */

import { activeCatalog, type AdvisoryEntry } from './catalog-data.js';
import { knownOperatorVersions } from './catalog.js';
import {
  compareOperatorVersions,
  compareReleases,
  type OperatorVersion,
  parseOperatorVersion,
} from './versions.js';

export type Advisory = AdvisoryEntry;

export function allAdvisories(): readonly Advisory[] {
  return activeCatalog().document.advisories ?? [];
}

function parse(v: string | OperatorVersion): OperatorVersion | undefined {
  return typeof v === 'string' ? parseOperatorVersion(v) : v;
}

export function isAffectedBy(advisory: Advisory, operator: string | OperatorVersion): boolean {
  const version = parse(operator);
  const introduced = parseOperatorVersion(advisory.introduced);
  if (!version || !introduced || compareOperatorVersions(version, introduced) < 0) return false;
  const fixed = advisory.fixed.map(parseOperatorVersion).filter((f): f is OperatorVersion => f !== undefined);
  const ownLine = fixed.find((f) => compareReleases(f.release, version.release) === 0);
  if (ownLine) return compareOperatorVersions(version, ownLine) < 0;
  return fixed.some((f) => compareOperatorVersions(version, f) < 0);
}

/** The advisories an operator release is affected by; empty for a release with none. */
export function advisoriesAffecting(operator: string | OperatorVersion): Advisory[] {
  return allAdvisories().filter((advisory) => isAffectedBy(advisory, operator));
}

export function isAffectedByAny(operator: string | OperatorVersion): boolean {
  return advisoriesAffecting(operator).length > 0;
}

/**
 * The release that fixes `advisory` for a cluster going to (or running) `operator`: the newest
 * catalogued release of the same line (major.minor) that is not affected by any advisory, else
 * the oldest catalogued release newer than `operator` that is not. `undefined` when the catalog
 * has none.
 */
export function fixedReleaseFor(operator: string): string | undefined {
  const version = parseOperatorVersion(operator);
  if (!version) return undefined;
  const clean = knownOperatorVersions().filter((v) => !isAffectedByAny(v));
  const sameLine = clean.filter((v) => {
    const parsed = parseOperatorVersion(v)!;
    return parsed.release[0] === version.release[0] && parsed.release[1] === version.release[1];
  });
  return sameLine.at(-1) ?? clean.find((v) => compareOperatorVersions(parseOperatorVersion(v)!, version) > 0);
}
