/**
 * The operator step under OLM, after the channel is right: waiting until OLM offers the target
 * CSV (the Subscription's currentCSV and installPlanRef), and stopping at once, with the way on,
 * when OLM's answer is another CSV or no update at all (./operator-olm.ts, step 2).
 */

import { OperationError, TimeoutError } from '../errors.js';
import type { KubeObject } from '../kube/reads.js';
import { readObject } from '../kube/write.js';
import {
  csvVersion,
  installPlanOf,
  OLM_API_VERSION,
  type OlmInstallPlan,
  type OlmSubscription,
  subscriptionChannelCommand,
  subscriptionOf,
  SUBSCRIPTION_RESOURCE,
} from '../planning/olm.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import type { WaitFor } from './operator-rollout.js';
import { type CtlTarget, ctlPlanTo, ctlRunTo, type KubeTarget, oc } from '../planning/equivalent-commands.js';
import { stepWaitWarning } from './wait-warnings.js';

interface OfferWait {
  namespace: string;
  subName: string;
  targetCsv: string;
  /** Automatic approval: OLM installs whatever it offers; ctl cannot hold it back. */
  automatic: boolean;
  /** The Subscription as read before ctl switched its channel; undefined when it did not. */
  before?: OlmSubscription | undefined;
  /** The kubeconfig and context chosen for ctl: the hints' oc commands name them. */
  kubeTarget: KubeTarget;
  /** The same and the `-n`/`--cluster` given: the hints' ctl commands name them all. */
  ctlTarget: CtlTarget;
  /**
   * On a hop before the last (Target.onTheWayTo), the run's final `--to`: a ctl command a hint
   * proposes names it, as one run goes through every hop (a `--to` of this hop would end there).
   */
  onTheWayTo?: string | undefined;
}

/**
 * How long, after a channel switch, a Subscription that OLM has not rewritten yet is taken as
 * not yet resolved in the new channel. OLM reacts to a spec change within seconds; after this
 * the status as it stands is OLM's answer.
 */
const SWITCH_SETTLE_MS = 10_000;

/**
 * Waits until OLM offers the target CSV (the Subscription's currentCSV and installPlanRef), and
 * stops at once when OLM's answer is another CSV or no update at all (./operator-olm.ts, step 2).
 */
export async function waitForOffer(
  ctx: StepContext<UpgradeDeps>,
  wait: WaitFor,
  offer: OfferWait,
): Promise<OlmInstallPlan> {
  const { settings } = ctx.deps;
  const { before } = offer;
  if (before) {
    const settleMs = Math.min(SWITCH_SETTLE_MS, Math.floor(settings.stallTimeoutMs / 2));
    try {
      return await waitOnce(ctx, wait, offer, (s) => changedSince(s, before), settleMs);
    } catch (error) {
      if (!(error instanceof TimeoutError) || ctx.signal.aborted) throw error;
      ctx.progress(
        `Subscription ${offer.subName} unchanged ${Math.round(settleMs / 1000)}s after the channel switch: taking its status as OLM's answer`,
      );
    }
  }
  return waitOnce(ctx, wait, offer, () => true, settings.timeoutMs);
}

/** OLM wrote the Subscription's status since `before` was read. */
function changedSince(s: OlmSubscription, before: OlmSubscription): boolean {
  return (
    s.lastUpdated !== before.lastUpdated ||
    s.currentCSV !== before.currentCSV ||
    s.installPlan !== before.installPlan ||
    s.state !== before.state
  );
}

async function waitOnce(
  ctx: StepContext<UpgradeDeps>,
  wait: WaitFor,
  offer: OfferWait,
  resolved: (s: OlmSubscription) => boolean,
  timeoutMs: number,
): Promise<OlmInstallPlan> {
  const { kube, settings } = ctx.deps;
  const { namespace, subName, targetCsv } = offer;
  const sub = await wait<KubeObject>({
    kube,
    path: `/apis/${SUBSCRIPTION_RESOURCE.group}/${SUBSCRIPTION_RESOURCE.version}/namespaces/${namespace}/${SUBSCRIPTION_RESOURCE.plural}`,
    name: subName,
    signal: ctx.signal,
    timeoutMs,
    stallTimeoutMs: settings.stallTimeoutMs,
    description: `OLM to make the InstallPlan of ${targetCsv} (Subscription ${subName})`,
    hint: `Look at the Subscription's conditions: ${oc(offer.kubeTarget, 'get', 'subscription', subName, '-n', namespace, '-o', 'yaml')}. Then run ctl again to resume.`,
    check: (object) => {
      if (!object)
        throw new OperationError(`Subscription ${subName} was deleted`, {
          hint: `Plan again: ${ctlPlanTo(offer.ctlTarget, offer.onTheWayTo ?? ctx.deps.plan.target.operator)}.`,
        });
      const s = subscriptionOf(object);
      const conditions = Array.isArray((object.status as Record<string, unknown> | undefined)?.conditions)
        ? ((object.status as Record<string, unknown>).conditions as Record<string, unknown>[])
        : [];
      // A failure OLM wrote before ctl switched the channel is about the old channel: only one
      // written since counts (a watch's first event is the object as it was).
      const failed = conditions.find((c) => c.type === 'ResolutionFailed' && c.status === 'True');
      if (failed && resolved(s)) {
        throw new OperationError(
          `OLM cannot resolve Subscription ${subName}: ${String(failed.message ?? failed.reason ?? '')}`,
          {
            hint: `Check the channel: ${subscriptionChannelCommand(ctx.deps.snapshot.kubeTarget, subName, namespace, 'CHANNEL')}, CHANNEL the one whose head is the target; then run ctl again.`,
          },
        );
      }
      if (s.currentCSV === targetCsv && s.installPlan) return true;
      const progress = `Subscription ${subName}: state ${s.state ?? 'unknown'}, currentCSV ${s.currentCSV ?? '(none)'}`;
      if (!resolved(s)) return progress;
      const installed = s.installedCSV;
      const offered = s.currentCSV;
      if (offered && offered !== targetCsv && offered !== installed) {
        if (offer.automatic) return `${progress}: OLM installs ${offered} first (Automatic approval)`;
        throw otherCsvOffered(offer, s, offered);
      }
      if (s.state === 'AtLatestKnown' && (!offered || offered === installed)) throw noUpdateOffered(offer, s);
      return progress;
    },
    onProgress: (message) => ctx.progress(message),
    onWarning: stepWaitWarning(ctx),
  });
  const name = subscriptionOf(sub).installPlan ?? '';
  const object = await readObject(kube, {
    apiVersion: OLM_API_VERSION,
    kind: 'InstallPlan',
    name,
    namespace,
  });
  const plan = object ? installPlanOf(object) : undefined;
  if (!plan || !plan.csvs.includes(targetCsv)) {
    throw new OperationError(
      `InstallPlan ${name} of Subscription ${subName} does not install ${targetCsv} (it installs ${plan?.csvs.join(', ') || 'nothing'})`,
      {
        hint: `ctl approves only the plan of the target. Look at ${oc(ctx.deps.snapshot.kubeTarget, 'get', 'installplan', '-n', namespace)}, then run ctl again.`,
      },
    );
  }
  return plan;
}

/**
 * OLM upgrades the installed CSV to the newest CSV of the channel that lists it in spec.skips
 * (or replaces it): when that is not the target, the target does not skip the installed CSV.
 */
function otherCsvOffered(offer: OfferWait, s: OlmSubscription, offered: string): OperationError {
  const { namespace, subName, targetCsv } = offer;
  const version = csvVersion(offered);
  const target = csvVersion(targetCsv) ?? targetCsv;
  const final = offer.onTheWayTo ?? target;
  return new OperationError(
    `OLM offers ${offered}, not the target ${targetCsv}: in channel ${s.channel ?? '?'} the CSV that upgrades ${s.installedCSV ?? 'the installed CSV'} is ${offered} (${targetCsv} does not list it in spec.skips). ctl approved nothing.`,
    {
      hint: version
        ? `${throughOffered(offer, version, target)} InstallPlan ${s.installPlan ?? '?'} (${offered}) of Subscription ${subName} in ${namespace} waits for that run's approval.`
        : `Look at ${oc(offer.kubeTarget, 'get', 'installplan,subscription', '-n', namespace)}; upgrade to the offered CSV first, then to ${final}.`,
    },
  );
}

/**
 * The way on through the CSV OLM offered (`version`), before `target`. A run to it replaces
 * this one (it approved nothing: olmRunThatChangedNothing, single or multi-hop) and ends there;
 * the run after it keeps the final --to. On a hop before the last, `target` is itself a stop on
 * the way to the final --to, so the hint says the offered release is a stop too, not the end.
 */
function throughOffered(offer: OfferWait, version: string, target: string): string {
  const final = offer.onTheWayTo ?? target;
  const run = ctlRunTo(offer.ctlTarget, version);
  const onward = ctlRunTo(offer.ctlTarget, final);
  if (!offer.onTheWayTo)
    return `Upgrade to ${version} first: ${run} (it replaces this run, which approved nothing); then ${onward} again.`;
  return `Upgrade to ${version} first, a stop OLM needs before ${target} on the way to ${final}: ${run} (it replaces this run, which approved nothing, and ends at ${version}, not at ${final}); then ${onward} again to go on from there.`;
}

/** AtLatestKnown in the target's channel: no CSV of the channel skips the installed one. */
function noUpdateOffered(offer: OfferWait, s: OlmSubscription): OperationError {
  const { namespace, subName, targetCsv } = offer;
  return new OperationError(
    `OLM offers no update from ${s.installedCSV ?? 'the installed CSV'} in channel ${s.channel ?? '?'} (Subscription ${subName} is AtLatestKnown): the target ${targetCsv} does not list ${s.installedCSV ?? 'it'} in spec.skips, and no other CSV of the channel does. ctl approved nothing.`,
    {
      hint: `Find a release whose CSV skips ${s.installedCSV ?? 'the installed CSV'} (the bundle's spec.skips in the certified-operators catalog), upgrade to it first with ${ctlRunTo(offer.ctlTarget, 'VERSION')} (it replaces this run, which approved nothing, and ends at VERSION), then ${ctlRunTo(offer.ctlTarget, offer.onTheWayTo ?? csvVersion(targetCsv) ?? targetCsv)} again; or ask Redis support for the supported path. Look at ${oc(offer.kubeTarget, 'get', 'subscription', subName, '-n', namespace, '-o', 'yaml')}.`,
    },
  );
}
