import { randomUUID } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import { LockedError, OperationError } from '../errors.js';
import { safeJson } from '../io/safe-text.js';
import type { KubeClients } from '../kube/client.js';
import { describeKubeError } from '../kube/errors.js';
import { commandFor, DEFAULT_KUBE_TARGET } from '../kube/kube-target.js';
import { resourcePath } from '../kube/rest.js';
import { KUBE_DEADLINES } from '../kube/deadlines.js';
import { LEASE_DELETED, type LeaseLostHints, leaseLostError } from './cluster-lease-lock.js';
import { LeaseRenewalReport, pastRenewDeadline } from './lease-renewal-report.js';
import { describeOwner, type LockOwner } from './lock.js';
import { currentProcess, isGoneHere, isJudgedHere, ownerElsewhere } from './process-identity.js';
import { stateSchema, tooDeepReason, type UpgradeState } from './state.js';
import { JsonTooDeepError, parseJson } from '../json-read.js';
import type { LockView, StateLock, StateStore } from './state-store.js';

/**
 * `--state-store configmap`: the state of one cluster's upgrade in a ConfigMap next to the
 * cluster resource, and the lock as a coordination.k8s.io/v1 Lease, as Kubernetes controllers
 * elect a leader. Any machine with the same cluster access can see, resume or unlock a run:
 * a Job that died on one node, a CI runner that was replaced.
 *
 * - ConfigMap `ctl-upgrade-state-<cluster>`, key `state.json`: the same document as the state
 *   file (src/run/state.ts), never a secret. Every write names the resourceVersion it read,
 *   so a write based on a stale copy fails instead of overwriting a newer one.
 * - Lease `ctl-upgrade-lock-<cluster>`: holderIdentity `<lock id>/<pid>/<host>`, renewed every
 *   third of leaseDurationSeconds while the run lives, one renewal at a time (a renewal that
 *   fails, or is still under way two ticks on, is said once an outage, lease-renewal-report.ts;
 *   the one still under way is then stopped). A renewal that finds the Lease deleted, or held by
 *   another run, ends the renewals: the run stops at its next state write (exit 5).
 *   A lease not renewed for longer than its duration is stale and taken over; so is one whose holder ran on this host, in this PID
 *   namespace, and is gone (a SIGKILLed run on the same machine need not be waited out).
 *   Taking it is a create or an update with the resourceVersion read, so of two runners that
 *   race for it exactly one wins.
 */

export const STATE_KEY = 'state.json';
/**
 * A Lease whose spec.holderIdentity is empty or missing. "If empty, no one owns this lease and all
 * callers may acquire ... This value is set to empty when a client voluntarily steps down"
 * (client-go tools/leaderelection/resourcelock/interface.go, LeaderElectionRecord): a tool that
 * released it, or a hand edit. It holds no lock, so it is taken over at once, and it has no owner
 * to describe (ownerOf would make one up: pid 0 on "unknown", lock id "").
 */
const NO_HOLDER = 'a Lease with no holder';
export const DEFAULT_LEASE_SECONDS = 30;
/**
 * How long releasing the Lease may take in all at the end of a run (a renewal under way is
 * stopped, not waited for): past it the Lease is left to expire by itself. client-go bounds its
 * release by RenewDeadline in a context of its own, after cancelling the renewals' context
 * (tools/leaderelection/leaderelection.go, renew and release, at kubernetes/client-go
 * 32ce75a7d); ctl's is its connect deadline, 10 s, where waiting for the renewal let a credential
 * plugin that hangs hold the run's end up to its 60 s.
 */
export const RELEASE_DEADLINE_MS = KUBE_DEADLINES.connectMs;
const OWNER_ANNOTATION = 'ctl/lock-owner';
const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'ctl' };
const STATE_COMPONENT = 'upgrade-state';

export function stateConfigMapName(cluster: string): string {
  return `ctl-upgrade-state-${cluster}`.slice(0, 253);
}

export function lockLeaseName(cluster: string): string {
  return `ctl-upgrade-lock-${cluster}`.slice(0, 253);
}

export interface ConfigMapStoreOptions {
  kube: KubeClients;
  namespace: string;
  cluster: string;
  leaseDurationSeconds?: number;
  /** Told when a renewal fails or the lease is lost. */
  warn?: (message: string) => void;
  now?: () => number;
  /**
   * What starts the Lease's renewals, every `periodMs` (a third of its duration, 250 ms at the
   * least), and returns what stops them; `renew` resolves when the renewal under way is done (a
   * tick that finds one under way starts none). A seam for
   * the unit test (test/unit/run/lease-renewal.test.ts), which renews when it says and awaits
   * each renewal, where a real interval would make the order of failures a matter of timing;
   * a run uses an unref'd setInterval (renewEvery).
   */
  schedule?: (periodMs: number, renew: () => Promise<void>) => () => void;
  /** RELEASE_DEADLINE_MS, shorter in the unit test. */
  releaseDeadlineMs?: number;
}

/** The renewals of a run: every `periodMs`, not keeping the process alive by themselves. */
function renewEvery(periodMs: number, renew: () => Promise<void>): () => void {
  const timer = setInterval(() => void renew(), periodMs);
  timer.unref();
  return () => clearInterval(timer);
}

export class ConfigMapStateStore implements StateStore {
  readonly kind = 'configmap' as const;
  readonly location: string;
  readonly namespace: string;
  readonly configMapName: string;
  readonly leaseName: string;
  readonly #kube: KubeClients;
  readonly #cluster: string;
  readonly #leaseSeconds: number;
  readonly #warn: (message: string) => void;
  readonly #now: () => number;
  readonly #schedule: (periodMs: number, renew: () => Promise<void>) => () => void;
  readonly #releaseDeadlineMs: number;
  /** The resourceVersion of the ConfigMap as last read or written; undefined: it did not exist. */
  #resourceVersion: string | undefined;
  #loaded = false;
  /** This run's holderIdentity while it holds (or held) the Lease. */
  #identity: string | undefined;
  /** Set when the renewal found another holder, or none (LEASE_DELETED): no state write may follow. */
  #lost: string | undefined;

  constructor(options: ConfigMapStoreOptions) {
    this.#kube = options.kube;
    this.#cluster = options.cluster;
    this.namespace = options.namespace;
    this.configMapName = stateConfigMapName(options.cluster);
    this.leaseName = lockLeaseName(options.cluster);
    this.location = `configmap/${options.namespace}/${this.configMapName}`;
    this.#leaseSeconds = options.leaseDurationSeconds ?? DEFAULT_LEASE_SECONDS;
    this.#warn = options.warn ?? (() => {});
    this.#now = options.now ?? Date.now;
    this.#schedule = options.schedule ?? renewEvery;
    this.#releaseDeadlineMs = options.releaseDeadlineMs ?? RELEASE_DEADLINE_MS;
  }

  /**
   * A command for the person to paste, naming the kubeconfig and context ctl was given
   * (src/kube/kube-target.ts): the state and the Lease are in that cluster, not in whatever the
   * default kubeconfig's current context is by then.
   */
  #command(binary: 'kubectl' | 'ctl', ...words: string[]): string {
    return commandFor(binary, this.#kube.selection ?? DEFAULT_KUBE_TARGET, ...words);
  }

  /**
   * `--cluster` beside `-n`: without it status and unlock find the cluster by the state
   * ConfigMaps in the namespace, and exit 2 where there are several, or none (a run with the file
   * store takes this Lease too, but writes no state ConfigMap).
   */
  ctlCommand(subcommand: 'status' | 'unlock', ...words: string[]): string {
    return this.#command(
      'ctl',
      'upgrade',
      subcommand,
      '--state-store',
      'configmap',
      '-n',
      this.namespace,
      '--cluster',
      this.#cluster,
      ...words,
    );
  }

  #statusCommand(): string {
    return this.ctlCommand('status');
  }

  /** What to do once this run no longer holds the Lease (leaseLostError). */
  #lostHints(): LeaseLostHints {
    return {
      taken: `Another run has taken over this cluster; check it with ${this.#statusCommand()}.`,
      deleted: `Nobody holds the lock now. Check that no other run upgrades this cluster (${this.#statusCommand()}), then run the same command again to resume from the saved state.`,
    };
  }

  async load(): Promise<UpgradeState | undefined> {
    let configMap: k8s.V1ConfigMap;
    try {
      configMap = await this.#kube.rest.get<k8s.V1ConfigMap>(this.#path('configmaps', this.configMapName));
    } catch (error) {
      if (describeKubeError(error).code === 404) {
        this.#resourceVersion = undefined;
        this.#loaded = true;
        return undefined;
      }
      throw this.#kubeFailure('read', 'configmaps', error);
    }
    this.#resourceVersion = configMap.metadata?.resourceVersion;
    this.#loaded = true;
    const text = configMap.data?.[STATE_KEY];
    const problem = text === undefined ? `it has no key ${STATE_KEY}` : parseProblem(text);
    if (typeof problem !== 'string') return problem;
    throw new OperationError(`the ConfigMap ${this.location} is not a valid ctl state: ${problem}`, {
      hint: `Inspect it with ${this.#command('kubectl', 'get', 'configmap', this.configMapName, '-n', this.namespace, '-o', 'yaml')}, then delete it to start over (the cluster itself is re-read on the next run).`,
    });
  }

  /** Who took the Lease from this run while it held it, if anyone (src/run/cluster-lease-lock.ts). */
  lostTo(): string | undefined {
    return this.#lost;
  }

  async save(state: UpgradeState): Promise<UpgradeState> {
    if (this.#lost) throw leaseLostError(this.leaseName, this.#lost, this.#lostHints());
    if (!this.#loaded) await this.#refreshVersion();
    const next: UpgradeState = { ...state, serial: state.serial + 1, updatedAt: new Date().toISOString() };
    const body: k8s.V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: this.configMapName,
        namespace: this.namespace,
        labels: {
          ...MANAGED_BY,
          'app.kubernetes.io/component': STATE_COMPONENT,
          'app.kubernetes.io/instance': this.#cluster,
        },
        ...(this.#resourceVersion ? { resourceVersion: this.#resourceVersion } : {}),
      },
      data: { [STATE_KEY]: `${safeJson(next, 2)}\n` },
    };
    try {
      const written = this.#resourceVersion
        ? await this.#kube.rest.replace<k8s.V1ConfigMap>(this.#path('configmaps', this.configMapName), body)
        : await this.#kube.rest.create<k8s.V1ConfigMap>(this.#path('configmaps'), body);
      this.#resourceVersion = written.metadata?.resourceVersion;
    } catch (error) {
      if (describeKubeError(error).code === 409) {
        // Written by another run: if it has taken the Lease (before this run's renewal noticed),
        // this run lost the lock, exit 5 naming the holder (docs/exit-codes.md), not a failure.
        const holder = await this.#otherHolder().catch(() => undefined);
        if (holder) {
          this.#lost = holder;
          throw leaseLostError(this.leaseName, holder, this.#lostHints());
        }
        throw new OperationError(
          `the state in ${this.location} was changed by someone else during this run`,
          {
            hint: `Check who else upgrades this cluster (${this.#statusCommand()}), then run again to resume from the saved state.`,
            cause: error,
          },
        );
      }
      throw this.#kubeFailure('write', 'configmaps', error);
    }
    return next;
  }

  async lock(operation: string, given?: LockOwner): Promise<StateLock> {
    const owner = given ?? newOwner(operation);
    const identity = holderIdentityOf(owner);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const current = await this.#readLease();
      const now = this.#now();
      if (current) {
        const view = this.#view(current, now);
        if (!view.lease?.stale) {
          throw new LockedError(
            `another upgrade of this cluster is running: ${describeOwner(view.owner)} (Lease ${this.namespace}/${this.leaseName}, renewed ${view.lease?.renewTime ?? 'never'})`,
            { hint: this.#heldLeaseHint(view.owner, current) },
          );
        }
      }
      const body = this.#leaseBody(owner, identity, now, current);
      try {
        const written = current
          ? await this.#kube.rest.replace<Lease>(this.#path('leases', this.leaseName), body)
          : await this.#kube.rest.create<Lease>(this.#path('leases'), body);
        if (current) {
          this.#warn(
            current.spec?.holderIdentity
              ? `took over the stale lock of ${describeOwner(this.#view(current, now).owner)}`
              : `took over the Lease ${this.namespace}/${this.leaseName}: ${NO_HOLDER}`,
          );
        }
        return this.#held(owner, identity, written);
      } catch (error) {
        // Another runner created or updated it since it was read: read again and judge again.
        if (describeKubeError(error).code === 409) continue;
        throw this.#kubeFailure('write', 'leases.coordination.k8s.io', error);
      }
    }
    throw new LockedError(
      `could not take the Lease ${this.namespace}/${this.leaseName}: other runs keep taking it`,
      {
        hint: 'Make sure only one ctl upgrade runs for this cluster, then try again.',
      },
    );
  }

  /** The lock held, if any: a Lease with no holder holds none (NO_HOLDER). */
  async readLock(): Promise<LockView | undefined> {
    const lease = await this.#readLease();
    return lease?.spec?.holderIdentity ? this.#view(lease, this.#now()) : undefined;
  }

  async forceUnlock(options: { id?: string | undefined; force?: boolean }): Promise<LockOwner | undefined> {
    const lease = await this.#readLease();
    if (!lease) return undefined;
    if (!lease.spec?.holderIdentity) {
      // Nobody holds it, whatever --lock-id names: removed, and said as no lock held (NO_HOLDER).
      await this.#deleteLease(lease.metadata?.resourceVersion);
      return undefined;
    }
    const view = this.#view(lease, this.#now());
    if (options.id !== undefined && options.id !== view.owner.id) {
      throw new OperationError(`the lock is held by ${view.owner.id}, not ${options.id}`, {
        hint: `Check the id with: ${this.#statusCommand()}. The lock: ${describeOwner(view.owner)}`,
      });
    }
    if (!view.lease?.stale && !options.force) {
      const seconds = this.#leaseSecondsOf(lease);
      // Judged here, its process runs now; elsewhere, only its renewals say it lives.
      const stop = isJudgedHere(view.owner, 'other')
        ? 'Stop that run first (Ctrl-C saves its state and releases the Lease)'
        : `ctl cannot tell from here whether it still runs (it was started ${ownerElsewhere(view.owner)}): if it does, stop it there first (Ctrl-C saves its state and releases the Lease); if it is gone, its Lease expires ${seconds} s after its last renewal and the next run takes it over`;
      throw new LockedError(
        `the lock is held by a live run: ${describeOwner(view.owner)}, renewed ${view.lease?.renewTime ?? 'never'}`,
        {
          hint: `${stop}. Pass --force only once you are sure it is not running.`,
        },
      );
    }
    // 409: it changed since it was read (renewed or taken over): not ours to delete any more.
    await this.#deleteLease(lease.metadata?.resourceVersion);
    return view.owner;
  }

  /**
   * What to do about a Lease another run holds and renews. A holder judged here (this host, this
   * PID namespace) runs now: once it is gone its Lease is stale at once, and unlock removes it
   * without --force. A holder elsewhere is judged by its renewals alone: unlock refuses it
   * without --force until the Lease expires, when the next run takes it over anyway.
   */
  #heldLeaseHint(owner: LockOwner, lease: Lease): string {
    const seconds = this.#leaseSecondsOf(lease);
    // ctlCommand names --cluster: without it unlock finds the cluster by its state ConfigMap,
    // which a run with the file store (it takes this Lease too) never wrote: it would exit 2.
    const unlock = (...force: string[]) => this.ctlCommand('unlock', '--lock-id', owner.id, ...force);
    if (isJudgedHere(owner, 'other')) {
      return `Wait for it to finish; its lease expires ${seconds} s after its last renewal if it is gone. If it is gone for good, run: ${unlock()}`;
    }
    return `Wait for it to finish: if it is gone, its Lease expires ${seconds} s after its last renewal and the next run takes it over. ctl cannot tell from here whether it still runs (it was started ${ownerElsewhere(owner)}); to remove the lock sooner, once you are sure it is not running there, run: ${unlock('--force')}`;
  }

  /** Who holds the Lease when this run held it and no longer does; undefined otherwise. */
  async #otherHolder(): Promise<string | undefined> {
    if (this.#identity === undefined) return undefined;
    const current = await this.#readLease();
    if (!current) return LEASE_DELETED;
    if (current.spec?.holderIdentity === this.#identity) return undefined;
    return this.#holderOf(current);
  }

  /** Who holds `lease`, as a lost lock names it. */
  #holderOf(lease: Lease): string {
    return lease.spec?.holderIdentity
      ? describeOwner(this.#view(lease, this.#now()).owner)
      : 'nobody (the Lease was released or deleted)';
  }

  #held(owner: LockOwner, identity: string, written: Lease): StateLock {
    this.#identity = identity;
    let renewing: Promise<void> = Promise.resolve();
    let stopped = false;
    const period = Math.max(250, Math.floor((this.#leaseSecondsOf(written) * 1000) / 3));
    // A failure with the same cause is said once an outage, not at every tick (lease-renewal-report.ts).
    const report = new LeaseRenewalReport(this.leaseName, this.#leaseSecondsOf(written), period, this.#now());
    const say = (line: string | undefined): void => {
      if (line !== undefined) this.#warn(line);
    };
    const lost = (warning: string): void => {
      this.#warn(warning);
      stopped = true;
      stop();
    };
    // Deleted while this run held it: nobody holds the lock, and the run does not take it again
    // (LEASE_DELETED says why); it stops at its next state write, as when it is taken over.
    const deleted = (): void => {
      this.#lost = LEASE_DELETED;
      lost(
        `this run lost the upgrade lock: its Lease ${this.namespace}/${this.leaseName} was deleted while it held it (ctl upgrade unlock --state-store configmap, or kubectl delete lease). It renews it no more and stops at its next state write (exit 5); then check that no other run upgrades this cluster, and run the same command again to resume.`,
      );
    };
    // `signal`: this run stopped the renewal (past its deadline, or the release): its outcome is
    // not a failure to say, nor a loss (the release reads the Lease again).
    const renew = async (signal: AbortSignal): Promise<void> => {
      try {
        const current = await this.#readLease(signal);
        if (signal.aborted) return;
        if (!current) return deleted();
        if (current.spec?.holderIdentity !== identity) {
          this.#lost = this.#holderOf(current);
          return lost(`this run lost the upgrade lock to ${this.#lost}`);
        }
        await this.#kube.rest.replace<Lease>(
          this.#path('leases', this.leaseName),
          {
            ...current,
            spec: {
              ...current.spec,
              // Sent back in the API's MicroTime form (6 digits), which a real API server requires.
              acquireTime: microTime((timeOf(current.spec?.acquireTime) ?? new Date()).getTime()),
              renewTime: microTime(this.#now()),
            },
          },
          { signal },
        );
        say(report.renewed(this.#now()));
      } catch (error) {
        if (signal.aborted) return;
        // A conflict means someone touched it since it was read; the next tick reads it again.
        // The cause as the request gave it: a failed read comes wrapped (#kubeFailure) and a
        // failed update not, and the same outage must read as the same cause in either.
        const info = describeKubeError(
          error instanceof OperationError && error.cause !== undefined ? error.cause : error,
        );
        // Deleted between the read and the update: the update finds no Lease to replace.
        if (info.code === 404) return deleted();
        if (info.code !== 409) say(report.failed(info.message, this.#now()));
      }
    };
    // One renewal at a time: a tick that finds one under way (its credential plugin hangs, up to
    // its 60 s) starts none, and judges it (lease-renewal-report.ts pending): chained behind it,
    // the ticks' renewals each waited for the same plugin, then ran back to back, and the Lease's
    // loss was said a minute or more late. Past its deadline it counts as failed and is stopped
    // (its request aborted, credential wait included), so the next tick sends another and the
    // stopped one holds nothing more. A tick's promise is the renewal under way, its own or the
    // one it found.
    let inFlight: { startedAt: number; ticks: number; controller: AbortController } | undefined;
    let stoppedOne = false;
    const stop = this.#schedule(period, () => {
      if (stopped) return renewing;
      const now = this.#now();
      if (inFlight) {
        inFlight.ticks += 1;
        say(report.pending(inFlight.startedAt, now, inFlight.ticks));
        if (pastRenewDeadline(inFlight.startedAt, now, inFlight.ticks)) {
          inFlight.controller.abort(new Error('the renewal passed its deadline'));
          inFlight = undefined;
          stoppedOne = true;
        }
        return renewing;
      }
      if (stoppedOne) say(report.overdue(now));
      stoppedOne = false;
      const attempt = { startedAt: now, ticks: 0, controller: new AbortController() };
      inFlight = attempt;
      renewing = renew(attempt.controller.signal).finally(() => {
        if (inFlight === attempt) inFlight = undefined;
      });
      return renewing;
    });
    return {
      owner,
      release: async () => {
        stopped = true;
        stop();
        // The renewal under way is stopped, not waited for (a credential plugin that hangs held
        // the run's end up to its 60 s); the release itself is bounded as a whole.
        inFlight?.controller.abort(new Error('the Lease is being released'));
        inFlight = undefined;
        await this.#release(identity, renewing);
      },
    };
  }

  /**
   * Deletes the Lease if this run still holds it, within #releaseDeadlineMs; past it, or when
   * it fails, says it expires by itself. `renewing`, the renewal just stopped, ends first (its
   * request was aborted), so that its update, were it to land, is seen by the read. A delete
   * that meets a newer version still held by this run (that update, landed after the read) is
   * tried again, as client-go's tryRelease retries on a conflict.
   */
  async #release(identity: string, renewing: Promise<void>): Promise<void> {
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new Error('the release passed its deadline')),
      this.#releaseDeadlineMs,
    );
    const passed = new Promise<void>((resolve) => deadline.signal.addEventListener('abort', () => resolve()));
    try {
      await Promise.race([renewing, passed]);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const current = await this.#readLease(deadline.signal);
        if (current?.spec?.holderIdentity !== identity) return;
        if ((await this.#deleteLease(current.metadata?.resourceVersion, deadline.signal)) === 'deleted')
          return;
      }
    } catch (error) {
      const cause = deadline.signal.aborted
        ? `no answer within ${this.#releaseDeadlineMs / 1000} s (the kubeconfig's credential plugin or the API server is slow)`
        : describeKubeError(
            error instanceof OperationError && error.cause !== undefined ? error.cause : error,
          ).message;
      this.#warn(`could not release the Lease ${this.leaseName}: ${cause}; it expires by itself`);
    } finally {
      clearTimeout(timer);
      deadline.abort();
    }
  }

  #leaseBody(owner: LockOwner, identity: string, now: number, current: Lease | undefined): Lease {
    const transitions = current?.spec?.leaseTransitions ?? 0;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.leaseName,
        namespace: this.namespace,
        labels: {
          ...MANAGED_BY,
          'app.kubernetes.io/component': 'upgrade-lock',
          'app.kubernetes.io/instance': this.#cluster,
        },
        annotations: { [OWNER_ANNOTATION]: JSON.stringify(owner) },
        ...(current?.metadata?.resourceVersion ? { resourceVersion: current.metadata.resourceVersion } : {}),
      },
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds: this.#leaseSeconds,
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: current ? transitions + 1 : 0,
      },
    };
  }

  #view(lease: Lease, now: number): LockView {
    const owner = ownerOf(lease);
    const renewed = timeOf(lease.spec?.renewTime) ?? timeOf(lease.spec?.acquireTime);
    const seconds = this.#leaseSecondsOf(lease);
    const expired = renewed === undefined || now - renewed.getTime() > seconds * 1000;
    const stale = !lease.spec?.holderIdentity || expired || ownerIsGoneHere(owner);
    return {
      owner,
      lease: {
        name: this.leaseName,
        renewTime: renewed?.toISOString(),
        leaseDurationSeconds: seconds,
        stale,
      },
    };
  }

  #leaseSecondsOf(lease: Lease): number {
    return lease.spec?.leaseDurationSeconds ?? this.#leaseSeconds;
  }

  async #readLease(signal?: AbortSignal): Promise<Lease | undefined> {
    try {
      return await this.#kube.rest.get<Lease>(this.#path('leases', this.leaseName), undefined, { signal });
    } catch (error) {
      if (describeKubeError(error).code === 404) return undefined;
      throw this.#kubeFailure('read', 'leases.coordination.k8s.io', error);
    }
  }

  /**
   * Deletes the Lease as of `resourceVersion`: 'deleted' (or gone already), or 'changed' when it
   * changed since it was read (409: renewed, or taken over), which the caller judges.
   */
  async #deleteLease(
    resourceVersion: string | undefined,
    signal?: AbortSignal,
  ): Promise<'deleted' | 'changed'> {
    try {
      await this.#kube.rest.delete(
        this.#path('leases', this.leaseName),
        resourceVersion ? { preconditions: { resourceVersion } } : {},
        { signal },
      );
      return 'deleted';
    } catch (error) {
      const code = describeKubeError(error).code;
      if (code === 404) return 'deleted';
      if (code === 409) return 'changed';
      throw this.#kubeFailure('delete', 'leases.coordination.k8s.io', error);
    }
  }

  async #refreshVersion(): Promise<void> {
    await this.load().catch(() => undefined);
  }

  /** A ConfigMap or Lease of this store's namespace (or their collection, without a name). */
  #path(plural: 'configmaps' | 'leases', name?: string): string {
    return plural === 'configmaps'
      ? resourcePath('', 'v1', plural, this.namespace, name)
      : resourcePath('coordination.k8s.io', 'v1', plural, this.namespace, name);
  }

  #kubeFailure(verb: string, resource: string, error: unknown): OperationError {
    const info = describeKubeError(error);
    const hint =
      info.code === 403
        ? `ctl needs get, list, create, update and delete on ${resource} in namespace ${this.namespace} for --state-store configmap (or use --state-store file).`
        : 'Check the connection to the cluster, then run again: the state saved so far is kept.';
    return new OperationError(`cannot ${verb} ${resource} in namespace ${this.namespace}: ${info.message}`, {
      hint,
      cause: error,
    });
  }
}

/** The ConfigMaps of ctl state in a namespace, for `status` without --cluster. */
export async function listStateConfigMaps(kube: KubeClients, namespace: string): Promise<string[]> {
  try {
    const list = await kube.rest.get<k8s.V1ConfigMapList | undefined>(
      resourcePath('', 'v1', 'configmaps', namespace),
      { labelSelector: `app.kubernetes.io/managed-by=ctl,app.kubernetes.io/component=${STATE_COMPONENT}` },
    );
    return (list?.items ?? [])
      .map((item) => item.metadata?.labels?.['app.kubernetes.io/instance'] ?? '')
      .filter((cluster) => cluster !== '')
      .sort();
  } catch (error) {
    throw new OperationError(
      `cannot list configmaps in namespace ${namespace}: ${describeKubeError(error).message}`,
      {
        hint: 'Pass --cluster NAME to name the cluster whose upgrade state to read.',
        cause: error,
      },
    );
  }
}

function parseProblem(text: string): UpgradeState | string {
  let json: unknown;
  try {
    json = parseJson(text, 'the state');
  } catch (error) {
    if (error instanceof JsonTooDeepError) return tooDeepReason();
    return `it is not JSON (${(error as Error).message})`;
  }
  const parsed = stateSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  const where = first?.path.length ? first.path.join('.') : 'the document';
  return `${where}: ${first?.message ?? 'does not match the schema'}`;
}

type LeaseOwner = LockOwner;

function newOwner(operation: string): LeaseOwner {
  return {
    id: randomUUID(),
    ...currentProcess(),
    operation,
    createdAt: new Date().toISOString(),
  };
}

/** `<lock id>/<pid>/<host>`: readable in `kubectl get lease`, unique per run. */
function holderIdentityOf(owner: LockOwner): string {
  return `${owner.id}/${owner.pid}/${owner.host}`;
}

/** The owner from the annotation ctl writes, else what holderIdentity says (another tool's lease). */
function ownerOf(lease: Lease): LeaseOwner {
  const annotation = lease.metadata?.annotations?.[OWNER_ANNOTATION];
  if (annotation) {
    try {
      // Anyone who may update the Lease writes it: read within the depth bound (src/json-read.ts).
      const parsed = parseJson(annotation, `the Lease's ${OWNER_ANNOTATION}`) as LeaseOwner;
      if (typeof parsed.id === 'string' && typeof parsed.pid === 'number') return parsed;
    } catch {
      // Fall through to holderIdentity.
    }
  }
  const identity = lease.spec?.holderIdentity ?? '';
  const [id = identity, pid = '0', ...host] = identity.split('/');
  return {
    id,
    pid: Number(pid) || 0,
    host: host.join('/') || 'unknown',
    user: 'unknown',
    operation: 'unknown',
    createdAt: timeOf(lease.spec?.acquireTime)?.toISOString() ?? 'unknown',
  };
}

/**
 * The holder ran on this host, in this PID namespace, and its process is gone (or its pid was
 * reused): a run killed here. Another host or container is judged by the lease's age alone.
 */
function ownerIsGoneHere(owner: LeaseOwner): boolean {
  return isGoneHere(owner, 'other');
}

/** A coordination.k8s.io/v1 Lease as JSON, with its times in the API's MicroTime form. */
interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata?: k8s.V1ObjectMeta;
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** The API's MicroTime (RFC 3339 with 6 digits of fraction), as client-node's V1MicroTime writes it. */
function microTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

function timeOf(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
  if (typeof value !== 'string' || value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
