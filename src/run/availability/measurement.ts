/**
 * The run's measurement of database availability (CLI.md `--max-unavailable`, the result's
 * `availability`): polls through the monitor and databases steps (./poller.ts) and records each
 * database's outages (./ledger.ts) with the pod that was restarting, within a request rate it
 * states; says when an outage is longer than the limit, at the run's safe points.
 *
 * Load on the management API: at most RATE_PER_SECOND requests a second whatever the number of
 * databases (a round every ROUND_MS; each database's availability when they fit, else the shard
 * list plus confirmations), at most CONCURRENCY at once. The monitor's own reads come on top
 * (a few a minute).
 */

import { AvailabilityLimitError } from '../../errors.js';
import { isPodReady } from '../../kube/pod-ready.js';
import { formatDuration } from '../../kube/watch.js';
import type { KubeObject } from '../../kube/reads.js';
import {
  type AvailabilityEntry,
  AvailabilityLedger,
  type DatabaseRecord,
  unmeasuredEntry,
} from './ledger.js';
import { type AvailabilityApi, AvailabilityPoller, Pacer, type PollClock } from './poller.js';

/** The measurement's request rate to the management API, and how often it looks. */
export const RATE_PER_SECOND = 15;
export const ROUND_MS = 500;
const CONCURRENCY = 4;
const REQUEST_TIMEOUT_MS = 3000;

/** What the state file keeps between runs (so a resumed run keeps what it measured). */
export interface AvailabilityState {
  records: DatabaseRecord[];
  /** Outages (`<uid>@<start ms>`) that already stopped a run: a resume goes on past them. */
  acknowledged: string[];
  /** Databases that could not be measured, and why. */
  unmeasured?: { uid: number; namespace: string; name: string; why: string }[];
}

export interface MeasuredDatabase {
  uid: number;
  namespace: string;
  name: string;
}

export interface MeasurementOptions {
  api: AvailabilityApi;
  clock: PollClock;
  databases: readonly MeasuredDatabase[];
  /** Databases known but not measurable (no uid: the management API was not read). */
  unmeasured?: readonly (Omit<MeasuredDatabase, 'uid'> & { why: string })[];
  /** `--max-unavailable` in ms; undefined: measure and report, never stop. */
  maxUnavailableMs?: number | undefined;
  /** Under OnDelete the safe point is before the next pod (the monitor asks at each pod's end). */
  onDelete: boolean;
  restored?: unknown;
  ratePerSecond?: number;
}

export class AvailabilityMeasurement {
  readonly #o: MeasurementOptions;
  readonly #ledger: AvailabilityLedger;
  readonly #poller: AvailabilityPoller;
  readonly #acknowledged: Set<string>;
  readonly #unmeasured: NonNullable<AvailabilityState['unmeasured']>;
  #loop: Promise<void> | undefined;
  #stop: AbortController | undefined;
  /** Pods ever seen, and which one is restarting now (not ready, or gone). */
  readonly #podsKnown = new Set<string>();
  #restarting: string | null = null;
  /** Pods seen not ready: when one is ready again a restart has ended (a safe point under OnDelete). */
  readonly #notReady = new Set<string>();

  constructor(options: MeasurementOptions) {
    this.#o = options;
    const restored = parseState(options.restored);
    this.#ledger = new AvailabilityLedger(restored?.records ?? []);
    for (const database of options.databases) this.#ledger.track(database);
    this.#acknowledged = new Set(restored?.acknowledged ?? []);
    const measuredUids = new Set(this.#ledger.tracked().map((record) => record.uid));
    // One entry per database: a resumed run's own reasons replace the earlier run's.
    const unmeasured = new Map<string, NonNullable<AvailabilityState['unmeasured']>[number]>();
    for (const db of [
      ...(restored?.unmeasured ?? []).filter((db) => !measuredUids.has(db.uid)),
      ...(options.unmeasured ?? []).map((db) => ({ ...db, uid: 0 })),
    ])
      unmeasured.set(`${db.namespace}/${db.name}`, db);
    this.#unmeasured = [...unmeasured.values()];
    const rate = options.ratePerSecond ?? RATE_PER_SECOND;
    this.#poller = new AvailabilityPoller({
      api: options.api,
      clock: options.clock,
      pacer: new Pacer(rate, options.clock),
      budget: Math.max(1, Math.floor((rate * ROUND_MS) / 1000)),
      concurrency: CONCURRENCY,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
  }

  get running(): boolean {
    return this.#loop !== undefined;
  }

  /** Starts polling (again), unless it runs already. */
  start(): void {
    if (this.#loop || this.#o.databases.length === 0) return;
    const stop = new AbortController();
    this.#stop = stop;
    this.#loop = this.#poll(stop.signal);
  }

  /** Stops polling; the time since the last answer is counted as what it saw. */
  async stop(): Promise<void> {
    this.#stop?.abort();
    await this.#loop;
    this.#loop = undefined;
    this.#stop = undefined;
    this.#ledger.pause(this.#o.clock.now());
  }

  async #poll(signal: AbortSignal): Promise<void> {
    const uids = this.#o.databases.map((db) => db.uid);
    while (!signal.aborted) {
      const started = this.#o.clock.now();
      const { samples } = await this.#poller.round(uids, signal);
      if (signal.aborted) break;
      for (const [uid, sample] of samples) this.#ledger.sample(uid, sample.at, sample.seen, this.#restarting);
      const wait = started + ROUND_MS - this.#o.clock.now();
      if (wait > 0) await this.#o.clock.sleep(wait, signal).catch(() => undefined);
    }
  }

  /**
   * The monitor's view of the cluster's pods: which one is restarting (not ready, or gone), so
   * an outage names it. Under OnDelete, the end of a pod's restart is a safe point: returns the
   * error that stops the run when an outage was too long.
   */
  podsSeen(pods: Iterable<KubeObject>): AvailabilityLimitError | undefined {
    const present = new Map<string, boolean>();
    for (const pod of pods) {
      const name = pod.metadata?.name;
      if (!name) continue;
      const deleting = Boolean((pod.metadata as { deletionTimestamp?: string }).deletionTimestamp);
      present.set(name, isPodReady(pod) && !deleting);
    }
    let restarting: string | null = null;
    let restartEnded = false;
    for (const [name, ready] of present) {
      this.#podsKnown.add(name);
      if (!ready) {
        restarting ??= name;
        this.#notReady.add(name);
      } else if (this.#notReady.delete(name)) {
        restartEnded = true;
      }
    }
    for (const name of this.#podsKnown) {
      if (!present.has(name)) {
        restarting ??= name;
        this.#notReady.add(name);
      }
    }
    this.#restarting = restarting;
    if (this.#o.onDelete && restartEnded)
      return this.overLimit('when a pod restart ended, before following the next pod');
    return undefined;
  }

  /**
   * The error that stops the run when some outage (one going on included) is longer than
   * `--max-unavailable` and has not stopped a run before; it is then acknowledged, so a resume
   * goes on. `where` names the safe point.
   */
  overLimit(where: string): AvailabilityLimitError | undefined {
    const max = this.#o.maxUnavailableMs;
    if (max === undefined) return undefined;
    const now = this.#o.clock.now();
    const over: { db: DatabaseRecord; ms: number; start: number; pod: string | null }[] = [];
    for (const db of this.#ledger.tracked()) {
      const outages = [...db.outages, ...(db.open ? [{ ...db.open, end: now }] : [])];
      for (const outage of outages) {
        const ms = outage.end - outage.start;
        if (ms > max && !this.#acknowledged.has(`${db.uid}@${outage.start}`))
          over.push({ db, ms, start: outage.start, pod: outage.pod });
      }
    }
    if (over.length === 0) return undefined;
    for (const { db, start } of over) this.#acknowledged.add(`${db.uid}@${start}`);
    over.sort((a, b) => b.ms - a.ms);
    const worst = over[0] as (typeof over)[number];
    const name = worst.db.namespace ? `${worst.db.namespace}/${worst.db.name}` : worst.db.name;
    const others =
      over.length > 1
        ? ` (and ${over.length - 1} more outage${over.length > 2 ? 's' : ''} over the limit)`
        : '';
    return new AvailabilityLimitError(
      `database ${name} (bdb ${worst.db.uid}) was unavailable for ${formatMs(worst.ms)} from ${new Date(worst.start).toISOString()}` +
        `${worst.pod ? ` while ${worst.pod} restarted` : ''}, longer than --max-unavailable ${formatDuration(max)}${others}; ` +
        `the run stopped ${where}, state saved`,
      {
        hint:
          'The availability table above lists every outage. Look at the database (replication, shard placement: ctl upgrade plan, check database-availability), ' +
          'then run the same command again to resume: this outage will not stop it again.',
      },
    );
  }

  /** The result's entries (CLI.md `availability`): every database, measured or not. */
  entries(): AvailabilityEntry[] {
    const now = this.#o.clock.now();
    const measured = this.#ledger.entries(now);
    const unmeasured = this.#unmeasured.map((db) => unmeasuredEntry(db, db.why));
    return [...measured, ...unmeasured];
  }

  toState(): AvailabilityState {
    return {
      records: this.#ledger.tracked(),
      acknowledged: [...this.#acknowledged],
      ...(this.#unmeasured.length > 0 ? { unmeasured: this.#unmeasured } : {}),
    };
  }

  /** How it measures, for the summary: the source and the stated load. */
  describe(): string {
    const api = this.#poller.hasAvailabilityApi;
    const source =
      api === true
        ? 'GET /v1/bdbs/{uid}/availability, and GET /v1/shards when the databases do not fit in a round'
        : api === false
          ? 'GET /v1/shards (this RS has no availability request: before 7.8)'
          : 'GET /v1/shards and GET /v1/bdbs/{uid}/availability';
    return `measured every ${ROUND_MS} ms through ${source}, at most ${this.#o.ratePerSecond ?? RATE_PER_SECOND} requests a second`;
  }
}

function formatMs(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms);
}

/** The state's `availability`, checked field by field; undefined when absent or not ours. */
function parseState(value: unknown): AvailabilityState | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { records, acknowledged, unmeasured } = value as Record<string, unknown>;
  if (!Array.isArray(records)) return undefined;
  const valid = records.filter(
    (record): record is DatabaseRecord =>
      !!record &&
      typeof record === 'object' &&
      typeof (record as DatabaseRecord).uid === 'number' &&
      typeof (record as DatabaseRecord).name === 'string' &&
      typeof (record as DatabaseRecord).namespace === 'string' &&
      typeof (record as DatabaseRecord).seenMs === 'number' &&
      typeof (record as DatabaseRecord).notSeenMs === 'number' &&
      Array.isArray((record as DatabaseRecord).outages),
  );
  return {
    records: valid.map((record) => ({ ...record, last: undefined })),
    acknowledged: Array.isArray(acknowledged) ? acknowledged.filter((key) => typeof key === 'string') : [],
    ...(Array.isArray(unmeasured) ? { unmeasured: unmeasured as AvailabilityState['unmeasured'] } : {}),
  };
}
