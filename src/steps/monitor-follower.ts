/**
 * The follower of a rolling upgrade: it watches the cluster resource (state, versionTag), its
 * StatefulSet (replicas, revisions, generation) and the StatefulSet's pods, judges each new view
 * of them (./monitor-view.ts), reports the progress line when it changes, and decides when the
 * wait ends: done (the view says so), failed (InvalidUpgrade, the cluster resource deleted, a
 * frozen upgrade without --remediate, too many databases down, a licence that is not Valid and
 * a roll that does not begin within a minute), or timed out (no progress for --stall-timeout, or the whole
 * --timeout: ./monitor-failures.ts says what to do then).
 *
 * What has no watch is looked at every few seconds (./monitor-timing.ts): the operator's log and
 * the management API while the state is Upgrade (./monitor-frozen.ts), and with auto-upgrade the
 * nodes' versions once the pods are done. Every judgement is made from the live objects, so a
 * resumed step that finds the cluster at the target completes at once.
 */

import { MalformedAnswerError } from '../api/api-errors.js';
import { findTlsFailure } from '../api/tls-errors.js';
import { judgeNodes } from './roll-facts.js';
import { type DialectFields, dialectFields } from '../release/dialect.js';
import { OperationError } from '../errors.js';
import { CLUSTER_RESOURCE, type KubeObject } from '../kube/reads.js';
import { type CollectionEvent, formatDuration, type WaitWarning, watchCollection } from '../kube/watch.js';
import type { UpgradeDeps } from './deps.js';
import { type Remediation, syncRecordedDatabases } from './remediate.js';
import type { StepContext } from '../run/step.js';
import { getPath, str } from '../json-read.js';
import { FreezeWatch, remediationContextOf } from './monitor-frozen.js';
import { freezePollMs, licenceGraceMs } from './monitor-timing.js';
import {
  eventsAbout,
  invalidUpgradeError,
  licenceNotValid,
  licenceStopError,
  overallTimeoutError,
  stalledError,
} from './monitor-failures.js';
import {
  describeImagePullFailure,
  type ImagePullFailure,
  imagePullFailure,
  imagePullHint,
} from './monitor-image-pull.js';
import { type NodesSeen, judge, podSelectorOf, type Target, type View } from './monitor-view.js';
import { applyMany, applyOne } from './monitor-watch-apply.js';
import { kubectl } from '../planning/equivalent-commands.js';
import { stepWaitWarning } from './wait-warnings.js';

export class UpgradeFollower {
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
  /** When the rollout last moved. */
  #lastProgressAt: number;
  /** Looks for a freeze and acts on it (./monitor-frozen.ts). */
  readonly #freeze: FreezeWatch;
  #freezeTimer: NodeJS.Timeout | undefined;
  /** Trouble reading the log or the API is said once, not on every look. */
  readonly #warned = new Set<string>();
  /** The watches' warnings, once a step for each cause. */
  readonly #waitWarning: WaitWarning;
  #podSelector: string | undefined;
  #lastMessage: string | undefined;
  #stallTimer: NodeJS.Timeout | undefined;
  /** Armed while the licence is not Valid: no progress for the licence grace ends the wait. */
  #licenceTimer: NodeJS.Timeout | undefined;
  #overallTimer: NodeJS.Timeout | undefined;
  #settled = false;
  #busy = false;
  /** The running assessment or remediation of a freeze. */
  #frozenTask: Promise<void> = Promise.resolve();
  #resolve: (view: View) => void = () => {};
  #reject: (error: unknown) => void = () => {};

  constructor(ctx: StepContext<UpgradeDeps>, target: Target) {
    this.#ctx = ctx;
    this.#target = target;
    this.#fields = dialectFields(ctx.deps.snapshot.dialect);
    this.#waitWarning = stepWaitWarning(ctx);
    const startedAt = ctx.deps.clock.now();
    this.#lastProgressAt = startedAt;
    const earlier = ctx.previous?.intent?.remediation;
    this.remediation = { actions: Array.isArray(earlier) ? [...(earlier as Record<string, unknown>[])] : [] };
    this.#freeze = new FreezeWatch(ctx, target, this.remediation, startedAt, {
      settled: () => this.#settled,
      lastProgressAt: () => this.#lastProgressAt,
      touch: () => this.#touch(),
      warnOnce: (kind, message) => this.#warnOnce(kind, message),
      signal: this.#stop.signal,
    });
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
          overallTimeoutError(
            this.#target,
            settings.timeoutMs,
            this.#lastMessage,
            this.#operatorNamespace(),
            this.#ctx.deps.snapshot.kubeTarget,
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

  #operatorNamespace(): string {
    return this.#ctx.deps.snapshot.operator?.namespace ?? this.#target.namespace;
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
      // The three watches meet the same failing plugin: said once a step (wait-warnings.ts).
      onWarning: (message, cause) => {
        if (!this.#settled) this.#waitWarning(message, cause);
      },
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
          hint: `Check ${kubectl(this.#ctx.deps.snapshot.kubeTarget, 'get', 'rec', '-n', this.#target.namespace)}.`,
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
    // Said at once, not only when the stall limit ends the wait: the pod will not start by itself.
    const pull = this.#pullFailure();
    if (pull) {
      this.#warnOnce(
        `image-pull ${pull.failure.image}`,
        `${describeImagePullFailure(pull.failure)}: the roll waits at that pod. ${imagePullHint(pull.failure, this.#target, pull.fields, this.#ctx.deps.snapshot.kubeTarget, true)}`,
      );
    }
    this.#report(view.message);
    this.#watchLicence(view.rollStarted);
  }

  /**
   * A licence that is not Valid before the operator has begun the roll (the pod template is not
   * at the target): said once, and the wait ends when nothing moves for the licence grace
   * (./monitor-timing.ts) rather than after the whole --stall-timeout. Once the roll has begun a
   * pod may take minutes to restart, and the stall limit alone judges it; a licence that becomes
   * Valid again disarms the grace too. Progress re-arms it (#touch).
   */
  #watchLicence(rollStarted: boolean): void {
    const licence = licenceNotValid(this.#rec);
    if (licence === undefined || rollStarted) {
      clearTimeout(this.#licenceTimer);
      this.#licenceTimer = undefined;
      return;
    }
    if (this.#licenceTimer !== undefined) return;
    const graceMs = licenceGraceMs(this.#ctx.deps.settings.stallTimeoutMs);
    this.#warnOnce(
      'licence',
      `the cluster's licence is ${licence} (status.licenseStatus.licenseState): the operator does not upgrade a cluster without a valid licence; ctl stops if the upgrade does not begin within ${formatDuration(graceMs)}`,
    );
    this.#armLicence();
  }

  #armLicence(): void {
    clearTimeout(this.#licenceTimer);
    const graceMs = licenceGraceMs(this.#ctx.deps.settings.stallTimeoutMs);
    this.#licenceTimer = setTimeout(() => {
      const licence = licenceNotValid(this.#rec);
      if (this.#settled || licence === undefined) return;
      // #evaluate disarms it once the roll begins; a timer already due is judged on its own.
      // Remediation of a freeze reports its own progress: its work is not the licence's stall.
      if (this.#busy) return this.#armLicence();
      const { snapshot } = this.#ctx.deps;
      this.#fail(
        licenceStopError(this.#target, licence, this.#rec, graceMs, snapshot.cluster, snapshot.kubeTarget),
      );
    }, graceMs);
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
          // Nor is an answer that is not the management API's (a node's status of another type,
          // a uid listed twice: src/api/node-shape.ts): asking again gets the same answer, and
          // the nodes are what tells the end of this roll. Exit 1 naming the node and field.
          if (error instanceof MalformedAnswerError) return this.#fail(error);
          this.#warnOnce(
            'nodes',
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

  #warnOnce(kind: string, message: string): void {
    if (this.#warned.has(kind)) return;
    this.#warned.add(kind);
    this.#ctx.warn(message);
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
    if (this.#licenceTimer !== undefined) this.#armLicence();
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

  /** No progress for the stall limit: fail with the StatefulSet's refusal to create pods, if any. */
  #failStalled(stallTimeoutMs: number): void {
    eventsAbout(this.#ctx.deps.kube, this.#target, this.#stop.signal).then((events) => {
      this.#fail(
        stalledError(
          this.#target,
          stallTimeoutMs,
          this.#lastMessage,
          events,
          this.#sts,
          this.#operatorNamespace(),
          this.#ctx.deps.snapshot.kubeTarget,
          this.#pullFailure(),
        ),
      );
    });
  }

  /** A pod of the roll waiting on an image it cannot pull, with the dialect's field names. */
  #pullFailure(): { failure: ImagePullFailure; fields: DialectFields } | undefined {
    const failure = imagePullFailure(this.#pods.values());
    return failure && { failure, fields: this.#fields };
  }

  /** Looks for a freeze (./monitor-frozen.ts); acts once per distinct set of blockers. */
  #checkFrozen(): void {
    if (this.#busy || this.#settled) return;
    this.#busy = true;
    // Looking is not progress (the stall timer keeps running); remediation's steps are.
    this.#frozenTask = this.#freeze
      .look()
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        this.#busy = false;
        this.#evaluate();
      });
  }

  /** After the upgrade: every recorded database upgrade is reflected in its resource. */
  async syncDatabases(): Promise<void> {
    await this.#frozenTask;
    await syncRecordedDatabases(
      this.#ctx,
      remediationContextOf(this.#ctx.deps, this.#target),
      this.remediation,
    );
  }

  #failInvalidUpgrade(): void {
    if (this.#busy) return;
    this.#busy = true;
    const { kube, snapshot } = this.#ctx.deps;
    const rec = this.#rec;
    // A fresh list: the warning may be written just after the state.
    eventsAbout(kube, this.#target, this.#stop.signal)
      .then((events) => {
        this.#fail(
          invalidUpgradeError(
            rec,
            events,
            this.#target,
            snapshot.dialect,
            snapshot.kubeTarget,
            snapshot.cluster,
          ),
        );
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
    clearTimeout(this.#licenceTimer);
    clearTimeout(this.#overallTimer);
    clearInterval(this.#freezeTimer);
    clearInterval(this.#nodesTimer);
    this.#ctx.signal.removeEventListener('abort', this.#onAbort);
    this.#stop.abort();
    outcome();
  }
}

/** Why the step stops on the run's signal: its own reason when it is an Error, else the standard AbortError. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason instanceof Error
    ? signal.reason
    : new DOMException('The operation was aborted', 'AbortError');
}
