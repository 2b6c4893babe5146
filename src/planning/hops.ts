/**
 * Multi-hop upgrades: when the cluster cannot reach the target in one supported hop, the
 * releases to go through first, each a full upgrade (operator, cluster, databases).
 *
 * The hop rules are the ones the checks enforce (src/planning/checks/), here as data:
 * - a cluster on a RHEL7 OpenShift image keeps RHEL7 images up to LAST_OPENSHIFT_RHEL7_RELEASE
 *   and only then moves on (DOCS kubernetes/7.4.6/upgrade/openshift-cli.md) — check upgrade-path;
 * - targets from RHEL9_TARGETS_FROM need operator and cluster at MIN_OPERATOR_FOR_RHEL9_TARGETS
 *   ("Upgrades from versions earlier than 7.4.2-2 are not supported", NOTES 7-8-2-releases) —
 *   check operator-min-version;
 * - the RS table of supported upgrade paths, with the Kubernetes-only 6.2.10-45 hop
 *   (src/release/catalog.ts checkUpgradePath `via`) — check upgrade-path.
 *
 * Everything here is pure: each hop is planned from the snapshot as it will be after the hops
 * before it (projectSnapshot), which is a forecast; the run re-reads the cluster at the start of
 * every hop and re-checks before it changes anything.
 */

import {
  checkUpgradePath,
  clusterTagFor,
  gitTagFor,
  HOP_BEFORE_6_2_18,
  knownOperatorVersions,
  minimumOperatorFor,
  RHEL9_TARGETS_FROM,
  rhel7HopFor,
} from '../release/catalog.js';
import { isAffectedByAny } from '../release/advisories.js';
import {
  compareOperatorVersions,
  compareReleases,
  formatRelease,
  parseOperatorVersion,
  parseRsVersion,
  type Release,
} from '../release/versions.js';
import type { CheckId, CheckResult } from './checks/index.js';
import { csvVersion, olmHeadForHop, olmRoute, type OlmSnapshot } from './olm.js';
import { olmDetour } from './olm-path.js';
import { resolveVersions } from './resolve.js';
import type { Snapshot } from './snapshot.js';
import type { Target } from './target.js';
import type { Plan, PlanHop } from './plan.js';

/** `--max-hops` when not given (CLI.md). */
export const DEFAULT_MAX_HOPS = 3;

/** Beyond this the search stops: no documented path needs that many hops. */
const SEARCH_LIMIT = 8;

/** A release to upgrade to before the target, and the rule that asks for it. */
export interface HopNeed {
  operator: string;
  /** Set when the hop needs a cluster tag other than the catalog's default (the RHEL7 hop). */
  clusterVersion?: string | undefined;
  /** The check that fails without this hop. */
  check: CheckId;
  /** The rule that allows no direct upgrade, with its source. */
  reason: string;
  /**
   * Why this release and no other is the stop (the rule names it, or it is the newest the rule
   * allows): a person reading the plan should not take it for an arbitrary choice of ctl.
   */
  chosen?: string | undefined;
}

/** Where the table of supported RS upgrade paths is (catalog.ts LIFECYCLE). */
const UPGRADE_PATHS_SOURCE =
  'redis.io, Redis Software "Supported upgrade paths": a version it does not list needs a supported intermediate version first';

/** Where the 7.4.2-2 floor of RHEL9 targets is written (catalog.ts MIN_OPERATOR_FOR_RHEL9_TARGETS). */
const MINIMUM_OPERATOR_SOURCE =
  'the release notes of every release from 7.8.2: "Upgrades from versions earlier than 7.4.2-2 are not supported"';

/**
 * The newest catalogued release in [minimum, below) with a trustworthy bundle tag, one no known
 * advisory affects when there is one (a hop into 7.4.6 goes to the newest 7.4.6, which has the
 * fixes: src/release/advisories.ts).
 */
export function newestReleaseBelow(below: string, minimum: string): string | undefined {
  const belowVersion = parseOperatorVersion(below);
  const minVersion = parseOperatorVersion(minimum);
  if (!belowVersion || !minVersion) return undefined;
  const candidates = knownOperatorVersions().filter((v) => {
    const parsed = parseOperatorVersion(v);
    return (
      parsed &&
      compareOperatorVersions(parsed, belowVersion) < 0 &&
      compareOperatorVersions(parsed, minVersion) >= 0 &&
      gitTagFor(v) !== undefined
    );
  });
  return candidates.filter((v) => !isAffectedByAny(v)).at(-1) ?? candidates.at(-1);
}

/**
 * The release the cluster must reach before `target`, or undefined when one hop suffices (as
 * far as the hop rules go: other checks may still fail). The same order as the checks.
 */
export function nextHop(snapshot: Snapshot, target: Target): HopNeed | undefined {
  const operator = snapshot.operator?.version ? parseOperatorVersion(snapshot.operator.version) : undefined;
  const wanted = parseOperatorVersion(target.operator);
  if (!wanted || (operator && compareOperatorVersions(operator, wanted) >= 0)) return undefined;

  const rhel7 = rhel7HopFor(target.operator, snapshot.cluster?.image.versionTag);
  if (rhel7) {
    return {
      operator: rhel7.operator,
      clusterVersion: rhel7.clusterTag,
      check: 'upgrade-path',
      reason: `RHEL7 OpenShift clusters move to RHEL8 images only from ${rhel7.operator}, so no direct upgrade to ${target.operator} exists (the OpenShift upgrade docs, kubernetes/7.4.6/upgrade/openshift-cli.md)`,
      chosen: `${rhel7.operator} with its RHEL7 image is the stop those docs name`,
    };
  }

  const resolved = resolveVersions(snapshot, target);
  const minimum = minimumOperatorFor(target.operator);
  const min = minimum ? parseOperatorVersion(minimum) : undefined;
  const clusterBelow = min && resolved.currentRs && compareReleases(resolved.currentRs, min.release) < 0;
  if (min && minimum && ((operator && compareOperatorVersions(operator, min) < 0) || clusterBelow)) {
    const newest = newestReleaseBelow(RHEL9_TARGETS_FROM, minimum);
    const hop = newest ?? minimum;
    return {
      operator: hop,
      check: 'operator-min-version',
      reason: `upgrades to ${target.operator} need operator and cluster at ${minimum} or later, so no direct upgrade exists (${MINIMUM_OPERATOR_SOURCE})`,
      chosen: newest
        ? `${hop} is the newest catalogued release before ${RHEL9_TARGETS_FROM} (the first release with that rule)${isAffectedByAny(hop) ? '' : ' that no known advisory affects'}`
        : `${hop} is the oldest release the rule accepts`,
    };
  }

  if (resolved.currentRs && resolved.targetRs) {
    const path = checkUpgradePath(resolved.currentRs, resolved.targetRs);
    if (!path.supported && path.known && path.via) {
      const rule = path.reason ?? `no direct upgrade path to ${target.operator}`;
      const kubernetesHop = path.via === HOP_BEFORE_6_2_18;
      return {
        operator: path.via,
        check: 'upgrade-path',
        reason: kubernetesHop
          ? `RS ${formatRelease(resolved.currentRs)} cannot go straight to ${formatRelease(resolved.targetRs)}, so no direct upgrade exists (the Kubernetes upgrade docs, kubernetes/7.4.6/upgrade/upgrade-redis-cluster.md: clusters below RS 6.2.10 stop at ${path.via} before 6.2.18 or later)`
          : `${rule}, so no direct upgrade exists (${UPGRADE_PATHS_SOURCE})`,
        chosen: kubernetesHop
          ? `${path.via} is the stop those docs name for clusters below RS 6.2.10`
          : whyThisStop(path.via, resolved.currentRs, resolved.targetRs, snapshot.platform),
      };
    }
  }
  return undefined;
}

/**
 * Why checkUpgradePath's `via` (catalog.ts intermediateFor): the newest catalogued release the
 * cluster upgrades to directly, preferring one from which the target is a direct upgrade.
 */
function whyThisStop(via: string, from: Release, to: Release, platform: Snapshot['platform']): string {
  const tag = clusterTagFor(via, platform);
  const viaRs = tag ? parseRsVersion(tag) : undefined;
  const onward = viaRs && checkUpgradePath(viaRs, to).supported;
  const directly = `${via} is the newest catalogued release that RS ${formatRelease(from)} upgrades to directly`;
  return onward
    ? `${directly} and that upgrades directly to RS ${formatRelease(to)}`
    : `${directly}; more stops follow from there`;
}

/**
 * Under OLM a hop goes to a channel's head (OLM installs nothing else): the head of the hop
 * release's line when it is not that head (src/planning/olm.ts olmHeadForHop). The RHEL7 hop,
 * which names its own cluster image, stays as it is.
 */
function alongOlmHeads(snapshot: Snapshot, need: HopNeed | undefined, goal: Target): HopNeed | undefined {
  if (!need || need.clusterVersion !== undefined || !snapshot.olm) return need;
  if (goal.method !== 'auto' && goal.method !== 'olm') return need;
  const head = olmHeadForHop(snapshot.olm, need.operator, goal.operator);
  if (!head || head === need.operator) return need;
  // The release the rule chose is not the stop any more: the head of its line is.
  return {
    ...need,
    operator: head,
    reason: `${need.reason}; ${head} is the head of a channel of ${need.operator}'s line (OLM installs only a channel's head): under OLM through a channel head`,
    chosen: undefined,
  };
}

/**
 * Under OLM, a hop whose CSV declares no update edge from the installed one (a hole in the
 * certified catalog) goes through other channel heads that have edges (src/planning/olm-path.ts):
 * the first of them is the hop before. Undefined when the edge is there, when no route exists
 * (check olm-update-path then fails, naming the nearest target OLM can reach) or when ctl cannot
 * read the channels.
 */
function aroundOlmHole(snapshot: Snapshot, goal: Target): HopNeed | undefined {
  const olm = snapshot.olm;
  if (!olm?.channels || (goal.method !== 'auto' && goal.method !== 'olm')) return undefined;
  const current = snapshot.operator?.version ? parseOperatorVersion(snapshot.operator.version) : undefined;
  const wanted = parseOperatorVersion(goal.operator);
  if (!wanted || (current && compareOperatorVersions(current, wanted) >= 0)) return undefined;
  const targetCsv = olmRoute(olm, goal.operator).targetCsv;
  const start = { csv: olm.csv, rs: resolveVersions(snapshot, goal).currentRs, platform: snapshot.platform };
  const detour = olmDetour(olm, start, targetCsv);
  const first = detour?.[0];
  const operator = first ? csvVersion(first) : undefined;
  if (!first || !operator) return undefined;
  return {
    operator,
    check: 'olm-update-path',
    reason: `OLM has no update edge from ${olm.csv} to ${targetCsv} (a hole in the certified catalog); it goes through ${detour.map((csv) => csvVersion(csv) ?? csv).join(', then ')}`,
  };
}

/**
 * Whether, under OLM, the channel head a hop lands on has no route of update edges on to the
 * goal's CSV (src/planning/olm-path.ts). 7.4.6-12.0, the head of channel 7.4.6, is one: no
 * certified bundle lists it in spec.skips (8.2.0-18.0 neither: certified-operators commit
 * 0eb3663). The plan then takes another route when one exists (aroundOlmHole: from 7.2.4-7
 * through the head of 7.4.2); without one it keeps the hop, and check olm-update-path fails it.
 */
function olmDeadEnd(snapshot: Snapshot, hop: HopNeed, goal: Target): boolean {
  const olm = snapshot.olm;
  if (!olm?.channels || hop.clusterVersion !== undefined) return false;
  const headCsv = olm.channels
    .map((channel) => channel.currentCSV)
    .find((csv) => csv !== undefined && csvVersion(csv) === hop.operator);
  if (!headCsv) return false;
  const targetCsv = olmRoute(olm, goal.operator).targetCsv;
  const fromHead = { ...olm, csv: headCsv, installPlans: [] };
  return (
    olmDetour(fromHead, { csv: headCsv, rs: undefined, platform: snapshot.platform }, targetCsv) === undefined
  );
}

/** The target of an intermediate hop: the user's selection, at the hop's release. */
export function hopTarget(final: Target, need: Pick<HopNeed, 'operator' | 'clusterVersion'>): Target {
  return {
    ...final,
    operator: need.operator,
    clusterVersion: need.clusterVersion,
    // --db-version names the final databases; each hop before takes its release's default.
    databaseVersion: undefined,
    onTheWayTo: final.operator,
  };
}

/**
 * The snapshot as it will be once `plan` has run: the operator, the cluster's image and nodes,
 * and each database the plan upgrades, at their planned versions. A forecast for planning the
 * next hop, never a substitute for reading the cluster before acting.
 */
export function projectSnapshot(snapshot: Snapshot, plan: HopPlan): Snapshot {
  const target = plan.target;
  const tag = target.clusterVersion ?? undefined;
  const rs = tag ? parseRsVersion(tag) : undefined;
  const software = tag?.replace(/\.[a-z][a-z0-9-]*$/, '');
  const upgraded = new Map<string, string>();
  for (const step of plan.steps) {
    for (const action of step.actions) {
      const db = action.database;
      // A database left to the user (by hand) or held back (its participants first) stays where
      // it is: the next hop is planned, and checked, with its version as it is now (issue 36).
      if (db && !db.manual && !db.heldBack) upgraded.set(`${db.namespace}/${db.name}`, db.version);
    }
  }
  const byName = new Map([...upgraded].map(([key, version]) => [key.slice(key.indexOf('/') + 1), version]));
  const operator = snapshot.operator && {
    ...snapshot.operator,
    version: target.operator,
    image: snapshot.operator.image.replace(/:[^:/]*$/, `:${target.operator}`),
  };
  const olm = snapshot.olm && projectOlm(snapshot.olm, target.operator);
  const cluster = snapshot.cluster && {
    ...snapshot.cluster,
    state: stateAfterHop(snapshot.cluster, tag),
    image: { ...snapshot.cluster.image, versionTag: tag ?? snapshot.cluster.image.versionTag },
  };
  return {
    ...snapshot,
    operator,
    cluster,
    olm,
    databases: snapshot.databases.map((db) => {
      const version = upgraded.get(`${db.namespace}/${db.name}`);
      return version ? { ...db, versionSpec: version, statusVersion: version } : db;
    }),
    api: {
      ...snapshot.api,
      nodes: snapshot.api.nodes.map((node) =>
        rs && software ? { ...node, software_version: software } : node,
      ),
      bdbs: snapshot.api.bdbs.map((bdb) => {
        const version = byName.get(bdb.name);
        return version ? { ...bdb, redis_version: version } : bdb;
      }),
    },
  };
}

/**
 * The cluster's state once a hop has run: its monitor step ends only when the cluster is Running
 * again, so a roll going on towards the hop's own tag (a run interrupted in that step, resumed)
 * is over by the next hop. Any other state is forecast as it is: the hop's own checks judge it.
 */
function stateAfterHop(
  cluster: NonNullable<Snapshot['cluster']>,
  tag: string | undefined,
): string | undefined {
  const rollingToHop = cluster.state === 'Upgrade' && tag !== undefined && cluster.image.versionTag === tag;
  return rollingToHop ? 'Running' : cluster.state;
}

/**
 * OLM once the hop has run: the CSV it landed on is installed, from the channel ctl subscribed
 * to; the InstallPlans of the hop are done.
 */
function projectOlm(olm: OlmSnapshot, operator: string): OlmSnapshot {
  const route = olmRoute(olm, operator);
  const subscription = olm.subscription && {
    ...olm.subscription,
    channel: route.targetChannel ?? olm.subscription.channel,
    installedCSV: route.targetCsv,
    currentCSV: route.targetCsv,
    installPlan: undefined,
  };
  return { ...olm, csv: route.targetCsv, subscription, installPlans: [] };
}

/**
 * What the path search reads of a hop's plan: its target (the release and cluster tag it lands
 * on) and its steps (the databases it upgrades, for projectSnapshot). A whole Plan is one; so is
 * the route of planRoute, which plans no checks or steps.
 */
export type HopPlan = Pick<Plan, 'target' | 'steps'>;

/** One hop of a path: its target, the snapshot it is planned from, its plan. */
export interface PathHop<P extends HopPlan = Plan> {
  target: Target;
  plan: P;
  /** Why this hop comes first; undefined for the final hop. */
  need?: HopNeed | undefined;
}

export type PathResult<P extends HopPlan = Plan> =
  | { ok: true; hops: PathHop<P>[] }
  | {
      ok: false;
      reason: string;
      hops: PathHop<P>[];
      need?: HopNeed | undefined;
      /** How many hops the path needs, when only --max-hops refuses it. */
      needed?: number | undefined;
    };

type PlanOne<P extends HopPlan = Plan> = (snapshot: Snapshot, target: Target) => P;

/**
 * The hops from the cluster as the snapshot shows it to `target`, each planned from the
 * projection of the ones before; refused (ok false, with the reason) when they are more than
 * `maxHops`, or when the catalog names no release that makes progress.
 */
export function findPath<P extends HopPlan>(
  snapshot: Snapshot,
  target: Target,
  maxHops: number,
  planOne: PlanOne<P>,
): PathResult<P> {
  const hops: PathHop<P>[] = [];
  let current = snapshot;
  for (let guard = 0; guard < SEARCH_LIMIT; guard++) {
    const first = firstHopTowards(current, target);
    if (!first.ok) return { ok: false, reason: first.reason, hops, need: first.need };
    const plan = planOne(current, first.target);
    hops.push({ target: first.target, plan, need: first.need });
    if (first.need === undefined) {
      if (hops.length > maxHops) {
        const list = hops.map((hop) => hop.target.operator).join(', then ');
        return {
          ok: false,
          reason: `the upgrade needs ${hops.length} hops (${list}) and --max-hops is ${maxHops}`,
          hops,
          need: hops[0]?.need,
          needed: hops.length,
        };
      }
      return { ok: true, hops };
    }
    current = projectSnapshot(current, plan);
  }
  return { ok: false, reason: `no path of at most ${SEARCH_LIMIT} hops is documented`, hops };
}

/** The first release to go to on the way to `target`: a hop may itself need a hop before it. */
function firstHopTowards(
  snapshot: Snapshot,
  target: Target,
): { ok: true; target: Target; need?: HopNeed } | { ok: false; reason: string; need?: HopNeed } {
  let goal = target;
  let need: HopNeed | undefined;
  const seen = new Set<string>();
  for (;;) {
    const along = alongOlmHeads(snapshot, nextHop(snapshot, goal), goal);
    const before =
      along && olmDeadEnd(snapshot, along, goal)
        ? (aroundOlmHole(snapshot, goal) ?? along)
        : (along ?? aroundOlmHole(snapshot, goal));
    if (!before) return { ok: true, target: goal, need };
    const version = parseOperatorVersion(before.operator);
    const goalVersion = parseOperatorVersion(goal.operator);
    if (
      !version ||
      !goalVersion ||
      compareOperatorVersions(version, goalVersion) >= 0 ||
      seen.has(before.operator)
    )
      return { ok: false, reason: `${before.reason}, and no release before it makes progress`, need: before };
    seen.add(before.operator);
    need = before;
    goal = hopTarget(target, before);
  }
}

/**
 * A hop's `reason` in the plan: the check that fails without it, the rule that allows no direct
 * upgrade (with its source) and why this release is the stop.
 */
export function hopReason(need: HopNeed): string {
  return `${need.check}: ${need.reason}${need.chosen ? `; ${need.chosen}` : ''}`;
}

/**
 * The plan of a multi-hop upgrade (two hops or more): the live cluster and the final target,
 * every hop's own checks and steps in `hops`, and at the top the checks merged (each id's
 * worst outcome over the hops, naming the hop when it is not the first) and the first hop's
 * steps, so a reader of CLI.md's single-target shape sees what blocks and what runs first.
 */
export function multiHopPlan(snapshot: Snapshot, hops: PathHop[], fingerprint: (plan: Plan) => string): Plan {
  const first = hops[0]!.plan;
  const last = hops.at(-1)!.plan;
  const planHops: PlanHop[] = hops.map((hop, index) => ({
    hop: index + 1,
    reason: hop.need ? hopReason(hop.need) : null,
    current: hop.plan.current,
    target: hop.plan.target,
    checks: hop.plan.checks,
    steps: hop.plan.steps,
    blocked: hop.plan.blocked,
  }));
  const plan: Plan = {
    ...first,
    current: {
      operator: snapshot.operator?.version ?? null,
      clusterVersion: snapshot.cluster?.image.versionTag ?? null,
      databases: first.current.databases,
    },
    target: last.target,
    checks: mergeChecks(planHops),
    blocked: planHops.some((hop) => hop.blocked),
    hops: planHops,
    catalog: mergeCatalog(first.catalog, last.catalog),
  };
  return { ...plan, fingerprint: fingerprint(plan) };
}

/**
 * The catalog section of a multi-hop plan: the first hop's (the running operator is the live
 * one there), with the advisories of the final target added (the last hop's, planned from a
 * projected snapshot, knows the final target).
 */
function mergeCatalog(first: Plan['catalog'], last: Plan['catalog']): Plan['catalog'] {
  if (!first || !last) return first ?? last;
  const advisories = first.advisories.map((advisory) => ({ ...advisory }));
  for (const advisory of last.advisories.filter((a) => a.target)) {
    const known = advisories.find((a) => a.id === advisory.id);
    if (known) known.target = true;
    else advisories.push({ ...advisory, running: false });
  }
  return { ...first, advisories };
}

const RANK = { pass: 0, warn: 1, fail: 2 } as const;

function mergeChecks(hops: PlanHop[]): CheckResult[] {
  const first = hops[0]!;
  return first.checks.map((check) => {
    let worst = check;
    let where = first;
    for (const hop of hops.slice(1)) {
      const other = hop.checks.find((c) => c.id === check.id);
      if (other && RANK[other.status] > RANK[worst.status]) {
        worst = other;
        where = hop;
      }
    }
    if (where === first) return check;
    return { ...worst, message: `hop ${where.hop} (to ${where.target.operator}): ${worst.message}` };
  });
}

/**
 * A refused path as the single-hop plan shows it: the check that asked for a hop keeps failing,
 * with the reason the path was refused and what to do.
 */
export function withRefusal(plan: Plan, refusal: PathRefusal): Plan {
  const id = refusal.need?.check;
  if (!id) return plan;
  const checks = plan.checks.map((check) => {
    if (check.id !== id || check.status === 'pass') return check;
    const fix =
      refusal.needed !== undefined
        ? `Pass --max-hops ${refusal.needed} to upgrade in ${refusal.needed} hops, or: ${check.fix}`
        : check.fix;
    return { ...check, message: `${check.message}; ${refusal.reason}`, fix };
  });
  return { ...plan, checks };
}

/** Why a path was refused, as withRefusal shows it. */
export interface PathRefusal {
  reason: string;
  need?: HopNeed | undefined;
  needed?: number | undefined;
}

/** How choosePath turns the hops it found into one plan (a Plan, or planRoute's route). */
export interface PathPlanner<P extends HopPlan> {
  /** The plan of one hop, from the snapshot as it will be then. */
  one: PlanOne<P>;
  /** The plan of two hops or more, from the live snapshot. */
  multi(snapshot: Snapshot, hops: PathHop<P>[]): P;
  /** The single-target plan of a refused path. */
  refuse(plan: P, refusal: PathRefusal): P;
}

/**
 * Which plan a path makes: the single-target plan when one hop suffices; the multi-hop plan when
 * it takes more; and when the path is refused, the single-target plan with the refusal. The one
 * place that decides it, for the plan (planPath) and for its route alone (planRoute).
 */
export function choosePath<P extends HopPlan>(
  snapshot: Snapshot,
  target: Target,
  maxHops: number,
  planner: PathPlanner<P>,
): P {
  const path = findPath(snapshot, target, maxHops, planner.one);
  if (path.ok && path.hops.length === 1) return path.hops[0]!.plan;
  if (path.ok && target.bundle !== undefined && !target.bundle.includes('{version}')) {
    return planner.refuse(planner.one(snapshot, target), {
      reason: `--bundle ${target.bundle} names one release's bundle, and the upgrade needs ${path.hops.length} hops`,
      need: path.hops[0]?.need,
    });
  }
  if (path.ok) return planner.multi(snapshot, path.hops);
  const single =
    path.hops.length === 1 && path.hops[0]!.target === target
      ? path.hops[0]!.plan
      : planner.one(snapshot, target);
  return planner.refuse(single, path);
}

/**
 * The plan of an upgrade to `target` in as many hops as it needs, up to `maxHops`: exactly the
 * single-target plan when one hop suffices; the multi-hop plan when it takes more; and when the
 * path is refused, the single-target plan whose hop check fails with the reason.
 */
export function planPath(
  snapshot: Snapshot,
  target: Target,
  maxHops: number,
  planOne: PlanOne,
  fingerprint: (snapshot: Snapshot, plan: Plan) => string,
): Plan {
  return choosePath(snapshot, target, maxHops, {
    one: planOne,
    multi: (live, hops) => multiHopPlan(live, hops, (plan) => fingerprint(live, plan)),
    refuse: withRefusal,
  });
}

/** The targets of a plan's hops, in order: one for a single-hop plan. */
export function hopTargetsOf(plan: Plan, final: Target): Target[] {
  if (!plan.hops) return [final];
  return plan.hops.map((hop, index) =>
    index === plan.hops!.length - 1
      ? final
      : hopTarget(final, {
          operator: hop.target.operator,
          clusterVersion: hop.target.clusterVersion ?? undefined,
        }),
  );
}
