/**
 * The update edges OLM offers between the CSVs a plan goes through, and the way around a hole.
 * OLM installs a channel's head, and only one that declares an update edge from the installed
 * CSV (src/release/olm-graph.ts); so under OLM a hop is possible only when the CSV it lands on
 * (the head of a channel, src/planning/olm.ts olmRoute) declares an edge from the CSV it starts
 * from. Where it does not, the upgrade can go through other heads that have edges: each step
 * is an edge, goes forward, and keeps to the hop rules that need no cluster read (the minimum
 * operator of the step's target, the RS upgrade path between the two releases' images).
 *
 * What the live cluster shows comes first: an unfinished InstallPlan that holds the target CSV
 * is OLM offering it (an edge, whatever the catalog says); the heads are the PackageManifest's.
 */

import { checkUpgradePath, clusterTagFor, minimumOperatorFor } from '../release/catalog.js';
import { catalogOlmEdge, type OlmEdge } from '../release/olm-graph.js';
import {
  compareOperatorVersions,
  parseOperatorVersion,
  parseRsVersion,
  type Release,
} from '../release/versions.js';
import { csvVersion, isUnfinishedPlan, olmRoute, type OlmSnapshot, subscribedChannel } from './olm.js';
import type { Platform } from './snapshot.js';

/**
 * An edge as the plan sees it: the catalog's, OLM's own offer on the cluster, or OLM's own
 * refusal: the Subscription sits in the channel whose head is the CSV, resolved, and offers
 * nothing (`refused`).
 */
export type PlannedOlmEdge =
  | OlmEdge
  | { kind: 'offered'; installPlan: string }
  | { kind: 'refused'; subscription: string; channel: string }
  /** OLM offers another CSV first in the channel whose head is the CSV (UpgradePending). */
  | { kind: 'offers-other'; subscription: string; channel: string; csv: string };

/**
 * The edge from the snapshot's installed CSV to `toCsv`. What OLM shows on the cluster beats the
 * catalog: an unfinished InstallPlan of `toCsv` is an edge; a Subscription in the channel whose
 * head is `toCsv` that is AtLatestKnown at the installed CSV is OLM saying it has no update to
 * that head (OLM makes an InstallPlan, state UpgradePending, as soon as the channel has one:
 * operator-framework/api `subscription_types.go` SubscriptionState), whatever spec.skips ctl's
 * catalog read: the catalog source on the cluster may not be the certified one ctl read.
 */
export function olmEdgeFrom(olm: OlmSnapshot, toCsv: string): PlannedOlmEdge {
  const offered = olm.installPlans.find((plan) => plan.csvs.includes(toCsv) && isUnfinishedPlan(plan));
  if (offered) return { kind: 'offered', installPlan: offered.name };
  const sub = olm.subscription;
  const head = subscribedChannel(olm)?.currentCSV;
  if (
    sub?.channel &&
    head === toCsv &&
    toCsv !== olm.csv &&
    sub.state === 'AtLatestKnown' &&
    sub.currentCSV === olm.csv &&
    (sub.installedCSV === undefined || sub.installedCSV === olm.csv)
  )
    return { kind: 'refused', subscription: sub.name, channel: sub.channel };
  // UpgradePending at another CSV of that channel: OLM upgrades the installed CSV to that one
  // first (the channel's CSV closest to its head that skips it), not to the head.
  if (
    sub?.channel &&
    head === toCsv &&
    sub.state === 'UpgradePending' &&
    sub.currentCSV !== undefined &&
    sub.currentCSV !== toCsv &&
    sub.currentCSV !== olm.csv &&
    (sub.installedCSV === undefined || sub.installedCSV === olm.csv)
  )
    return { kind: 'offers-other', subscription: sub.name, channel: sub.channel, csv: sub.currentCSV };
  return catalogOlmEdge(olm.csv, toCsv);
}

export const hasEdge = (edge: PlannedOlmEdge): boolean => edge.kind === 'edge' || edge.kind === 'offered';

/**
 * OLM refuses, in the subscribed channel, an edge that ctl's catalog of the certified bundles
 * declares: the catalog source on this cluster is not the one the catalog read (a rebuilt or
 * private index), so no edge of the catalog can be trusted here, and no route through other
 * channel heads is planned from it (each would only be found missing in the run, one at a time).
 * Undefined when OLM agrees with the catalog; else the refusal and the edge the catalog declares.
 */
export function olmContradictsCatalog(
  olm: OlmSnapshot,
): { refused: Extract<PlannedOlmEdge, { kind: 'refused' }>; head: string } | undefined {
  const head = subscribedChannel(olm)?.currentCSV;
  if (!head) return undefined;
  const edge = olmEdgeFrom(olm, head);
  if (edge.kind !== 'refused' || catalogOlmEdge(olm.csv, head).kind !== 'edge') return undefined;
  return { refused: edge, head };
}

/** The CSVs OLM can install: the heads of the package's channels (undefined when unread). */
export function channelHeads(olm: OlmSnapshot): string[] | undefined {
  if (!olm.channels) return undefined;
  const heads = olm.channels.flatMap((c) => (c.currentCSV ? [c.currentCSV] : []));
  return [...new Set(heads)];
}

/** Where the path starts: the installed CSV, and the RS release the cluster runs. */
export interface PathStart {
  csv: string;
  rs: Release | undefined;
  platform: Platform;
}

/**
 * Whether one OLM step from `from` to `to` (operator versions) keeps to the hop rules that need
 * no cluster read: forward, at least the target's minimum operator, and a supported (or not
 * documented) RS path between the releases' images. `fromRs` is the cluster's for the first step.
 */
function stepAllowed(from: string, to: string, fromRs: Release | undefined, platform: Platform): boolean {
  const a = parseOperatorVersion(from);
  const b = parseOperatorVersion(to);
  if (!a || !b || compareOperatorVersions(a, b) >= 0) return false;
  const minimum = minimumOperatorFor(to);
  const min = minimum ? parseOperatorVersion(minimum) : undefined;
  if (min && compareOperatorVersions(a, min) < 0) return false;
  const rsFrom = fromRs ?? rsOfRelease(from, platform);
  const rsTo = rsOfRelease(to, platform);
  if (!rsFrom || !rsTo) return true;
  const path = checkUpgradePath(rsFrom, rsTo);
  return path.supported || !path.known;
}

function rsOfRelease(operator: string, platform: Platform): Release | undefined {
  const tag = clusterTagFor(operator, platform);
  return tag ? parseRsVersion(tag) : undefined;
}

/** Every head reachable from the start, each with the shortest list of heads that leads to it. */
export function reachableHeads(olm: OlmSnapshot, start: PathStart): Map<string, string[]> {
  const heads = channelHeads(olm) ?? [];
  const paths = new Map<string, string[]>();
  if (olmContradictsCatalog(olm)) return paths;
  let frontier: { csv: string; path: string[]; rs: Release | undefined }[] = [
    { csv: start.csv, path: [], rs: start.rs },
  ];
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const node of frontier) {
      const from = csvVersion(node.csv);
      if (!from) continue;
      for (const head of heads) {
        const to = csvVersion(head);
        if (!to || paths.has(head) || head === start.csv) continue;
        const edge = node.csv === start.csv ? olmEdgeFrom(olm, head) : catalogOlmEdge(node.csv, head);
        if (!hasEdge(edge) || !stepAllowed(from, to, node.rs, start.platform)) continue;
        const path = [...node.path, head];
        paths.set(head, path);
        next.push({ csv: head, path, rs: undefined });
      }
    }
    frontier = next;
  }
  return paths;
}

/**
 * The heads to go through before `targetCsv`, in order ([] when the direct edge is there),
 * or undefined when no route of edges reaches it. A shortest route (fewest hops); of several,
 * the first found in the order of the package's channels.
 */
export function olmDetour(olm: OlmSnapshot, start: PathStart, targetCsv: string): string[] | undefined {
  if (hasEdge(olmEdgeFrom(olm, targetCsv))) return [];
  const reachable = reachableHeads(olm, start);
  const route = reachable.get(targetCsv);
  return route ? route.slice(0, -1) : undefined;
}

/**
 * The target nearest to `target` that OLM can reach from the start: the oldest reachable head
 * newer than it, else the newest reachable head (an operator version); undefined when none.
 */
export function nearestReachable(olm: OlmSnapshot, start: PathStart, target: string): string | undefined {
  const wanted = parseOperatorVersion(target);
  const versions = [...reachableHeads(olm, start).keys()]
    .map((csv) => csvVersion(csv))
    .filter((v): v is string => v !== undefined && parseOperatorVersion(v) !== undefined)
    .sort((a, b) => compareOperatorVersions(parseOperatorVersion(a)!, parseOperatorVersion(b)!));
  if (!wanted) return versions.at(-1);
  return (
    versions.find((v) => compareOperatorVersions(parseOperatorVersion(v)!, wanted) > 0) ?? versions.at(-1)
  );
}

/** The CSV the hop to `target` lands on (olmRoute's). */
export function targetCsvOf(olm: OlmSnapshot, target: string): string {
  return olmRoute(olm, target).targetCsv;
}
