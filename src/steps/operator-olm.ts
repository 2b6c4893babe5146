/**
 * The operator step under OLM (an operator installed from OperatorHub): ctl never touches the
 * OLM-owned Deployment; it does what upgrade-olm.md has a person do in the console (DOCS
 * `kubernetes/upgrade/upgrade-olm.md`; redis-facts.md §12), from the live state each time:
 *
 * 1. the Subscription's channel, when its head is not the target CSV, is switched to the channel
 *    whose head is (src/planning/olm.ts `olmRoute`, from the PackageManifest);
 * 2. OLM makes an InstallPlan for the newest CSV of the channel that skips (or replaces) the
 *    installed one; ctl approves EXACTLY the plan whose spec.clusterServiceVersionNames holds the
 *    target CSV (never one for another CSV), and only when it is not approved yet (Automatic
 *    approval: OLM approved it; ctl just waits). When OLM offers another CSV (the target does not
 *    skip the installed one, an older CSV of the channel does) or nothing (AtLatestKnown: no CSV
 *    skips the installed one), ctl stops at once and says which CSV to go through
 *    (`waitForOffer`); the PackageManifest shows no skips, so the plan cannot tell beforehand;
 * 3. ctl waits for the target CSV to be `Succeeded` (the caller then waits for the Deployment).
 *
 * Resumable at every point: each write is an absolute value (channel X, approved true) made
 * only when the live object differs, so a run killed after the approval re-reads an approved
 * plan and goes straight to the wait. Field names: operator-framework/api
 * `pkg/operators/v1alpha1/{subscription,installplan,clusterserviceversion}_types.go`.
 */

import { OperationError, TimeoutError } from '../errors.js';
import type { KubeObject } from '../kube/reads.js';
import { waitForObject } from '../kube/watch.js';
import { listObjects, readObject } from '../kube/write.js';
import {
  approveInstallPlanCommand,
  CSV_RESOURCE,
  installPlanOf,
  type OlmInstallPlan,
  csvVersion,
  type OlmSnapshot,
  type OlmSubscription,
  olmRoute,
  subscriptionChannelCommand,
  subscriptionOf,
  SUBSCRIPTION_RESOURCE,
} from '../planning/olm.js';
import { olmRetriesFailure } from '../planning/olm-csv-failures.js';
import type { UpgradeState } from '../run/state.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';

const OLM_API_VERSION = `${SUBSCRIPTION_RESOURCE.group}/${SUBSCRIPTION_RESOURCE.version}`;

export interface OlmUpgradeOutcome {
  targetCsv: string;
  channel: string | undefined;
  /** The channel ctl switched from, when it switched. */
  switchedFrom?: string | undefined;
  /** The InstallPlan that installed the target CSV. */
  installPlan?: string | undefined;
  /** ctl approved it (false: it was approved already, by OLM or an earlier run). */
  approvedByCtl: boolean;
}

type WaitFor = typeof waitForObject;

/** Drives OLM to the target CSV and waits until it is Succeeded. Idempotent from the live state. */
export async function upgradeThroughOlm(
  ctx: StepContext<UpgradeDeps>,
  wait: WaitFor,
  namespace: string,
): Promise<OlmUpgradeOutcome> {
  const { deps, io } = ctx;
  const { kube, kubeWriter, plan } = deps;
  const target = plan.target.operator;
  const known = deps.snapshot.olm;
  const subName = known?.subscription?.name;
  if (!known || !subName) {
    throw new OperationError('the operator is installed by OLM, but its Subscription was not found', {
      hint: `Check oc get subscription -n ${namespace}, then run ctl upgrade plan again.`,
    });
  }
  const subRef = { apiVersion: OLM_API_VERSION, kind: 'Subscription', name: subName, namespace };
  const live = await readLive(ctx, namespace, subRef, known);
  const route = olmRoute(live, target);
  const sub = live.subscription;
  if (!sub)
    throw new OperationError(`Subscription ${subName} no longer exists in ${namespace}`, {
      hint: 'Run ctl upgrade plan again.',
    });
  const outcome: OlmUpgradeOutcome = {
    targetCsv: route.targetCsv,
    channel: sub.channel,
    approvedByCtl: false,
  };

  if (sub.installedCSV !== route.targetCsv) {
    let installPlan = route.plan;
    // What OLM had resolved before a channel switch: an answer only counts once it changed.
    let before: OlmSubscription | undefined;
    if (!installPlan && !route.channelHasTarget) {
      if (!route.targetChannel) {
        throw new OperationError(
          `OLM cannot install ${route.targetCsv}: ${route.problem ?? 'no channel has it as its head'}`,
          {
            hint: 'Run ctl upgrade plan to see the operator-method check and its fix.',
          },
        );
      }
      await ctx.recordIntent({
        method: 'olm',
        from: deps.snapshot.operator?.version ?? null,
        to: target,
        targetCsv: route.targetCsv,
        subscription: subName,
        fromChannel: sub.channel ?? null,
        channel: route.targetChannel,
      });
      ctx.progress(
        `switching Subscription ${subName} from channel ${sub.channel ?? '?'} to ${route.targetChannel}`,
      );
      before = sub;
      await kubeWriter.mergePatch(subRef, { spec: { channel: route.targetChannel } });
      outcome.switchedFrom = sub.channel;
      outcome.channel = route.targetChannel;
    }
    // Nothing was switched in dry-run: the InstallPlan to approve may not exist yet, so say what would be approved.
    if (ctx.dryRun) {
      if (!installPlan?.approved && sub.approval !== 'Automatic') {
        io.info(
          `would approve the InstallPlan of ${route.targetCsv}: ${approveInstallPlanCommand(installPlan?.name ?? '<plan>', namespace)}`,
        );
      }
      return outcome;
    }
    installPlan ??= await waitForOffer(ctx, wait, {
      namespace,
      subName,
      targetCsv: route.targetCsv,
      automatic: sub.approval === 'Automatic',
      before,
    });
    outcome.installPlan = installPlan.name;
    if (!installPlan.approved) {
      if (sub.approval === 'Automatic') {
        ctx.progress(
          `InstallPlan ${installPlan.name} (${route.targetCsv}): Automatic approval, OLM approves it`,
        );
      } else {
        await approveExactly(ctx, namespace, installPlan, route.targetCsv);
        outcome.approvedByCtl = true;
      }
    } else {
      ctx.progress(`InstallPlan ${installPlan.name} (${route.targetCsv}) is approved already`);
    }
  } else if (ctx.dryRun) {
    return outcome;
  }

  await wait<KubeObject>({
    kube,
    path: `/apis/${CSV_RESOURCE.group}/${CSV_RESOURCE.version}/namespaces/${namespace}/${CSV_RESOURCE.plural}`,
    name: route.targetCsv,
    signal: ctx.signal,
    timeoutMs: deps.settings.timeoutMs,
    stallTimeoutMs: deps.settings.stallTimeoutMs,
    description: `ClusterServiceVersion ${route.targetCsv} to succeed`,
    hint: `Look at OLM: oc get csv,installplan,subscription -n ${namespace}; oc describe csv ${route.targetCsv} -n ${namespace}. Then run ctl again to resume.`,
    check: (csv) => {
      if (!csv) return `waiting for OLM to create ${route.targetCsv}`;
      const status = (csv.status ?? {}) as Record<string, unknown>;
      const phase = typeof status.phase === 'string' ? status.phase : 'None';
      if (phase === 'Succeeded') return true;
      if (phase === 'Failed') {
        const reason = typeof status.reason === 'string' ? status.reason : '';
        const message = typeof status.message === 'string' ? status.message : '';
        // OLM moves a CSV to Failed and back while a slow Deployment comes up: only a reason the
        // install does not get past by itself (OLM re-checks it on each sync, but it stays until
        // a person fixes its cause: src/planning/checks/olm-csv-healthy.ts) is final at once; a
        // retried one is final when it stays past the stall timeout (the wait's own no-progress limit).
        if (olmRetriesFailure(reason)) {
          return `${route.targetCsv}: phase Failed (${reason}${message ? `: ${message}` : ''}); OLM retries it, waiting up to the stall timeout`;
        }
        throw new OperationError(
          `ClusterServiceVersion ${route.targetCsv} failed: ${reason ? `${reason}: ` : ''}${message}`,
          {
            hint: `The install does not get past ${reason || 'this failure'} by itself. Look at oc describe csv ${route.targetCsv} -n ${namespace} and the operator's events, and fix the cause they name (OLM then retries the install); then run ctl again to resume.`,
          },
        );
      }
      return `${route.targetCsv}: phase ${phase}${typeof status.message === 'string' ? ` (${status.message})` : ''}`;
    },
    onProgress: (message) => ctx.progress(message),
  });
  return outcome;
}

/** The Subscription and InstallPlans as they are now, with the package's channels from the snapshot. */
async function readLive(
  ctx: StepContext<UpgradeDeps>,
  namespace: string,
  subRef: { apiVersion: string; kind: string; name: string; namespace: string },
  known: OlmSnapshot,
): Promise<OlmSnapshot> {
  const { kube } = ctx.deps;
  const [sub, plans] = await Promise.all([
    readObject(kube, subRef),
    listObjects(kube, OLM_API_VERSION, 'InstallPlan', namespace),
  ]);
  return {
    ...known,
    subscription: sub ? subscriptionOf(sub) : undefined,
    installPlans: plans.map(installPlanOf),
  };
}

interface OfferWait {
  namespace: string;
  subName: string;
  targetCsv: string;
  /** Automatic approval: OLM installs whatever it offers; ctl cannot hold it back. */
  automatic: boolean;
  /** The Subscription as read before ctl switched its channel; undefined when it did not. */
  before?: OlmSubscription | undefined;
}

/**
 * How long, after a channel switch, a Subscription that OLM has not rewritten yet is taken as
 * not yet resolved in the new channel. OLM reacts to a spec change within seconds; after this
 * the status as it stands is OLM's answer.
 */
const SWITCH_SETTLE_MS = 10_000;

/**
 * Waits until OLM offers the target CSV (the Subscription's currentCSV and installPlanRef), and
 * stops at once when OLM's answer is another CSV or no update at all (module comment, step 2).
 */
async function waitForOffer(
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
    hint: `Look at the Subscription's conditions: oc get subscription ${subName} -n ${namespace} -o yaml. Then run ctl again to resume.`,
    check: (object) => {
      if (!object)
        throw new OperationError(`Subscription ${subName} was deleted`, {
          hint: 'Run ctl upgrade plan again.',
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
            hint: `Check the channel: ${subscriptionChannelCommand(subName, namespace, '<channel whose head is the target>')}; then run ctl again.`,
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
        hint: `ctl approves only the plan of the target. Look at oc get installplan -n ${namespace}, then run ctl again.`,
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
  return new OperationError(
    `OLM offers ${offered}, not the target ${targetCsv}: in channel ${s.channel ?? '?'} the CSV that upgrades ${s.installedCSV ?? 'the installed CSV'} is ${offered} (${targetCsv} does not list it in spec.skips). ctl approved nothing.`,
    {
      hint: version
        ? `Upgrade to ${version} first: ctl upgrade run --to ${version} (it replaces this run, which approved nothing); then ctl upgrade run --to ${target} again. InstallPlan ${s.installPlan ?? '?'} (${offered}) of Subscription ${subName} in ${namespace} waits for that run's approval.`
        : `Look at oc get installplan,subscription -n ${namespace}; upgrade to the offered CSV first, then to ${target}.`,
    },
  );
}

/** AtLatestKnown in the target's channel: no CSV of the channel skips the installed one. */
function noUpdateOffered(offer: OfferWait, s: OlmSubscription): OperationError {
  const { namespace, subName, targetCsv } = offer;
  return new OperationError(
    `OLM offers no update from ${s.installedCSV ?? 'the installed CSV'} in channel ${s.channel ?? '?'} (Subscription ${subName} is AtLatestKnown): the target ${targetCsv} does not list ${s.installedCSV ?? 'it'} in spec.skips, and no other CSV of the channel does. ctl approved nothing.`,
    {
      hint: `Find a release whose CSV skips ${s.installedCSV ?? 'the installed CSV'} (the bundle's spec.skips in the certified-operators catalog), upgrade to it first with ctl upgrade run --to <version>, then run ctl again; or ask Redis support for the supported path. Look at oc get subscription ${subName} -n ${namespace} -o yaml.`,
    },
  );
}

/**
 * Approves `plan`, conditionally on the version read (a 409 if OLM changed it since), after
 * checking once more that it installs the target CSV and nothing newer.
 */
async function approveExactly(
  ctx: StepContext<UpgradeDeps>,
  namespace: string,
  plan: OlmInstallPlan,
  targetCsv: string,
): Promise<void> {
  const { kube } = ctx.deps;
  const ref = { apiVersion: OLM_API_VERSION, kind: 'InstallPlan', name: plan.name, namespace };
  const live = await readObject(kube, ref);
  const now = live ? installPlanOf(live) : undefined;
  if (
    !now ||
    !now.csvs.includes(targetCsv) ||
    now.csvs.some((csv) => csv !== targetCsv && csv.startsWith(targetCsv.split('.v')[0] ?? ''))
  ) {
    throw new OperationError(`InstallPlan ${plan.name} no longer installs exactly ${targetCsv}`, {
      hint: `ctl approves only the plan of the target. Look at oc get installplan ${plan.name} -n ${namespace} -o yaml, then run ctl again.`,
    });
  }
  if (now.approved) return;
  await ctx.recordIntent({
    method: 'olm',
    from: ctx.deps.snapshot.operator?.version ?? null,
    to: ctx.deps.plan.target.operator,
    targetCsv,
    approve: plan.name,
  });
  ctx.progress(`approving InstallPlan ${plan.name} (${targetCsv})`);
  await ctx.deps.kubeWriter.mergePatch(ref, {
    metadata: { resourceVersion: live?.metadata?.resourceVersion },
    spec: { approved: true },
  });
}

/**
 * A run through OLM that stopped in its operator step before approving an InstallPlan changed
 * nothing but the Subscription's channel (the intents upgradeThroughOlm records): the operator
 * still runs (`running`) the version it started from and no later step began. Then a run to another target (the CSV OLM
 * offered first, say) may replace it: nothing of it is half done. Returns why, or undefined.
 */
export function olmRunThatChangedNothing(
  state: UpgradeState,
  running: string | undefined,
  stepIds: readonly string[],
): string | undefined {
  if (state.hops || state.target.method !== 'olm') return undefined;
  const operator = state.steps.operator;
  if (!operator || (operator.status !== 'failed' && operator.status !== 'in-progress')) return undefined;
  const intent = operator.intent ?? {};
  if ('approve' in intent) return undefined;
  const later = stepIds.slice(stepIds.indexOf('operator') + 1);
  if (later.some((id) => (state.steps[id]?.status ?? 'pending') !== 'pending')) return undefined;
  const from = typeof intent.from === 'string' ? intent.from : undefined;
  if (from !== undefined && running !== from) return undefined;
  return `the operator still runs ${running ?? from ?? 'the version it started from'}`;
}
