/**
 * `operator-method`: the method can upgrade the operator: reads who owns the operator Deployment (a
 * CSV and its Subscription, helm labels) and, under OLM, the PackageManifest's channels. A method
 * the owner undoes, or a target OLM does not offer as a channel's head, fails with the method or
 * target that works.
 */

import { compareOperatorVersions, parseOperatorVersion } from '../../release/versions.js';
import { csvVersion, olmRoute, olmUpgradeCommands, subscriptionChannelCommand } from '../olm.js';
import {
  type CtlTarget,
  ctlPlanTargets,
  ctlPlanTo,
  ctlTargetOf,
  kubectl,
  oc,
} from '../equivalent-commands.js';
import { type Check, type CheckInput, fail, type Outcome, pass } from './check.js';

/**
 * OperatorHub installs belong to OLM: it puts back whatever a bundle or helm applies over the
 * operator Deployment, and upgrades only through the Subscription and its InstallPlan (DOCS
 * `kubernetes/upgrade/upgrade-olm.md`; redis-facts.md §12). With method olm ctl drives that:
 * it needs the channel whose head is the target (from the PackageManifest, src/planning/olm.ts).
 */
function checkOperatorMethod({ snapshot, target, resolved }: CheckInput): Outcome {
  const olm = snapshot.olm;
  if (!olm) {
    if (resolved.method === 'olm') {
      return fail(
        'method olm, but no ClusterServiceVersion owns the operator Deployment',
        'Drop --method olm: the operator is upgraded by helm or from the bundle.',
      );
    }
    return pass(
      resolved.method === 'helm'
        ? 'the operator is upgraded by helm'
        : 'the operator is upgraded from the release bundle',
    );
  }
  const sub = olm.subscription;
  const owner = sub
    ? `Subscription ${sub.name}, channel ${sub.channel ?? '?'}, approval ${sub.approval ?? '?'}, CSV ${olm.csv}`
    : `CSV ${olm.csv}${olm.readError ? `; the Subscription could not be read: ${olm.readError}` : ''}`;
  const ns = snapshot.operator?.namespace ?? snapshot.namespace;
  const commands = olmUpgradeCommands(snapshot.kubeTarget, olm, ns, target.operator)
    .map((step) => step.command)
    .join(' && ');
  if (resolved.method !== 'olm') {
    return fail(
      `the operator is installed by OLM (${owner}): OLM puts back any ${resolved.method} change to its Deployment, so --method ${resolved.method} cannot upgrade it`,
      `Drop --method ${resolved.method}: ctl upgrades it through OLM (or run: ${commands})`,
    );
  }
  const current = parseOperatorVersion(resolved.operator.current ?? '');
  const wanted = parseOperatorVersion(target.operator);
  if (current && wanted && compareOperatorVersions(current, wanted) >= 0) {
    return pass(`the operator is installed by OLM (${owner}) and already runs ${resolved.operator.current}`);
  }
  if (!sub) {
    return fail(
      `the operator is installed by OLM (${owner}), but its Subscription was not found`,
      `Check the Subscription: ${oc(snapshot.kubeTarget, 'get', 'subscription', '-n', ns)}; ctl needs get, list, watch and patch on subscriptions.operators.coreos.com in ${ns}.`,
    );
  }
  const route = olmRoute(olm, target.operator);
  if (route.problem) {
    const listAll = oc(
      snapshot.kubeTarget,
      'get',
      'packagemanifest',
      sub.package ?? 'PACKAGE',
      '-n',
      ns,
      '-o',
      'yaml',
    );
    // A hop before the last is a stop the path to --to needs (hops.ts moves it to a channel head
    // before the goal when there is one): a head proposed with --to would replace the final
    // target. The target list judges each target with its hops.
    const fix = target.onTheWayTo
      ? `${target.operator} is a stop on the way to ${target.onTheWayTo}, and no channel's head before ${target.onTheWayTo} can take its place: choose a target whose hops OLM offers (${ctlPlanTargets(ctlTargetOf(snapshot))} lists the targets with their hops; the channels: ${listAll}).`
      : olm.channels
        ? headAdvice(olm.channels, target.operator, resolved.operator.current, ctlTargetOf(snapshot), listAll)
        : `Let ctl read it: grant get on packagemanifests.packages.operators.coreos.com in ${ns} (check with ${kubectl(snapshot.kubeTarget, 'auth', 'can-i', 'get', 'packagemanifests', '-n', ns)}); or switch the Subscription yourself to the channel whose head is ${route.targetCsv} (${subscriptionChannelCommand(snapshot.kubeTarget, sub.name, ns, target.operator.split('-')[0] ?? target.operator)}) and run ctl again once OLM offers it.`;
    return fail(`the operator is installed by OLM (${owner}): ${route.problem}`, fix);
  }
  const how = route.channelHasTarget
    ? `channel ${route.channel ?? '?'} offers ${route.targetCsv}`
    : `ctl switches the channel from ${route.channel ?? '?'} to ${route.targetChannel ?? '?'}, whose head is ${route.targetCsv}`;
  const approval =
    sub.approval === 'Automatic'
      ? 'OLM approves its InstallPlan (Automatic)'
      : `ctl approves the InstallPlan of ${route.targetCsv} and no other`;
  return pass(`the operator is installed by OLM (${owner}): ${how}; ${approval}`);
}

/** How many channel heads a fix names; the package's own listing has all of them. */
const HEADS_NAMED = 5;

/**
 * OLM installs a channel's head: the head of the target's own release line first (`7.22.0-17`
 * for 7.22.0-11), with the command, then the newest other heads. Red Hat's certified package has
 * a channel per release and per rebuild (about 40 on 2026-11-29), so a fix that named every one
 * filled a screen twice over: it names the newest few and the command that lists them all.
 * Only heads newer than the running operator are upgrade targets: a line whose head the operator
 * already runs (7.4.6-2 for a target 7.4.6-12 on 7.4.6-2) is no advice, nor are older channels.
 */
function headAdvice(
  channels: readonly { name: string; currentCSV?: string | undefined }[],
  target: string,
  current: string | undefined,
  kube: CtlTarget,
  listAll: string,
): string {
  const headOf = (c: { currentCSV?: string | undefined }) => csvVersion(c.currentCSV) ?? c.currentCSV ?? '?';
  const running = parseOperatorVersion(current ?? '');
  const upgrade = (c: { currentCSV?: string | undefined }) => {
    const head = parseOperatorVersion(headOf(c));
    return !running || !head || compareOperatorVersions(head, running) > 0;
  };
  const ownLine = channels.find((c) => c.name === target.split('-')[0]);
  const line = ownLine && upgrade(ownLine) ? ownLine : undefined;
  const others = newestHeads(
    channels.filter((c) => c !== ownLine && upgrade(c)),
    headOf,
  );
  const named = others
    .slice(0, HEADS_NAMED)
    .map((h) => `${h.head} (channel${h.channels.length > 1 ? 's' : ''} ${h.channels.join(', ')})`);
  const left = others.length - named.length;
  const heads =
    named.length === 0
      ? `every channel: ${listAll}`
      : `${named.join(', ')}${left > 0 ? `, and ${left} more: ${listAll}` : ''}`;
  if (line) {
    return `OLM installs a channel's head: the head of ${target}'s release line is ${headOf(line)} (channel ${line.name}): ${ctlPlanTo(kube, headOf(line))}. Or pick another head: ${heads}.`;
  }
  const stale = ownLine
    ? `The head of ${target}'s release line is ${headOf(ownLine)} (channel ${ownLine.name}), which is not newer than the running ${current ?? 'operator'}. `
    : '';
  return named.length === 0
    ? `${stale}No channel offers an operator newer than the running ${current ?? 'one'} (the channels: ${listAll}).`
    : `${stale}Pick a target that is the head of a channel with --to: ${heads}.`;
}

/** Each distinct head once, with the channels that have it, the newest release first. */
function newestHeads(
  channels: readonly { name: string; currentCSV?: string | undefined }[],
  headOf: (c: { currentCSV?: string | undefined }) => string,
): { head: string; channels: string[] }[] {
  const byHead = new Map<string, string[]>();
  for (const channel of channels) {
    const head = headOf(channel);
    byHead.set(head, [...(byHead.get(head) ?? []), channel.name]);
  }
  const heads = [...byHead].map(([head, names]) => ({
    head,
    channels: names,
    version: parseOperatorVersion(head),
  }));
  // A head that is no operator version (a CSV named otherwise) goes last, in the package's order.
  return heads
    .sort((a, b) =>
      a.version && b.version
        ? compareOperatorVersions(b.version, a.version)
        : a.version
          ? -1
          : b.version
            ? 1
            : 0,
    )
    .map(({ head, channels: names }) => ({ head, channels: names }));
}

export const operatorMethodCheck = {
  id: 'operator-method',
  run: checkOperatorMethod,
} as const satisfies Check;
