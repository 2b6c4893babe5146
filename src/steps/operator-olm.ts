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
 *
 * Split by what each part decides: this module drives OLM to the target and waits for its CSV;
 * ./operator-olm-offer.ts waits for OLM's offer after the channel (step 2),
 * ./operator-olm-approve.ts approves exactly the target's InstallPlan.
 */

import { OperationError } from '../errors.js';
import type { KubeObject } from '../kube/reads.js';
import { listObjects, readObject } from '../kube/write.js';
import {
  approveInstallPlanCommand,
  CSV_RESOURCE,
  installPlanOf,
  OLM_API_VERSION,
  type OlmSnapshot,
  type OlmSubscription,
  olmRoute,
  subscriptionOf,
} from '../planning/olm.js';
import { olmRetriesFailure } from '../planning/olm-csv-failures.js';
import type { UpgradeState } from '../run/state.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import { approveExactly } from './operator-olm-approve.js';
import { waitForOffer } from './operator-olm-offer.js';
import type { WaitFor } from './operator-rollout.js';
import { ctlPlanTo, ctlTargetOf, oc } from '../planning/equivalent-commands.js';
import { stepWaitWarning } from './wait-warnings.js';

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

/** Drives OLM to the target CSV and waits until it is Succeeded. Idempotent from the live state. */
export async function upgradeThroughOlm(
  ctx: StepContext<UpgradeDeps>,
  wait: WaitFor,
  namespace: string,
): Promise<OlmUpgradeOutcome> {
  const { deps, io } = ctx;
  const { kube, kubeWriter, plan } = deps;
  const target = plan.target.operator;
  // On a hop before the last, the `ctl upgrade plan` a hint proposes names the run's final
  // `--to` (hops.ts hopTarget): one `--to` this hop would plan an upgrade that ends here.
  const planTo = deps.target.onTheWayTo ?? target;
  const known = deps.snapshot.olm;
  const subName = known?.subscription?.name;
  if (!known || !subName) {
    throw new OperationError('the operator is installed by OLM, but its Subscription was not found', {
      hint: `Check ${oc(deps.snapshot.kubeTarget, 'get', 'subscription', '-n', namespace)}, then plan again: ${ctlPlanTo(ctlTargetOf(deps.snapshot), planTo)}.`,
    });
  }
  const subRef = { apiVersion: OLM_API_VERSION, kind: 'Subscription', name: subName, namespace };
  const live = await readLive(ctx, namespace, subRef, known);
  const route = olmRoute(live, target);
  const sub = live.subscription;
  if (!sub)
    throw new OperationError(`Subscription ${subName} no longer exists in ${namespace}`, {
      hint: `Plan again: ${ctlPlanTo(ctlTargetOf(deps.snapshot), planTo)}.`,
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
            hint: `Run ${ctlPlanTo(ctlTargetOf(deps.snapshot), planTo)} to see the operator-method check and its fix.`,
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
          `would approve the InstallPlan of ${route.targetCsv}: ${approveInstallPlanCommand(ctx.deps.snapshot.kubeTarget, installPlan?.name ?? 'INSTALL_PLAN', namespace)}`,
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
      kubeTarget: deps.snapshot.kubeTarget,
      ctlTarget: ctlTargetOf(deps.snapshot),
      onTheWayTo: deps.target.onTheWayTo,
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
    hint: `Look at OLM: ${oc(deps.snapshot.kubeTarget, 'get', 'csv,installplan,subscription', '-n', namespace)}; ${oc(deps.snapshot.kubeTarget, 'describe', 'csv', route.targetCsv, '-n', namespace)}. Then run ctl again to resume.`,
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
            hint: `The install does not get past ${reason || 'this failure'} by itself. Look at ${oc(deps.snapshot.kubeTarget, 'describe', 'csv', route.targetCsv, '-n', namespace)} and the operator's events, and fix the cause they name (OLM then retries the install); then run ctl again to resume.`,
          },
        );
      }
      return `${route.targetCsv}: phase ${phase}${typeof status.message === 'string' ? ` (${status.message})` : ''}`;
    },
    onProgress: (message) => ctx.progress(message),
    onWarning: stepWaitWarning(ctx),
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

/**
 * A run through OLM that stopped in its operator step before approving an InstallPlan changed
 * nothing but the Subscription's channel (the intents upgradeThroughOlm records): the operator
 * still runs (`running`) the version it started from and no later step began. Then a run to another target (the CSV OLM
 * offered first, say) may replace it: nothing of it is half done. Returns why, or undefined.
 *
 * A multi-hop run counts when its current hop stopped so (`steps` are that hop's): the hops
 * before it are finished upgrades, nothing of them half done either, and the cluster shows them.
 * This is what makes the hint of operator-olm-offer.ts true on a hop ("it replaces this run").
 */
export function olmRunThatChangedNothing(
  state: UpgradeState,
  running: string | undefined,
  stepIds: readonly string[],
): string | undefined {
  if (state.target.method !== 'olm') return undefined;
  const operator = state.steps.operator;
  if (!operator || (operator.status !== 'failed' && operator.status !== 'in-progress')) return undefined;
  const intent = operator.intent ?? {};
  if ('approve' in intent) return undefined;
  const later = stepIds.slice(stepIds.indexOf('operator') + 1);
  if (later.some((id) => (state.steps[id]?.status ?? 'pending') !== 'pending')) return undefined;
  const from = typeof intent.from === 'string' ? intent.from : undefined;
  if (from !== undefined && running !== from) return undefined;
  const still = `the operator still runs ${running ?? from ?? 'the version it started from'}`;
  if (!state.hops) return still;
  // The hop `steps` belong to (run/state.ts currentHop, not imported: this module stays light).
  const index = Math.min(state.hop ?? 0, state.hops.length - 1);
  const done = index > 0 ? `, after hop ${index} of ${state.hops.length} finished` : '';
  return `in hop ${index + 1} of ${state.hops.length}, to ${state.hops[index]?.operator ?? '?'}${done}; ${still}`;
}
