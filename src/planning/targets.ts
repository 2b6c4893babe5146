/**
 * `ctl upgrade plan` without `--to`: the targets this cluster can reach, from one snapshot.
 * A target is the newest build of each release line (major.minor: 7.22, 8.0, ...) the release
 * catalog knows that is newer than the running operator; without --bundle, only builds whose
 * upstream bundle has a trustworthy git tag (src/release/catalog.ts gitTagFor), since the
 * plan of any other would be refused. Each target is planned like `--to` would plan it
 * (src/planning/hops.ts planPath), purely: no cluster read per target. A release a known
 * advisory affects (src/release/advisories.ts) is never recommended; the newest build of a line
 * is the one with the fixes, so it is the line's target. Under OLM on OpenShift, only builds
 * whose certified bundle OperatorHub offers on this OpenShift (src/release/olm-openshift.ts)
 * are listed. A target on a release line near or past its end of life (src/release/rules.ts) is
 * recommended only when no other is.
 */

import { CtlError } from '../errors.js';
import { advisoriesAffecting } from '../release/advisories.js';
import { clusterTagFor, gitTagFor, knownOperatorVersions } from '../release/catalog.js';
import { olmOffersOn } from '../release/olm-openshift.js';
import { endOfLifeOf, isNearEndOfLife } from '../release/rules.js';
import { rsVersionOfTag } from '../release/versions.js';
import { minorVersionOf } from '../release/platforms.js';
import { compareOperatorVersions, parseOperatorVersion } from '../release/versions.js';
import { type AvailableRelease, olmAvailableReleases } from './catalog-notes.js';
import type { CheckId } from './checks/index.js';
import type { Plan } from './plan.js';
import type { Snapshot } from './snapshot.js';
import type { Target, TargetSelection } from './target.js';

export interface TargetHop {
  operator: string;
  clusterVersion: string | null;
}

export interface UpgradeTarget {
  operator: string;
  /** The release line, `major.minor`. */
  line: string;
  clusterVersion: string | null;
  databaseVersion: string | null;
  recommended: boolean;
  /** True when one upgrade reaches it. */
  oneHop: boolean;
  /** Every hop in order, the target last (one entry for a one-hop target). */
  hops: TargetHop[];
  blocked: boolean;
  /** The ids of the known advisories that affect this release (an addition to CLI.md's shape). */
  advisories: string[];
  /** The failing checks (over every hop), each with its fix. */
  blocking: { id: CheckId; message: string; fix: string }[];
}

export interface UpgradeTargets {
  apiVersion: 'ctl/v1';
  kind: 'UpgradeTargets';
  cluster: Plan['cluster'];
  current: { operator: string | null; clusterVersion: string | null };
  maxHops: number;
  /** The recommended target: the newest one no check blocks and no advisory affects; null when none. */
  recommended: string | null;
  /** The recommended target first, then the others, newest first. */
  targets: UpgradeTarget[];
  /**
   * Releases newer than the catalog that the install method offers (an addition to CLI.md's
   * shape): OperatorHub's channel heads, the helm repository's chart versions. Not planned:
   * the catalog lacks their images; each says where it was found.
   */
  available: AvailableRelease[];
}

/** The newest build of each release line newer than `current`, newest line first. */
export function candidateTargets(
  current: string | undefined,
  withBundle: boolean,
  offered: (version: string) => boolean = () => true,
): string[] {
  const running = current ? parseOperatorVersion(current) : undefined;
  const newest = new Map<string, string>();
  for (const version of knownOperatorVersions()) {
    const parsed = parseOperatorVersion(version)!;
    if (running && compareOperatorVersions(parsed, running) <= 0) continue;
    if (!withBundle && gitTagFor(version) === undefined) continue;
    if (!offered(version)) continue;
    // knownOperatorVersions is oldest first: the last of a line wins.
    newest.set(lineOf(version), version);
  }
  return [...newest.values()].reverse();
}

function lineOf(version: string): string {
  const [major, minor] = parseOperatorVersion(version)!.release;
  return `${major}.${minor}`;
}

/**
 * Every target planned from the one snapshot. `planPath` is the planner of a target in up to
 * `maxHops` hops; a target it cannot plan (a UsageError such as a bundle that cannot be found)
 * is listed as blocked with that reason under check `upgrade-path`.
 */
export function listTargets(
  snapshot: Snapshot,
  selection: TargetSelection,
  maxHops: number,
  planPath: (snapshot: Snapshot, target: Target, maxHops: number) => Plan,
): UpgradeTargets {
  const cluster = {
    context: snapshot.context,
    namespace: snapshot.namespace,
    name: snapshot.cluster?.name ?? snapshot.requestedCluster ?? '',
    dialect: snapshot.dialect,
    platform: snapshot.platform,
  };
  const openshift = snapshot.platform === 'openshift' ? minorVersionOf(snapshot.openshiftVersion) : undefined;
  // Under OLM, OperatorHub shows only bundles whose OpenShift range holds this OpenShift.
  const offered = (version: string) =>
    !snapshot.olm || openshift === undefined || olmOffersOn(version, openshift) !== false;
  const targets = candidateTargets(snapshot.operator?.version, selection.bundle !== undefined, offered).map(
    (operator): UpgradeTarget => {
      const target: Target = {
        ...selection,
        operator,
        clusterVersion: undefined,
        databaseVersion: undefined,
      };
      let plan: Plan;
      try {
        plan = planPath(snapshot, target, maxHops);
      } catch (error) {
        if (!(error instanceof CtlError)) throw error;
        return {
          operator,
          line: lineOf(operator),
          clusterVersion: null,
          databaseVersion: null,
          recommended: false,
          oneHop: true,
          hops: [{ operator, clusterVersion: null }],
          blocked: true,
          advisories: advisoryIds(operator),
          blocking: [{ id: 'upgrade-path', message: error.message, fix: error.hint ?? '' }],
        };
      }
      const hops = plan.hops
        ? plan.hops.map((hop) => ({
            operator: hop.target.operator,
            clusterVersion: hop.target.clusterVersion,
          }))
        : [{ operator, clusterVersion: plan.target.clusterVersion }];
      return {
        operator,
        line: lineOf(operator),
        clusterVersion: plan.target.clusterVersion,
        databaseVersion: plan.target.databaseVersion,
        recommended: false,
        oneHop: hops.length === 1,
        hops,
        blocked: plan.blocked,
        advisories: advisoryIds(operator),
        blocking: plan.checks
          .filter((check) => check.status === 'fail')
          .map(({ id, message, fix }) => ({ id, message, fix })),
      };
    },
  );
  const clean = targets.filter((target) => !target.blocked && target.advisories.length === 0);
  const best = clean.find((target) => !nearEndOfLife(target.operator)) ?? clean[0];
  if (best) best.recommended = true;
  return {
    apiVersion: 'ctl/v1',
    kind: 'UpgradeTargets',
    cluster,
    current: {
      operator: snapshot.operator?.version ?? null,
      clusterVersion: snapshot.cluster?.image.versionTag ?? null,
    },
    maxHops,
    recommended: best?.operator ?? null,
    targets: best ? [best, ...targets.filter((target) => target !== best)] : targets,
    available: olmAvailableReleases(snapshot),
  };
}

/** The target's RS line is near or past its end of life (the catalog's releaseLines). */
function nearEndOfLife(operator: string, today = new Date()): boolean {
  const tag = clusterTagFor(operator);
  const rs = tag ? rsVersionOfTag(tag) : undefined;
  return rs !== undefined && isNearEndOfLife(endOfLifeOf(rs, today));
}

function advisoryIds(operator: string): string[] {
  return advisoriesAffecting(operator).map((advisory) => advisory.id);
}
