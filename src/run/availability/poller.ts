/**
 * One round of availability polling through the management API, within a request budget.
 *
 * Two sources, as redis/docs documents them:
 * - `GET /v1/bdbs/{uid}/availability` (rest-api/requests/bdbs/availability.md, from RS 7.8.2):
 *   200 when the database can serve; an error status with `error_code` (`bdb_unavailable...`,
 *   `no_quorum`) when it cannot; `db_not_found` for an unknown uid. Before 7.8 the path does not
 *   exist (404 without `db_not_found`): then the shards alone are used.
 * - `GET /v1/shards` (rest-api/requests/shards): every shard of every database in one request,
 *   with its `role` and `status`/`detailed_status` (rest-api/objects/shard). A database whose
 *   master shards are all `active` and not `down` can serve.
 *
 * A round asks the availability of each database when they fit in its budget; otherwise it asks
 * for the shard list once (one request whatever the number of databases) and spends the rest of
 * the budget asking the availability of the databases the shards say are down, to confirm them.
 * No request is retried (`once`): a 503 is an answer here, and a retry would break the budget.
 * A request that fails or times out is "could not see", never an outage.
 */

import type { HttpRequest, HttpResponse } from '../../api/http.js';
import { checkShardsShape } from '../../api/shard-shape.js';
import type { ApiShard } from '../../api/types.js';
import type { Seen } from './ledger.js';

export interface AvailabilityApi {
  call(request: HttpRequest): Promise<HttpResponse>;
}

export interface PollClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Spaces requests evenly: never more than `perSecond` started in any second. */
export class Pacer {
  readonly #intervalMs: number;
  readonly #clock: PollClock;
  #next = 0;

  constructor(perSecond: number, clock: PollClock) {
    this.#intervalMs = 1000 / perSecond;
    this.#clock = clock;
  }

  async slot(signal: AbortSignal): Promise<void> {
    const now = this.#clock.now();
    const at = Math.max(now, this.#next);
    this.#next = at + this.#intervalMs;
    if (at > now) await this.#clock.sleep(at - now, signal);
  }
}

export interface PollerOptions {
  api: AvailabilityApi;
  clock: PollClock;
  pacer: Pacer;
  /** Requests a round may make. */
  budget: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** One request's deadline: past it, what it asked about is not seen. */
  requestTimeoutMs: number;
}

export interface RoundResult {
  /** What each database was seen as, and when the answer came. */
  samples: Map<number, { seen: Seen; at: number }>;
  /** Which source answered this round (for the docs' "how"). */
  source: 'availability' | 'shards' | 'shards+availability' | 'none';
}

export class AvailabilityPoller {
  readonly #o: PollerOptions;
  /** Whether the RS serving the API has the availability request; undefined until known. */
  #hasAvailabilityApi: boolean | undefined;
  /** Where the next round's confirmations start, so every suspect gets its turn. */
  #rotation = 0;

  constructor(options: PollerOptions) {
    this.#o = options;
  }

  get hasAvailabilityApi(): boolean | undefined {
    return this.#hasAvailabilityApi;
  }

  async round(uids: readonly number[], signal: AbortSignal): Promise<RoundResult> {
    const samples = new Map<number, { seen: Seen; at: number }>();
    if (uids.length === 0) return { samples, source: 'none' };
    const budget = Math.max(1, this.#o.budget);
    if (!this.#knownMissing() && uids.length <= budget) {
      await this.#askEach(uids, samples, signal);
      // The first answer may have shown that this RS has no availability request.
      if (!this.#knownMissing()) return { samples, source: 'availability' };
    }
    const shards = await this.#askShards(signal);
    const at = this.#o.clock.now();
    if (!shards) {
      for (const uid of uids) if (!samples.has(uid)) samples.set(uid, { seen: 'unseen', at });
      if (this.#knownMissing()) return { samples, source: 'none' };
      // The shard list did not come: spend what is left on the databases in turn.
      await this.#askEach(this.#turn(uids, budget - 1), samples, signal);
      return { samples, source: 'availability' };
    }
    for (const uid of uids) samples.set(uid, { seen: shards.get(uid) ?? 'unseen', at });
    if (this.#knownMissing()) return { samples, source: 'shards' };
    const suspects = uids.filter((uid) => samples.get(uid)?.seen !== 'up');
    if (suspects.length === 0) return { samples, source: 'shards' };
    await this.#askEach(this.#turn(suspects, budget - 1), samples, signal);
    return { samples, source: 'shards+availability' };
  }

  #knownMissing(): boolean {
    return this.#hasAvailabilityApi === false;
  }

  /** Up to `count` of `uids`, starting where the last round stopped. */
  #turn(uids: readonly number[], count: number): number[] {
    if (count <= 0) return [];
    if (uids.length <= count) return [...uids];
    const start = this.#rotation % uids.length;
    this.#rotation = start + count;
    return Array.from({ length: count }, (_, i) => uids[(start + i) % uids.length] as number);
  }

  async #askEach(
    uids: readonly number[],
    samples: Map<number, { seen: Seen; at: number }>,
    signal: AbortSignal,
  ): Promise<void> {
    const queue = [...uids];
    const worker = async (): Promise<void> => {
      for (let uid = queue.shift(); uid !== undefined; uid = queue.shift()) {
        if (signal.aborted || this.#hasAvailabilityApi === false) return;
        const seen = await this.#askOne(uid, signal);
        if (seen !== undefined) samples.set(uid, { seen, at: this.#o.clock.now() });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#o.concurrency, queue.length) }, worker));
  }

  /** One database's availability; undefined when the API has no such request (before 7.8). */
  async #askOne(uid: number, signal: AbortSignal): Promise<Seen | undefined> {
    const response = await this.#get(`/v1/bdbs/${uid}/availability`, signal);
    if (!response) return 'unseen';
    const code = errorCodeOf(response.body);
    if (response.status >= 200 && response.status < 300) {
      this.#hasAvailabilityApi = true;
      return 'up';
    }
    if (response.status === 404) {
      if (code === 'db_not_found') {
        this.#hasAvailabilityApi = true;
        return 'unseen';
      }
      // The path is unknown: an RS before 7.8.
      this.#hasAvailabilityApi = false;
      return undefined;
    }
    if (response.status === 503 || (code !== undefined && UNAVAILABLE_CODE.test(code))) {
      this.#hasAvailabilityApi = true;
      return 'down';
    }
    return 'unseen';
  }

  /**
   * Every database's availability as its shards show it; undefined when the list did not come,
   * or came with a shard whose fields are not of the documented types (../../api/shard-shape.ts):
   * such a list says nothing, neither up nor down. A shard whose role is neither master nor slave
   * leaves its database unseen (which shard serves is not known), unless a master shows it down.
   */
  async #askShards(signal: AbortSignal): Promise<Map<number, Seen> | undefined> {
    const response = await this.#get('/v1/shards', signal);
    if (!response || response.status !== 200) return undefined;
    try {
      checkShardsShape(response.body, 'GET /v1/shards');
    } catch {
      return undefined;
    }
    const byDatabase = new Map<number, Seen>();
    const see = (uid: number, seen: Seen): void => {
      const before = byDatabase.get(uid);
      if (before === undefined || SEEN_RANK[seen] > SEEN_RANK[before]) byDatabase.set(uid, seen);
    };
    for (const shard of response.body as ApiShard[]) {
      const { bdb_uid: uid, role, status, detailed_status: detailed } = shard;
      see(uid, 'up');
      if (role === 'slave') continue;
      if (role !== 'master') see(uid, 'unseen');
      else if (status !== 'active' || (detailed !== undefined && SHARD_DOWN.has(detailed))) see(uid, 'down');
    }
    return byDatabase;
  }

  async #get(path: string, signal: AbortSignal): Promise<HttpResponse | undefined> {
    try {
      await this.#o.pacer.slot(signal);
      const deadline = AbortSignal.any([signal, AbortSignal.timeout(this.#o.requestTimeoutMs)]);
      return await this.#o.api.call({ method: 'GET', path, once: true, signal: deadline });
    } catch {
      // No answer (a restarting node behind the API, a timeout, a stop): not seen.
      return undefined;
    }
  }
}

/** `bdb_unavailable`, `bdb_unavailable_shard_unreachable`, `..._port_unbound`, `no_quorum`. */
const UNAVAILABLE_CODE = /^(bdb_unavailable|bdb_endpoint_unavailable|no_quorum)/;

/** Of what a database's shards show, the worst wins: one master down is the database down. */
const SEEN_RANK: Record<Seen, number> = { up: 0, unseen: 1, down: 2 };

/** detailed_status values of a shard that cannot serve (rest-api/objects/shard). */
const SHARD_DOWN = new Set(['down', 'timeout', 'unknown']);

function errorCodeOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const code = (body as { error_code?: unknown }).error_code;
  return typeof code === 'string' ? code : undefined;
}
