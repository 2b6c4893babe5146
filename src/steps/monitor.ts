/**
 * Step `monitor`: follow the cluster's rolling upgrade to its end (redis-facts.md §3 "Monitor":
 * `kubectl get rec` goes Upgrade -> Running, `kubectl rollout status sts/<rec>`).
 *
 * It watches the cluster resource (state, versionTag), its StatefulSet (replicas, revisions,
 * generation) and the StatefulSet's pods, and judges each pod by itself (./roll-facts.ts): on the
 * update revision (`controller-revision-hash`), ready, its node container on the target image (a
 * digest-pinned old image never counts, ./image-at-target.ts). Never by `status.currentRevision`
 * alone: Kubernetes does not promote it under `OnDelete` (kubernetes #73492, #106055). Done when
 * the state is Running, every pod is upgraded and the spec's versionTag is the target; with
 * auto-upgrade, whose operator need not write versionTag (redis-facts.md §12), when every node
 * reports the target's version in the management API (`GET /v1/nodes`) instead. Fails on
 * InvalidUpgrade (exit 1) with the operator's warning and the fix; on no progress for
 * --stall-timeout or the overall --timeout (exit 6) with what it saw last.
 *
 * A frozen upgrade (state Upgrade; the operator's log reports an error, or the rollout has not
 * moved for a while; the management API shows a database below the minimum or a module in use
 * without a rhel9 build: ./freeze.ts) stops the step with the exact commands that lift it, or,
 * with --remediate, is lifted by ctl itself (./remediate.ts), after which the step goes on
 * watching. The operator raises no documented Event for it (redis-facts.md §12).
 *
 * Resumable: every judgement is made from the live objects, so a second run on a cluster that is
 * already Running at the target completes at once, and remediation re-checks before each action.
 */

import { oneLine } from '../io/safe-text.js';
import type { ApiNode } from '../api/types.js';
import { findTlsFailure } from '../api/tls-errors.js';
import { imageAtTarget } from './image-at-target.js';
import { isOnDelete, judgeNodes, nodeImageOf, type NodeVersions, rsVersionOfTag } from './roll-facts.js';
import { type DialectFields, dialectFields } from '../release/dialect.js';
import { OperationError, TimeoutError } from '../errors.js';
import { isPodReady } from '../kube/pod-ready.js';
import { CLUSTER_RESOURCE, type KubeObject } from '../kube/reads.js';
import { type CollectionEvent, formatDuration, listCollection, watchCollection } from '../kube/watch.js';
import { readObject } from '../kube/write.js';
import { kubectl, kubectlMergePatch, patchAt, curlApi } from '../planning/equivalent-commands.js';
import type { UpgradeDeps, UpgradeStep } from './deps.js';
import { diagnoseFreeze } from './freeze.js';
import {
  type Blocker,
  describeBlocker,
  frozenError,
  type KubeEvent,
  minimumDatabaseVersion,
  type Remediation,
  type RemediationContext,
  remediateFrozenUpgrade,
  syncRecordedDatabases,
} from './remediate.js';
import type { StepContext, StepResult } from '../run/step.js';
import { podCreationRefusal, refusalHint } from './monitor-failed-create.js';
import { planSccAfterRoll, sccPlanInput } from './security-context-plan.js';
import { getPath, num, str } from '../json-read.js';
import { type ClusterSnapshot } from '../planning/snapshot.js';
import { type PlanContext, type StepPlan, action } from '../planning/plan.js';
import { formatRs } from '../planning/resolve.js';
import { READ_VERBS, type StepPermission } from '../planning/permissions.js';
import { compareNatural } from '../io/text-order.js';

/** The Kubernetes permissions this step needs; the plan's `permissions` check reviews them. */
const PERMISSIONS: readonly StepPermission[] = [
  {
    group: 'apps',
    resource: 'statefulsets',
    verbs: READ_VERBS,
    scope: 'namespace',
    when: 'always',
    why: 'follow the rolling upgrade of the cluster pods',
  },
  {
    group: '',
    resource: 'pods',
    verbs: ['list', 'watch'],
    scope: 'namespace',
    when: 'always',
    why: 'follow each cluster pod',
  },
  {
    group: '',
    resource: 'pods',
    subresource: 'log',
    verbs: ['get'],
    scope: 'namespace',
    when: 'always',
    why: "read the operator's log, where it says why an upgrade is frozen",
  },
  {
    group: '',
    resource: 'events',
    verbs: ['list', 'watch'],
    scope: 'namespace',
    when: 'always',
    why: "report the operator's warnings during the upgrade",
  },
];

const REVISION_LABEL = 'controller-revision-hash';

export function createMonitorStep(): UpgradeStep<'monitor'> {
  return {
    id: 'monitor',
    title: 'Wait for the rolling upgrade, then remove an OpenShift SCC no longer needed',
    permissions: PERMISSIONS,
    plan: planMonitor,
    run: monitorUpgrade,
  };
}

export const monitorStep = createMonitorStep();

interface Target {
  name: string;
  namespace: string;
  tag: string;
  recApiVersion: string;
  /** The digestHash pinned before the upgrade (another tag's image): never counts as upgraded. */
  oldDigest?: string | undefined;
}

async function monitorUpgrade(ctx: StepContext<UpgradeDeps>): Promise<StepResult> {
  const { snapshot, plan, kube } = ctx.deps;
  const tag = plan.target.clusterVersion;
  if (!tag) return { skipped: 'no target cluster version: pass --cluster-version' };
  const known = snapshot.cluster;
  if (!known) throw new OperationError('no cluster resource was found', { hint: 'Pass --cluster <name>.' });
  const target: Target = {
    name: known.name,
    namespace: known.namespace,
    tag,
    recApiVersion: known.apiVersion,
    oldDigest: known.image.versionTag !== tag ? known.image.digestHash : undefined,
  };

  if (ctx.dryRun) {
    const [rec, sts] = await Promise.all([
      readObject(kube, {
        apiVersion: known.apiVersion,
        kind: 'RedisEnterpriseCluster',
        name: known.name,
        namespace: known.namespace,
      }),
      readObject(kube, {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        name: known.name,
        namespace: known.namespace,
      }),
    ]);
    const selector = podSelectorOf(sts);
    const pods = selector
      ? new Map(
          (
            await listCollection<KubeObject>(
              kube,
              `/api/v1/namespaces/${known.namespace}/pods`,
              { labelSelector: selector },
              ctx.signal,
            )
          ).items.map((pod) => [pod.metadata?.uid ?? pod.metadata?.name ?? '', pod]),
        )
      : undefined;
    const view = judge(rec, sts, pods, target, dialectFields(snapshot.dialect));
    if (view.done) return { outcome: { dryRun: true, versionTag: tag, state: 'Running' } };
    // The dry run's cluster step set nothing: while the cluster resource is not at the target,
    // no pod was asked to roll, so nothing is said about the pods (issue 36 item 5).
    const specTag = str(getPath(rec, [...dialectFields(snapshot.dialect).imageSpecPath, 'versionTag']));
    if (specTag !== tag) {
      return {
        skipped: `dry run: would follow the rolling upgrade of ${known.name} to ${tag} once the cluster step sets it (now: cluster ${str(getPath(rec, ['status', 'state'])) ?? 'unknown'}, versionTag ${specTag ?? '(default)'}; no pod was asked to roll)`,
      };
    }
    return {
      skipped: `dry run: would follow the rolling upgrade of ${known.name} to ${tag} (now: ${view.message})`,
    };
  }

  const follower = new UpgradeFollower(ctx, target);
  const finished = await follower.run();
  await follower.syncDatabases();
  const nodes = await verifyNodes(ctx, tag);
  return {
    outcome: {
      versionTag: tag,
      state: 'Running',
      replicas: finished.replicas,
      updateRevision: finished.updateRevision ?? null,
      ...(nodes ? { nodeVersions: nodes } : {}),
      ...(follower.remediation.actions.length > 0 ? { remediation: follower.remediation.actions } : {}),
    },
  };
}

// ---- judging the live objects -----------------------------------------------------------------

interface View {
  done: boolean;
  state: string | undefined;
  message: string;
  replicas: number;
  updateRevision: string | undefined;
  /** Everything else is done but the spec's tag (auto-upgrade): the nodes' versions decide. */
  needsNodes: boolean;
}

/** `key=value,...` of the StatefulSet's pod selector; undefined until it is known. */
function podSelectorOf(sts: KubeObject | undefined): string | undefined {
  const labels = getPath(sts, ['spec', 'selector', 'matchLabels']);
  if (!labels || typeof labels !== 'object') return undefined;
  const selector = Object.entries(labels as Record<string, string>)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  return selector === '' ? undefined : selector;
}

/**
 * How many pods run the StatefulSet's update revision and are ready, counted from the pods
 * themselves; undefined while that cannot be known honestly: the pods are not listed yet, or
 * the StatefulSet controller has not observed the current spec (its updateRevision is then the
 * previous one, and pods of the old template would count as upgraded). Never from
 * status.updatedReplicas: that also counts pods that are not ready, and lags behind the pods.
 *
 * `upgraded` remembers the pods once seen ready on the update revision (`<revision>/<pod>`): a
 * pod that is upgraded stays counted while it keeps that revision, even when its readiness
 * flickers, so the count only goes down when the StatefulSet starts another rollout.
 */
export function countUpgradedPods(
  sts: KubeObject,
  pods: ReadonlyMap<string, KubeObject> | undefined,
  upgraded: Set<string> = new Set(),
): number | undefined {
  const status = (sts.status ?? {}) as Record<string, unknown>;
  const updateRevision = str(status.updateRevision);
  const observed = (num(status.observedGeneration) ?? 0) >= (sts.metadata?.generation ?? 0);
  if (!pods || !observed || updateRevision === undefined) return undefined;
  let count = 0;
  for (const pod of pods.values()) {
    if (pod.metadata?.labels?.[REVISION_LABEL] !== updateRevision) continue;
    const key = `${updateRevision}/${pod.metadata?.name ?? ''}`;
    if (isPodReady(pod) && !(pod.metadata as { deletionTimestamp?: string }).deletionTimestamp)
      upgraded.add(key);
    if (upgraded.has(key)) count += 1;
  }
  return count;
}

/** What the monitor knows of the nodes' versions (GET /v1/nodes); undefined until it asks. */
type NodesSeen = NodeVersions | undefined;

function judge(
  rec: KubeObject | undefined,
  sts: KubeObject | undefined,
  /** The StatefulSet's pods; undefined while they are not listed yet. */
  pods: ReadonlyMap<string, KubeObject> | undefined,
  target: Target,
  fields: Pick<DialectFields, 'imageSpecPath' | 'autoUpgradePath'>,
  upgraded?: Set<string>,
  nodes?: NodesSeen,
): View {
  const { imageSpecPath } = fields;
  const state = str(getPath(rec, ['status', 'state']));
  const specTag = str(getPath(rec, [...imageSpecPath, 'versionTag']));
  const autoUpgrade = getPath(rec, fields.autoUpgradePath) === true;
  if (!sts) {
    return {
      done: false,
      state,
      message: `cluster ${state ?? 'unknown'}, StatefulSet ${target.name} not found`,
      replicas: 0,
      updateRevision: undefined,
      needsNodes: false,
    };
  }
  const status = (sts.status ?? {}) as Record<string, unknown>;
  const replicas = num(getPath(sts, ['spec', 'replicas'])) ?? num(status.replicas) ?? 1;
  const updateRevision = str(status.updateRevision);
  const currentRevision = str(status.currentRevision);
  const generation = sts.metadata?.generation ?? 0;
  const observed = num(status.observedGeneration) ?? 0;
  const facts = {
    tag: target.tag,
    oldDigest: target.oldDigest,
    specDigest: str(getPath(rec, [...imageSpecPath, 'digestHash'])),
  };
  const atTarget = imageAtTarget(nodeImageOf(sts, ['spec', 'template', 'spec']), facts);

  const count = countUpgradedPods(sts, pods, upgraded);
  // Each pod, judged by itself: the update revision, ready, the target image (a digest-pinned
  // old image never counts). Highest ordinal first is the operator's order; names sort here.
  const waiting: string[] = [];
  let podsAtTarget = count !== undefined && pods !== undefined;
  if (count !== undefined && pods) {
    const byName = new Map([...pods.values()].map((pod) => [pod.metadata?.name ?? '', pod]));
    const names = new Set([
      ...Array.from({ length: replicas }, (_, i) => `${target.name}-${i}`),
      ...byName.keys(),
    ]);
    for (const name of [...names].sort(compareNatural)) {
      const pod = byName.get(name);
      const gone = (pod?.metadata as { deletionTimestamp?: string } | undefined)?.deletionTimestamp;
      if (!pod) waiting.push(`${name} missing`);
      else if (pod.metadata?.labels?.[REVISION_LABEL] !== updateRevision) waiting.push(`${name} old`);
      else if (!imageAtTarget(nodeImageOf(pod, ['spec']), facts))
        waiting.push(`${name} not on the target image`);
      else if (!isPodReady(pod) || gone)
        waiting.push(`${name} ${upgraded?.has(`${updateRevision}/${name}`) ? 'not ready' : 'starting'}`);
    }
    podsAtTarget = waiting.length === 0 && byName.size === replicas;
  }
  // Kubernetes promotes currentRevision at the end of a RollingUpdate, never under OnDelete
  // (kubernetes #73492, #106055): there, the pods alone say that the roll is over.
  const revisionSettled =
    isOnDelete(sts) ||
    currentRevision === undefined ||
    updateRevision === undefined ||
    currentRevision === updateRevision;
  const rolled = observed >= generation && podsAtTarget && atTarget && revisionSettled;
  // With auto-upgrade the operator may roll to its own default without writing the spec's
  // versionTag (nothing documents that it writes it, redis-facts.md §12): then every node must
  // report the target's version in the management API instead.
  const bySpec = specTag === target.tag;
  const needsNodes = !bySpec && autoUpgrade && rolled && state === 'Running';
  const nodesDone = nodes?.atTarget === true;

  // The count, once it is known (countUpgradedPods); until then the number of pods alone, never
  // "?/3" (it read as a broken count).
  const counted =
    count !== undefined
      ? `pods ${count}/${replicas} upgraded`
      : observed < generation
        ? `${replicas} pods (the StatefulSet controller has not picked up the new spec yet)`
        : `${replicas} pods`;
  const tagNote = bySpec
    ? ''
    : `, versionTag ${specTag ?? '(default)'}${autoUpgrade ? ' (auto-upgrade)' : ''}`;
  const imageNote = atTarget ? '' : ', pod template not yet at the target';
  const detail = waiting.length > 0 && waiting.length <= 5 ? ` (${waiting.join(', ')})` : '';
  const nodeNote =
    needsNodes && nodes && !nodes.atTarget
      ? `, nodes not yet at ${target.tag}: ${nodes.behind.slice(0, 5).join(', ') || 'none listed'}`
      : '';
  const message = `cluster ${state ?? 'unknown'}${tagNote}, ${counted}${detail}${imageNote}${nodeNote}`;
  return {
    done: state === 'Running' && rolled && (bySpec || (autoUpgrade && nodesDone)),
    state,
    message,
    replicas,
    updateRevision,
    needsNodes,
  };
}

// ---- following ---------------------------------------------------------------------------------

class UpgradeFollower {
  readonly remediation: Remediation;
  readonly #ctx: StepContext<UpgradeDeps>;
  readonly #target: Target;
  readonly #stop = new AbortController();
  readonly #fields: DialectFields;
  /** The nodes' versions, asked of the management API when only they can tell (auto-upgrade). */
  #nodes: NodesSeen;
  #nodesAsking = false;
  #needsNodes = false;
  #nodesTimer: NodeJS.Timeout | undefined;
  #rec: KubeObject | undefined;
  #sts: KubeObject | undefined;
  readonly #pods = new Map<string, KubeObject>();
  /** The pod watch has listed the pods: until then they are not counted. */
  #podsSynced = false;
  /** `<revision>/<pod>` of the pods seen upgraded and ready (countUpgradedPods). */
  readonly #upgraded = new Set<string>();
  readonly #synced = new Set<'rec' | 'sts'>();
  /** When the step began and when the rollout last moved. */
  readonly #startedAt: number;
  #lastProgressAt: number;
  /**
   * The operator's log is read from here on: this attempt's start, or an earlier attempt's when
   * the step resumes (the operator may have said why the upgrade froze only once, before it).
   */
  readonly #logSince: number;
  /**
   * A resumed step looks at the management API at its first chance instead of waiting out the
   * grace: the earlier attempt stopped, maybe on a freeze whose log line is not written again.
   */
  #resumedLookPending: boolean;
  #freezeTimer: NodeJS.Timeout | undefined;
  /** Trouble reading the log or the API is said once, not on every look. */
  readonly #warned = new Set<string>();
  #podSelector: string | undefined;
  #lastMessage: string | undefined;
  #stallTimer: NodeJS.Timeout | undefined;
  #overallTimer: NodeJS.Timeout | undefined;
  #settled = false;
  #busy = false;
  #assessedKey: string | undefined;
  /** The running assessment or remediation of a freeze. */
  #frozenTask: Promise<void> = Promise.resolve();
  #resolve: (view: View) => void = () => {};
  #reject: (error: unknown) => void = () => {};

  constructor(ctx: StepContext<UpgradeDeps>, target: Target) {
    this.#ctx = ctx;
    this.#target = target;
    this.#fields = dialectFields(ctx.deps.snapshot.dialect);
    this.#startedAt = ctx.deps.clock.now();
    this.#lastProgressAt = this.#startedAt;
    const earlierStart = Date.parse(ctx.previous?.startedAt ?? '');
    this.#logSince = Number.isFinite(earlierStart)
      ? Math.min(earlierStart, this.#startedAt)
      : this.#startedAt;
    this.#resumedLookPending = ctx.previous !== undefined && ctx.previous.status !== 'pending';
    const earlier = ctx.previous?.intent?.remediation;
    this.remediation = { actions: Array.isArray(earlier) ? [...(earlier as Record<string, unknown>[])] : [] };
  }

  run(): Promise<View> {
    const { signal } = this.#ctx;
    const { settings } = this.#ctx.deps;
    return new Promise<View>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
      if (signal.aborted) {
        this.#fail(abortReason(signal));
        return;
      }
      signal.addEventListener('abort', this.#onAbort, { once: true });
      this.#overallTimer = setTimeout(() => {
        this.#fail(
          new TimeoutError(
            `timed out after ${formatDuration(settings.timeoutMs)} waiting for the upgrade of ${this.#target.name} to ${this.#target.tag} (last seen: ${this.#lastMessage ?? 'nothing yet'})`,
            { hint: this.#lookHint() },
          ),
        );
      }, settings.timeoutMs);
      this.#touch();
      this.#watch('rec', this.#recPath(), `metadata.name=${this.#target.name}`, undefined, (event) => {
        this.#rec = applyOne(this.#rec, event, this.#target.name);
      });
      this.#watch(
        'sts',
        `/apis/apps/v1/namespaces/${this.#target.namespace}/statefulsets`,
        `metadata.name=${this.#target.name}`,
        undefined,
        (event) => {
          this.#sts = applyOne(this.#sts, event, this.#target.name);
          this.#startPodWatch();
        },
      );
      // The operator's log and the management API have no watch: look every few seconds.
      this.#freezeTimer = setInterval(() => {
        if (str(getPath(this.#rec, ['status', 'state'])) === 'Upgrade') this.#checkFrozen();
      }, freezePollMs(settings.stallTimeoutMs));
      this.#nodesTimer = setInterval(() => {
        if (this.#needsNodes) this.#askNodes();
      }, freezePollMs(settings.stallTimeoutMs));
    });
  }

  #recPath(): string {
    const version = this.#target.recApiVersion.split('/')[1] ?? CLUSTER_RESOURCE.version;
    return `/apis/${CLUSTER_RESOURCE.group}/${version}/namespaces/${this.#target.namespace}/${CLUSTER_RESOURCE.plural}`;
  }

  #watch(
    which: 'rec' | 'sts' | 'pods',
    path: string,
    fieldSelector: string | undefined,
    labelSelector: string | undefined,
    apply: (event: CollectionEvent<KubeObject>) => void,
  ): void {
    watchCollection<KubeObject>({
      kube: this.#ctx.deps.kube,
      path,
      fieldSelector,
      labelSelector,
      signal: this.#stop.signal,
      onEvent: (event) => {
        if (this.#settled) return;
        apply(event);
        if (event.type === 'SYNC' && which !== 'pods') this.#synced.add(which);
        this.#evaluate();
      },
    }).catch((error: unknown) => this.#fail(error));
  }

  /** The pods are found by the StatefulSet's selector, once it is known. */
  #startPodWatch(): void {
    if (this.#podSelector !== undefined) return;
    this.#podSelector = podSelectorOf(this.#sts);
    if (this.#podSelector === undefined) return;
    this.#watch(
      'pods',
      `/api/v1/namespaces/${this.#target.namespace}/pods`,
      undefined,
      this.#podSelector,
      (event) => {
        applyMany(this.#pods, event);
        if (event.type === 'SYNC') this.#podsSynced = true;
        // Which pod is restarting names each outage; under OnDelete a pod's end is a safe point.
        const overLimit = this.#ctx.deps.availability?.podsSeen(this.#pods.values());
        if (overLimit) this.#fail(overLimit);
      },
    );
  }

  #evaluate(): void {
    if (this.#settled || this.#synced.size < 2) return;
    if (!this.#rec) {
      this.#fail(
        new OperationError(`the cluster resource ${this.#target.name} was deleted during the upgrade`, {
          hint: `Check kubectl get rec -n ${this.#target.namespace}.`,
        }),
      );
      return;
    }
    const view = judge(
      this.#rec,
      this.#sts,
      this.#podsSynced ? this.#pods : undefined,
      this.#target,
      this.#fields,
      this.#upgraded,
      this.#nodes,
    );
    if (view.needsNodes && !this.#needsNodes) this.#askNodes();
    this.#needsNodes = view.needsNodes;
    if (view.state === 'InvalidUpgrade') {
      this.#failInvalidUpgrade();
      return;
    }
    if (view.done) {
      this.#settle(() => this.#resolve(view));
      return;
    }
    this.#report(view.message);
  }

  /**
   * GET /v1/nodes: the nodes' software versions, when the pods are done and the spec's versionTag
   * is not the target (auto-upgrade that does not write it). Trouble reading is said once; the
   * stall timer ends the wait when the API never answers.
   */
  #askNodes(): void {
    if (this.#nodesAsking || this.#settled) return;
    this.#nodesAsking = true;
    this.#ctx.deps.api
      .listNodes()
      .then(
        (nodes) => {
          this.#nodes = judgeNodes(nodes, this.#target.tag);
        },
        (error: unknown) => {
          // A certificate no longer trusted is no passing trouble: exit 1 (docs/exit-codes.md).
          if (findTlsFailure(error)) return this.#fail(error);
          const kind = 'nodes';
          if (this.#warned.has(kind)) return;
          this.#warned.add(kind);
          this.#ctx.warn(
            `could not read the nodes' software versions from the management API (${(error as Error).message}); ` +
              'with auto-upgrade they tell when the upgrade is over: ctl keeps asking',
          );
        },
      )
      .finally(() => {
        this.#nodesAsking = false;
        this.#evaluate();
      });
  }

  #report(message: string): void {
    if (message === this.#lastMessage) return;
    this.#lastMessage = message;
    this.#lastProgressAt = this.#ctx.deps.clock.now();
    this.#touch();
    this.#ctx.progress(message);
  }

  /** Progress: re-arms the stall timer. */
  #touch(): void {
    if (this.#settled) return;
    clearTimeout(this.#stallTimer);
    const { stallTimeoutMs } = this.#ctx.deps.settings;
    this.#stallTimer = setTimeout(() => {
      if (this.#busy) {
        // Remediation reports its own progress (and has its own stall limit): keep waiting.
        this.#touch();
        return;
      }
      this.#failStalled(stallTimeoutMs);
    }, stallTimeoutMs);
  }

  /**
   * No progress for the stall limit. A StatefulSet that cannot create pods (OpenShift SCC
   * admission) says why in its FailedCreate Warning, a real Kubernetes Event: read the
   * StatefulSet's events once, now, and name the refusal.
   */
  #failStalled(stallTimeoutMs: number): void {
    const { name, namespace } = this.#target;
    listCollection<KubeEvent>(
      this.#ctx.deps.kube,
      `/api/v1/namespaces/${namespace}/events`,
      { fieldSelector: `involvedObject.name=${name}` },
      this.#stop.signal,
    )
      .then(
        (list) => list.items,
        () => [],
      )
      .then((events) => {
        const refusal = podCreationRefusal(events);
        const refusalFix = refusal && refusalHint(refusal, this.#serviceAccount(), namespace);
        this.#fail(
          new TimeoutError(
            `the upgrade of ${name} to ${this.#target.tag} made no progress for ${formatDuration(stallTimeoutMs)} (last seen: ${this.#lastMessage ?? 'nothing yet'})` +
              (refusal ? `; the StatefulSet cannot create pods: ${refusal}` : ''),
            { hint: refusalFix ? `${refusalFix} ${this.#lookHint()}` : this.#lookHint() },
          ),
        );
      });
  }

  /** The pods' service account, from the StatefulSet's template (the cluster's name by default). */
  #serviceAccount(): string {
    const name = getPath(this.#sts, ['spec', 'template', 'spec', 'serviceAccountName']);
    return typeof name === 'string' ? name : this.#target.name;
  }

  #lookHint(): string {
    const { name, namespace } = this.#target;
    return (
      `Look at ${kubectl('get', 'rec', name, '-n', namespace)}, ${kubectl('rollout', 'status', `sts/${name}`, '-n', namespace)} ` +
      `and the operator's log: ${kubectl('logs', 'deploy/redis-enterprise-operator', '-n', this.#ctx.deps.snapshot.operator?.namespace ?? namespace)}; ` +
      'once it moves again, run ctl again to resume (or pass a longer --stall-timeout/--timeout).'
    );
  }

  /** Looks for a freeze (./freeze.ts); acts once per distinct set of blockers. */
  #checkFrozen(): void {
    if (this.#busy || this.#settled) return;
    this.#busy = true;
    // Looking is not progress (the stall timer keeps running); remediation's steps are.
    this.#frozenTask = this.#lookForFreeze()
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        this.#busy = false;
        this.#evaluate();
      });
  }

  async #lookForFreeze(): Promise<void> {
    const ctx = this.#ctx;
    const { api, kube, snapshot, plan, clock, settings } = ctx.deps;
    const minimum = minimumDatabaseVersion(plan.target.operator);
    const now = clock.now();
    // A resumed step's first look has no grace: it asks the management API at once.
    const graceMs = this.#resumedLookPending ? 0 : freezeGraceMs(settings.stallTimeoutMs);
    this.#resumedLookPending = false;
    const diagnosis = await diagnoseFreeze(
      {
        kube,
        api,
        snapshot,
        warn: (message) => {
          const kind = message.split(' (')[0] ?? message;
          if (this.#warned.has(kind)) return;
          this.#warned.add(kind);
          ctx.warn(message);
        },
      },
      {
        clusterName: this.#target.name,
        minimumDatabaseVersion: minimum,
        sinceSeconds: (now - this.#logSince) / 1000 + 1,
        stalledMs: now - this.#lastProgressAt,
        graceMs,
      },
    );
    if (this.#settled || !diagnosis) return;
    const { blockers, evidence } = diagnosis;
    const key = blockers.length === 0 ? `none:${evidence.length}` : blockers.map(describeBlocker).join('; ');
    if (key === this.#assessedKey) return;
    this.#assessedKey = key;
    if (blockers.length === 0) {
      await syncRecordedDatabases(this.#innerContext(), this.#remediationContext(), this.remediation);
      if (evidence.length > 0) {
        ctx.warn(
          `the operator's log reports: ${evidence.at(-1)}; the management API shows nothing left to fix, so ctl keeps watching`,
        );
      }
      return;
    }
    await this.#handleFrozen(blockers, evidence);
  }

  async #handleFrozen(blockers: Blocker[], evidence: string[]): Promise<void> {
    const ctx = this.#ctx;
    const { settings } = ctx.deps;
    const context = this.#remediationContext();
    if (!settings.remediate) throw frozenError(blockers, context, evidence);
    ctx.warn(
      `the cluster upgrade is frozen: ${blockers.map(describeBlocker).join('; ')}; remediating (--remediate)`,
    );
    await remediateFrozenUpgrade(this.#innerContext(), blockers, context, this.remediation);
    if (!this.#settled) ctx.progress('remediation done: the operator should resume the rolling upgrade');
  }

  #remediationContext(): RemediationContext {
    const { settings, snapshot } = this.#ctx.deps;
    return {
      clusterName: this.#target.name,
      namespace: this.#target.namespace,
      operatorNamespace: snapshot.operator?.namespace ?? this.#target.namespace,
      fields: dialectFields(snapshot.dialect),
      moduleFiles: settings.moduleFiles,
      targetOperator: this.#ctx.deps.plan.target.operator,
      databaseResources: snapshot.databases.map((db) => ({
        name: db.name,
        namespace: db.namespace,
        uid: db.databaseUid,
      })),
    };
  }

  /** The step's context for remediation: its progress counts as progress, it stops with the follower. */
  #innerContext(): StepContext<UpgradeDeps> {
    const ctx = this.#ctx;
    return {
      ...ctx,
      signal: this.#stop.signal,
      progress: (message, data) => {
        this.#touch();
        ctx.progress(message, data);
      },
      recordIntent: (intent) => ctx.recordIntent(intent),
      warn: (message, data) => ctx.warn(message, data),
    };
  }

  /** After the upgrade: every recorded database upgrade is reflected in its resource. */
  async syncDatabases(): Promise<void> {
    await this.#frozenTask;
    await syncRecordedDatabases(this.#ctx, this.#remediationContext(), this.remediation);
  }

  #failInvalidUpgrade(): void {
    if (this.#busy) return;
    this.#busy = true;
    const { kube, snapshot } = this.#ctx.deps;
    const rec = this.#rec;
    // A fresh list: the warning may be written just after the state.
    listCollection<KubeEvent>(
      kube,
      `/api/v1/namespaces/${this.#target.namespace}/events`,
      { fieldSelector: `involvedObject.name=${this.#target.name}` },
      this.#stop.signal,
    )
      .then(
        (list) => list.items,
        () => [],
      )
      .then((events) => {
        this.#fail(invalidUpgradeError(rec, events, this.#target, snapshot.dialect));
      })
      .finally(() => {
        this.#busy = false;
      });
  }

  #onAbort = (): void => {
    this.#fail(abortReason(this.#ctx.signal));
  };

  #fail(error: unknown): void {
    this.#settle(() => this.#reject(error));
  }

  #settle(outcome: () => void): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#stallTimer);
    clearTimeout(this.#overallTimer);
    clearInterval(this.#freezeTimer);
    clearInterval(this.#nodesTimer);
    this.#ctx.signal.removeEventListener('abort', this.#onAbort);
    this.#stop.abort();
    outcome();
  }
}

function applyOne(
  current: KubeObject | undefined,
  event: CollectionEvent<KubeObject>,
  name: string,
): KubeObject | undefined {
  if (event.type === 'SYNC') return event.objects.find((o) => o.metadata?.name === name);
  if (event.object.metadata?.name !== name) return current;
  return event.type === 'DELETED' ? undefined : event.object;
}

function applyMany<T extends { metadata?: { name?: string; uid?: string } }>(
  map: Map<string, T>,
  event: CollectionEvent<KubeObject>,
): void {
  const keyOf = (o: T): string => o.metadata?.uid ?? o.metadata?.name ?? '';
  if (event.type === 'SYNC') {
    map.clear();
    for (const object of event.objects as unknown as T[]) map.set(keyOf(object), object);
    return;
  }
  const object = event.object as unknown as T;
  if (event.type === 'DELETED') map.delete(keyOf(object));
  else map.set(keyOf(object), object);
}

/** Order of events: their resourceVersion (etcd's revision) when numeric, else their time. */
function order(event: KubeEvent): number {
  const rv = Number(event.metadata?.resourceVersion);
  if (Number.isFinite(rv)) return rv;
  const time =
    event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata?.creationTimestamp;
  return time ? new Date(time).getTime() : 0;
}

/** How often the operator's log and the management API are looked at while the state is Upgrade. */
function freezePollMs(stallTimeoutMs: number): number {
  return Math.min(5000, Math.max(250, Math.round(stallTimeoutMs / 10)));
}

/** Without a word in the log, a rollout still for this long makes ctl ask the management API. */
function freezeGraceMs(stallTimeoutMs: number): number {
  return Math.min(60_000, Math.max(1000, Math.round(stallTimeoutMs / 3)));
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason instanceof Error
    ? signal.reason
    : new DOMException('The operation was aborted', 'AbortError');
}

/** InvalidUpgrade: the operator refused the upgrade; say why (its warnings) and how to fix it. */
export function invalidUpgradeError(
  rec: KubeObject | undefined,
  events: KubeEvent[],
  target: { name: string; namespace: string },
  dialect: UpgradeDeps['snapshot']['dialect'],
): OperationError {
  const fields = dialectFields(dialect);
  const warnings = events
    .filter((e) => e.type === 'Warning')
    .sort((a, b) => order(a) - order(b))
    .slice(-5)
    .map((e) => `  ${oneLine(e.reason ?? 'Warning')}: ${oneLine(e.message ?? '')}`);
  const autoUpgrade = getPath(rec, fields.autoUpgradePath) === true;
  const digest = str(getPath(rec, [...fields.imageSpecPath, 'digestHash']));
  const license = str(getPath(rec, ['status', 'licenseStatus', 'licenseState']));
  const { name, namespace } = target;
  const autoField = fields.autoUpgradePath.slice(1).join('.');
  const digestField = [...fields.imageSpecPath.slice(1), 'digestHash'].join('.');
  let hint: string;
  if (autoUpgrade && digest) {
    hint =
      `${autoField} is true and ${digestField} is set; automatic upgrades cannot use a digest. Turn auto-upgrade off: ` +
      `${kubectlMergePatch('rec', name, namespace, patchAt(fields.autoUpgradePath, false))} ` +
      `or remove the digest: ${kubectlMergePatch('rec', name, namespace, patchAt([...fields.imageSpecPath, 'digestHash'], null))}; then run ctl again.`;
  } else if (license !== undefined && license !== 'Valid') {
    hint = `The cluster license is ${license}: install a valid license (the Secret named in spec.licenseSecretName), then run ctl again.`;
  } else {
    hint = `Read the operator's reason with ${kubectl('describe', 'rec', name, '-n', namespace)}, fix the spec, then run ctl again.`;
  }
  return new OperationError(
    `the operator refused the upgrade of ${name}: state InvalidUpgrade` +
      (warnings.length > 0 ? `\nrecent warnings:\n${warnings.join('\n')}` : ' (no Warning events found)'),
    { hint },
  );
}

/** Best effort: every node reports the target's software version (GET /v1/nodes). */
async function verifyNodes(ctx: StepContext<UpgradeDeps>, tag: string): Promise<string[] | undefined> {
  let nodes: ApiNode[];
  try {
    nodes = await ctx.deps.api.listNodes();
  } catch (error) {
    // Best effort, but not past a certificate that stopped being trusted (docs/exit-codes.md).
    if (findTlsFailure(error)) throw error;
    ctx.warn(
      `could not read the nodes' software versions from the management API: ${(error as Error).message}`,
    );
    return undefined;
  }
  const seen = judgeNodes(nodes, tag);
  if (seen.behind.length > 0) {
    ctx.warn(
      `node${seen.behind.length === 1 ? '' : 's'} ${seen.behind.join(', ')} do${seen.behind.length === 1 ? 'es' : ''} not report ${rsVersionOfTag(tag)} yet`,
    );
  }
  const { versions } = seen;
  return versions;
}

// ---- plan: pure, from the snapshot and the target (the run half re-reads live state)

function planMonitor(context: PlanContext, cluster: ClusterSnapshot): StepPlan {
  const { resolved } = context;
  const tag = resolved.clusterTag.target;
  // On OpenShift, from 7.22.0-6: the SCC goes once the roll is over (src/steps/index.ts).
  const sccRemoval = tag ? planSccAfterRoll(sccPlanInput(context, cluster)) : [];
  if (tag && cluster.image.versionTag === tag && cluster.state === 'Running') {
    if (sccRemoval.length > 0) return { actions: sccRemoval };
    return { skip: `the cluster already runs ${tag}: nothing to wait for` };
  }
  const ns = cluster.namespace;
  return {
    actions: [
      action(
        `Follow the rolling upgrade of the ${cluster.nodes === undefined ? '' : `${cluster.nodes} `}pods (highest ordinal first, one at a time)`,
        kubectl('rollout', 'status', `sts/${cluster.name}`, '-n', ns, '--timeout=60m'),
      ),
      action(
        'Wait for the cluster state to go from Upgrade back to Running',
        `${kubectl('get', 'rec', cluster.name, '-n', ns, '-w')}`,
      ),
      action(
        `Check that every node runs RS ${formatRs(resolved.targetRs)}`,
        `${curlApi('GET', '/v1/nodes')} | jq -r '.[].software_version'`,
      ),
      ...sccRemoval,
    ],
  };
}
