/**
 * Where each database's shards live, and what a node's restart does to them.
 *
 * From the Redis Software docs (redis/docs, content/operate/rs/):
 * - databases/memory-performance/shard-placement-policy.md: "Master shards and their
 *   corresponding replica shards are always placed on separate nodes"; the `sparse` policy
 *   (the default of `default_shards_placement`, references/rest-api/objects/bootstrap/policy.md)
 *   puts shards on as many nodes as possible, e.g. two masters and two replicas on three nodes:
 *   node 1 master 1, node 2 its replica, node 3 master 2, node 1 its replica.
 * - databases/durability-ha/replication.md: when a primary (master) shard fails, the replica is
 *   promoted; when the old primary recovers it becomes the replica of the new one (no failback).
 * - references/rest-api/objects/shard: `uid` (string), `bdb_uid`, `node_uid` (string), `role`
 *   master|slave, `assigned_slots`, `status` active|inactive|trimming, `detailed_status`
 *   ok|down|...
 * - references/rest-api/requests/bdbs/availability.md: a database is unavailable while a
 *   primary shard is unreachable (`bdb_unavailable_shard_unreachable`).
 *
 * The failover window (`timing.failover`) is ours: the docs give no figure for how long the
 * promotion takes, so a scenario says it.
 */

export interface ShardOwner {
  uid: number;
  replication: boolean;
  shards_count: number;
}

interface Shard {
  uid: number;
  owner: ShardOwner;
  /** Which master/replica pair (one hash-slot range) it belongs to. */
  pair: number;
  nodeUid: number;
  role: 'master' | 'slave';
  slots: string;
}

/** A pair whose master went down with its node: promoted when the window ends, if still down. */
interface PendingFailover {
  master: Shard;
  replica: Shard;
  at: number;
}

const SLOTS = 16384;

export class ShardPlacement {
  readonly #shards: Shard[] = [];
  readonly #down = new Map<number, number>();
  #pending: PendingFailover[] = [];
  #nextUid = 1;
  /** Round-robin cursor over the nodes: the sparse policy spreads the cluster's shards evenly. */
  #cursor = 0;
  failoverMs: number;

  constructor(failoverMs: number) {
    this.failoverMs = failoverMs;
  }

  /**
   * Places a new database's shards on the nodes (sparse: one after the other, round-robin), a
   * replica on the node after its master's. With a single node there is nowhere else to put
   * the replica: it shares the master's node (then the node's restart takes both down).
   */
  place(owner: ShardOwner, nodeUids: readonly number[]): number[] {
    const count = Math.max(1, owner.shards_count);
    const uids: number[] = [];
    const nodeAt = (offset: number): number => nodeUids[(this.#cursor + offset) % nodeUids.length] ?? 1;
    for (let pair = 0; pair < count; pair++) {
      const slots = slotRange(pair, count);
      const master = this.#add(owner, pair, nodeAt(0), 'master', slots);
      uids.push(master.uid);
      if (owner.replication) {
        const replica = this.#add(owner, pair, nodeAt(1), 'slave', slots);
        uids.push(replica.uid);
        this.#cursor += 2;
      } else {
        this.#cursor += 1;
      }
    }
    return uids;
  }

  #add(owner: ShardOwner, pair: number, nodeUid: number, role: Shard['role'], slots: string): Shard {
    const shard: Shard = { uid: this.#nextUid++, owner, pair, nodeUid, role, slots };
    this.#shards.push(shard);
    return shard;
  }

  /** The node's pod stopped: its shards are unreachable; replicated masters fail over later. */
  nodeDown(nodeUid: number, now: number): void {
    if (this.#down.has(nodeUid)) return;
    this.#down.set(nodeUid, now);
    for (const master of this.#shards) {
      if (master.nodeUid !== nodeUid || master.role !== 'master') continue;
      const replica = this.#replicaOf(master);
      if (replica && !this.#down.has(replica.nodeUid))
        this.#pending.push({ master, replica, at: now + this.failoverMs });
    }
  }

  /** The node is back: its shards are reachable again (a promoted pair keeps its new roles). */
  nodeUp(nodeUid: number, now: number): void {
    this.settle(now);
    this.#down.delete(nodeUid);
    // A master back before its failover ended is serving again: nothing to promote.
    this.#pending = this.#pending.filter((failover) => failover.master.nodeUid !== nodeUid);
  }

  isDown(nodeUid: number): boolean {
    return this.#down.has(nodeUid);
  }

  /** Promotes every replica whose failover window has ended by `now`. */
  settle(now: number): void {
    if (this.#pending.length === 0) return;
    const due = this.#pending.filter((failover) => failover.at <= now);
    if (due.length === 0) return;
    this.#pending = this.#pending.filter((failover) => failover.at > now);
    for (const { master, replica } of due) {
      if (!this.#down.has(master.nodeUid) || this.#down.has(replica.nodeUid)) continue;
      master.role = 'slave';
      replica.role = 'master';
    }
  }

  /** True while one of the database's hash-slot ranges has no reachable master shard. */
  unreachable(owner: ShardOwner): boolean {
    return this.#shards.some(
      (shard) => shard.owner === owner && shard.role === 'master' && this.#down.has(shard.nodeUid),
    );
  }

  shardsOf(owner: ShardOwner): readonly Shard[] {
    return this.#shards.filter((shard) => shard.owner === owner);
  }

  all(): readonly Shard[] {
    return this.#shards;
  }

  find(uid: number): Shard | undefined {
    return this.#shards.find((shard) => shard.uid === uid);
  }

  /**
   * The shard object as `GET /v1/shards` serves it. `reportedAt` is the answer's time as
   * `reportTimestamp` writes it, made once for a list of thousands of shards.
   */
  render(shard: Shard, reportedAt: string): Record<string, unknown> {
    const down = this.#down.has(shard.nodeUid);
    return {
      uid: String(shard.uid),
      bdb_uid: shard.owner.uid,
      node_uid: String(shard.nodeUid),
      role: shard.role,
      assigned_slots: shard.slots,
      status: down ? 'inactive' : 'active',
      detailed_status: down ? 'down' : 'ok',
      loading: { status: 'idle' },
      report_timestamp: reportedAt,
    };
  }

  #replicaOf(master: Shard): Shard | undefined {
    return this.#shards.find(
      (shard) =>
        shard.owner === master.owner &&
        shard.pair === master.pair &&
        shard !== master &&
        shard.role === 'slave',
    );
  }
}

/** The pair's share of the 16384 hash slots, as `assigned_slots` writes it (`0-8191`). */
function slotRange(pair: number, count: number): string {
  const start = Math.floor((pair * SLOTS) / count);
  const end = Math.floor(((pair + 1) * SLOTS) / count) - 1;
  return `${start}-${end}`;
}

/** A shard's `report_timestamp`: ISO 8601 in whole seconds. */
export function reportTimestamp(at: number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
