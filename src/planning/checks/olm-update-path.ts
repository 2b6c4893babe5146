/**
 * `olm-update-path`: under OLM, OLM has an update edge from the CSV the hop starts from to the
 * CSV it lands on (the head of the channel ctl subscribes to). OLM installs a channel's head
 * only when that CSV's spec.skips lists the installed CSV (or its spec.replaces or olm.skipRange
 * covers it); otherwise the Subscription stays AtLatestKnown and the operator step stops after
 * switching the channel. Reads the installed CSV, the InstallPlans and the PackageManifest's
 * heads from the snapshot, and the certified bundles' edges from the catalog
 * (src/release/olm-graph.ts). An InstallPlan already offering the target passes; a Subscription
 * resolved in the target's channel that offers nothing fails, whatever the catalog says (the
 * catalog source on the cluster is OLM's, src/planning/olm-path.ts olmEdgeFrom); a catalog
 * that does not know the target CSV warns; no edge fails, naming the missing edge, the route
 * through other heads when there is one, and the nearest target OLM can reach.
 */

import { compareOperatorVersions, parseOperatorVersion } from '../../release/versions.js';
import { csvVersion } from '../olm.js';
import {
  nearestReachable,
  olmContradictsCatalog,
  olmDetour,
  olmEdgeFrom,
  type PathStart,
  targetCsvOf,
} from '../olm-path.js';
import { type Check, type CheckInput, fail, type Outcome, pass, warn } from './check.js';
import { ctlPlanTo, ctlTargetOf, oc } from '../equivalent-commands.js';

function checkOlmUpdatePath({ snapshot, target, resolved }: CheckInput): Outcome {
  const olm = snapshot.olm;
  if (resolved.method !== 'olm' || !olm) return pass('the operator is not upgraded through OLM');
  const current = parseOperatorVersion(resolved.operator.current ?? csvVersion(olm.csv) ?? '');
  const wanted = parseOperatorVersion(target.operator);
  if (current && wanted && compareOperatorVersions(current, wanted) >= 0)
    return pass(`${olm.csv} is already at ${target.operator} or newer: OLM installs nothing`);
  const targetCsv = targetCsvOf(olm, target.operator);
  const edge = olmEdgeFrom(olm, targetCsv);
  if (edge.kind === 'offered')
    return pass(`OLM offers ${targetCsv} already (InstallPlan ${edge.installPlan})`);
  if (edge.kind === 'offers-other') {
    const first = csvVersion(edge.csv) ?? edge.csv;
    return fail(
      `OLM offers ${edge.csv} first, not ${targetCsv}: Subscription ${edge.subscription} in channel ${edge.channel} is UpgradePending at ${edge.csv}, the CSV of the channel that upgrades ${olm.csv}`,
      `Upgrade to ${first} first (${ctlPlanTo(ctlTargetOf(snapshot), first)}), then plan ${target.operator} again.`,
    );
  }
  const contradicted = olmContradictsCatalog(olm);
  if (contradicted) {
    const { refused, head } = contradicted;
    const ns = snapshot.operator?.namespace ?? snapshot.namespace;
    return fail(
      `OLM offers no update from ${olm.csv} in channel ${refused.channel} (Subscription ${refused.subscription} is AtLatestKnown under the head ${head}), although the certified bundle ${head} skips it: the catalog source ${olm.subscription?.source ?? '(unknown)'} on this cluster does not hold the update edges of the certified bundles ctl read (a mirrored or rebuilt index?), so ctl cannot tell which update edges OLM has`,
      `Look at what the catalog source offers: ${oc(snapshot.kubeTarget, 'get', 'packagemanifest', olm.subscription?.package ?? 'PACKAGE', '-n', ns, '-o', 'yaml')}, and ${oc(snapshot.kubeTarget, 'get', 'catalogsource', olm.subscription?.source ?? 'CATALOG_SOURCE', '-n', olm.subscription?.sourceNamespace ?? 'openshift-marketplace', '-o', 'yaml')}. Subscribe to Red Hat's certified-operators, or upgrade by hand through the channels whose InstallPlans OLM offers (${oc(snapshot.kubeTarget, 'get', 'installplan', '-n', ns)}).`,
    );
  }
  switch (edge.kind) {
    case 'edge':
      return pass(`${targetCsv} lists ${olm.csv} in spec.${edge.via}: OLM has an update edge`);
    case 'unknown':
      return warn(
        `ctl's catalog holds no update edges for ${targetCsv} (or does not know ${olm.csv}): it cannot tell whether OLM upgrades ${olm.csv} to it`,
        `Check the bundle's spec.skips (redhat-openshift-ecosystem/certified-operators, operators/redis-enterprise-operator-cert/BUNDLE/manifests, BUNDLE being the version of ${targetCsv}), or pass --catalog with a catalog whose olm section lists ${targetCsv}.`,
      );
  }
  const start: PathStart = { csv: olm.csv, rs: resolved.currentRs, platform: snapshot.platform };
  const missing =
    edge.kind === 'refused'
      ? `OLM has no update edge from ${olm.csv} to ${targetCsv}: Subscription ${edge.subscription} is in channel ${edge.channel}, whose head is ${targetCsv}, and OLM answers AtLatestKnown at ${olm.csv} (it offers no update there, whatever spec.skips ctl's catalog read)`
      : `OLM has no update edge from ${olm.csv} to ${targetCsv}: ${targetCsv} does not list ${olm.csv} in spec.skips (a hole in the certified catalog)`;
  const detour = olm.channels ? olmDetour(olm, start, targetCsv) : undefined;
  if (detour && detour.length > 0) {
    const through = detour.map((csv) => csvVersion(csv) ?? csv).join(', then ');
    return fail(
      `${missing}; OLM reaches it through ${through}`,
      `Upgrade through ${through} first (${ctlPlanTo(ctlTargetOf(snapshot), csvVersion(detour[0]!) ?? detour[0]!)}), or let ctl plan the hops: pass --max-hops ${detour.length + 1} or more.`,
    );
  }
  const nearest = olm.channels ? nearestReachable(olm, start, target.operator) : undefined;
  const unread = olm.channels
    ? ''
    : ` (the PackageManifest could not be read: ${olm.packageError ?? olm.readError ?? 'no Subscription'}, so ctl cannot look for a route through other channel heads)`;
  return fail(
    `${missing}, and no route through the heads of the package's channels reaches it${unread}`,
    nearest
      ? `The nearest target OLM can reach from ${olm.csv}: ${nearest} (${ctlPlanTo(ctlTargetOf(snapshot), nearest)}).`
      : `No channel head declares an edge from ${olm.csv}; the furthest this upgrade can go is ${csvVersion(olm.csv) ?? olm.csv}. Ask Redis support for a bundle that skips ${olm.csv}.`,
  );
}

export const olmUpdatePathCheck = {
  id: 'olm-update-path',
  run: checkOlmUpdatePath,
} as const satisfies Check;
