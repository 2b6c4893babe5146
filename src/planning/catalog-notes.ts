/**
 * What the plan says about the release catalog itself (an addition to CLI.md's plan shape,
 * `catalog`): its date and age (a warning past CATALOG_STALE_DAYS), where it came from
 * (built-in, or with --catalog), the advisories that concern this upgrade, and releases newer
 * than the catalog that the install method offers (OperatorHub's channel heads here; the helm
 * repository's index is read by the plan command, src/planning/helm-index.ts).
 */

import { capList, moreLine } from '../io/cap-list.js';
import { activeCatalog } from '../release/catalog-data.js';
import { isKnownOperatorVersion, latestOperatorVersion } from '../release/catalog.js';
import { compareOperatorVersions, parseOperatorVersion } from '../release/versions.js';
import { type PlanAdvisory, planAdvisories } from './advisories.js';
import { csvVersion } from './olm.js';
import type { Snapshot } from './snapshot.js';
import type { Target } from './target.js';

/** Older than this, the plan warns that the catalog may miss releases and advisories. */
export const CATALOG_STALE_DAYS = 60;

export interface AvailableRelease {
  operator: string;
  /** The cluster image tag, when the source names it; null: --cluster-version must supply it. */
  clusterVersion: string | null;
  /** Where it was found, e.g. `OperatorHub PackageManifest channel 8.2.0 (head)`. */
  foundIn: string;
}

export interface PlanCatalog {
  /** The catalog's date, YYYY-MM-DD. */
  updated: string;
  ageDays: number;
  /** Older than CATALOG_STALE_DAYS. */
  stale: boolean;
  /** `built-in`, or `built-in + <file|url>` with --catalog. */
  origin: string;
  advisories: PlanAdvisory[];
  /** Releases newer than the catalog's newest that the install method offers. */
  available: AvailableRelease[];
}

export function catalogAgeDays(updated: string, now: Date): number {
  const day = Date.parse(`${updated}T00:00:00Z`);
  return Number.isNaN(day) ? 0 : Math.max(0, Math.floor((now.getTime() - day) / 86_400_000));
}

/** Releases the subscribed package's channels offer that the catalog does not know and are newer than it. */
export function olmAvailableReleases(snapshot: Snapshot): AvailableRelease[] {
  const newest = parseOperatorVersion(latestOperatorVersion())!;
  const found = new Map<string, AvailableRelease>();
  for (const channel of snapshot.olm?.channels ?? []) {
    const version = csvVersion(channel.currentCSV);
    const parsed = version ? parseOperatorVersion(version) : undefined;
    if (!version || !parsed || isKnownOperatorVersion(version)) continue;
    if (compareOperatorVersions(parsed, newest) <= 0 || found.has(version)) continue;
    found.set(version, {
      operator: version,
      clusterVersion: null,
      foundIn: `OperatorHub PackageManifest, head of channel ${channel.name}`,
    });
  }
  return [...found.values()];
}

export function planCatalog(
  snapshot: Snapshot,
  target: Target,
  available: readonly AvailableRelease[] = [],
  now = new Date(),
): PlanCatalog {
  const { document, origin } = activeCatalog();
  const ageDays = catalogAgeDays(document.updated, now);
  const merged = new Map<string, AvailableRelease>();
  for (const release of [...olmAvailableReleases(snapshot), ...available])
    if (!merged.has(release.operator)) merged.set(release.operator, release);
  return {
    updated: document.updated,
    ageDays,
    stale: ageDays > CATALOG_STALE_DAYS,
    origin,
    advisories: planAdvisories(snapshot, target),
    available: [...merged.values()],
  };
}

/** The lines the text plan prints about the catalog (render-plan.ts). */
export function describeCatalog(catalog: PlanCatalog): { level: 'info' | 'warn'; text: string }[] {
  const lines: { level: 'info' | 'warn'; text: string }[] = [
    {
      level: catalog.stale ? 'warn' : 'info',
      text:
        `release catalog of ${catalog.updated} (${catalog.origin}, ${catalog.ageDays} ${catalog.ageDays === 1 ? 'day' : 'days'} old)` +
        (catalog.stale
          ? `: older than ${CATALOG_STALE_DAYS} days, it may miss releases and advisories; load a newer one with --catalog FILE_OR_URL`
          : ''),
    },
  ];
  for (const advisory of catalog.advisories) {
    const who = [advisory.running ? 'the running operator' : '', advisory.target ? 'the target' : '']
      .filter(Boolean)
      .join(' and ');
    lines.push({
      level: 'warn',
      text: `advisory ${advisory.id} affects ${who}: ${advisory.summary}; fixed in ${advisory.fixed.join(', ')}${advisory.triggeredBy.length > 0 ? `; this cluster holds ${advisory.triggeredBy.slice(0, 5).join(', ')}` : ''}`,
    });
  }
  const { shown, more } = capList(catalog.available);
  for (const release of shown) {
    lines.push({
      level: 'info',
      text: `newer release available: ${release.operator} (${release.foundIn}), not in the catalog: plan it with --to ${release.operator} --cluster-version IMAGE_TAG (its cluster image tag; --db-version DB_VERSION too if its database versions are new), or --catalog FILE_OR_URL that lists it`,
    });
  }
  if (more > 0) lines.push({ level: 'info', text: moreLine(more, 'newer releases available') });
  return lines;
}
