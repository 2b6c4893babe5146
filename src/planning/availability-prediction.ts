/**
 * What the cluster's rolling upgrade will do to each database, predicted from its replication
 * and where its shards are (./shard-reads.ts), pod by pod in the roll's order.
 *
 * The facts (redis/docs, content/operate/rs/):
 * - a rolling upgrade restarts one node at a time; the operator replaces the pods highest ordinal
 *   first (the StatefulSet's order);
 * - databases/durability-ha/replication.md: when a primary (master) shard fails, its replica is
 *   promoted, and the old primary comes back as the replica (no failback): the next restart of
 *   the node now holding the promoted master fails the database over again;
 * - a database without replication has no replica to promote: it is down while its node is;
 * - databases/memory-performance/shard-placement-policy.md: a master and its replica are placed
 *   on separate nodes; when they are not (one node), the node's restart takes both down.
 *
 * Node uids are matched to pods by order: node N runs on pod `<cluster>-(N-1)`, as the operator
 * creates and joins them; a node uid beyond the pods restarts at a point the plan cannot name.
 * Pure: it reads the snapshot, makes no request.
 */

import type { Snapshot } from './snapshot.js';
import type { ShardPlacement } from './shard-reads.js';

/** What one pod's restart does to a database. */
export type RestartEffect = 'fails-over' | 'goes-down';

/** The worst a database will see during the roll; `unknown` when it could not be predicted. */
export type PredictedAvailability = 'stays-available' | RestartEffect | 'unknown';

export interface DatabasePrediction {
  /** The database resource's namespace; '' for a database the management API alone knows. */
  namespace: string;
  name: string;
  uid: number;
  replication: boolean | null;
  shards: number | null;
  prediction: PredictedAvailability;
  /** Every pod whose restart fails the database over or takes it down, in the roll's order. */
  pods: { pod: string; effect: RestartEffect }[];
  /** Why, in a few words. */
  why: string;
}

export interface AvailabilityPrediction {
  /** False when the plan could not see replication or placement (why says what was missing). */
  predicted: boolean;
  why?: string | undefined;
  /** The pods in the order the roll restarts them. */
  rollOrder: string[];
  databases: DatabasePrediction[];
}

interface Pair {
  master: number | undefined;
  replica: number | undefined;
}

const predictions = new WeakMap<Snapshot, AvailabilityPrediction>();

/** The prediction of a snapshot (computed once per snapshot: the check and the plan share it). */
export function predictAvailability(snapshot: Snapshot): AvailabilityPrediction {
  let prediction = predictions.get(snapshot);
  if (!prediction) {
    prediction = predict(snapshot);
    predictions.set(snapshot, prediction);
  }
  return prediction;
}

function predict(snapshot: Snapshot): AvailabilityPrediction {
  const cluster = snapshot.cluster;
  const api = snapshot.api;
  const podCount = snapshot.statefulSet?.replicas ?? cluster?.nodes ?? api.nodes.length;
  const clusterName = cluster?.name ?? 'rec';
  const nodeUids = api.nodes.map((node) => node.uid);
  const roll = rollOrder(clusterName, podCount, nodeUids);
  const rollOrderNames = roll.map((step) => step.pod);
  if (!api.reachable)
    return {
      predicted: false,
      why: 'the management API was not read',
      rollOrder: rollOrderNames,
      databases: [],
    };
  const shardsRead = api.shards;
  const shards = shardsRead?.read ? shardsRead.shards : undefined;
  const byUid = new Map<number, ShardPlacement[]>();
  for (const shard of shards ?? []) {
    const list = byUid.get(shard.bdbUid) ?? [];
    list.push(shard);
    byUid.set(shard.bdbUid, list);
  }
  const names = resourceNames(snapshot);
  // The roll does the same to every database with the same placement (10,000 databases on 9
  // nodes have a few dozen): each placement is played once.
  const played = new Map<string, Pick<DatabasePrediction, 'prediction' | 'pods' | 'why'>>();
  const databases = api.bdbs.map((bdb): DatabasePrediction => {
    const where = names.get(bdb.uid) ?? names.get(bdb.name) ?? { namespace: '', name: bdb.name };
    const own = byUid.get(bdb.uid) ?? [];
    const replication =
      typeof bdb.replication === 'boolean'
        ? bdb.replication
        : shards
          ? own.some((shard) => shard.role === 'slave')
          : null;
    const base = {
      ...where,
      uid: bdb.uid,
      replication,
      shards: typeof bdb.shards_count === 'number' ? bdb.shards_count : null,
    };
    if (!shards || own.length === 0) {
      // Without placement, replication alone still decides: no replica is a sure outage.
      if (replication === false)
        return {
          ...base,
          prediction: 'goes-down',
          pods: [],
          why: 'no replication: down while the node of its shard restarts',
        };
      return {
        ...base,
        prediction: 'unknown',
        pods: [],
        why: shards ? 'no shards listed for it' : `shard placement not read (${whyNotRead(shardsRead)})`,
      };
    }
    // A shard without a node or a role (master|slave) cannot be placed: playing the roll without
    // it would find no master on a restarting node and say "stays available".
    const unplaced = own.filter(
      (shard) => shard.nodeUid === undefined || (shard.role !== 'master' && shard.role !== 'slave'),
    );
    if (unplaced.length > 0 || !own.some((shard) => shard.role === 'master'))
      return {
        ...base,
        prediction: 'unknown',
        pods: [],
        why:
          unplaced.length > 0
            ? `${unplaced.length} of its ${own.length} shard(s) listed without a node or a role (GET /v1/shards)`
            : 'no master shard listed for it (GET /v1/shards)',
      };
    const pairs = pairsOf(own);
    const key = `${replication !== false}:${pairs.map((pair) => `${pair.master}>${pair.replica}`).join(',')}`;
    let outcome = played.get(key);
    if (!outcome) {
      outcome = replay(pairs, roll, replication !== false);
      played.set(key, outcome);
    }
    return { ...base, prediction: outcome.prediction, pods: [...outcome.pods], why: outcome.why };
  });
  return {
    predicted: shards !== undefined,
    ...(shards ? {} : { why: `shard placement not read (${whyNotRead(shardsRead)})` }),
    rollOrder: rollOrderNames,
    databases,
  };
}

/** The roll: the pods highest ordinal first, each with its node uid; unmatched nodes last. */
function rollOrder(
  clusterName: string,
  podCount: number,
  nodeUids: readonly number[],
): { pod: string; nodeUid: number }[] {
  const roll = Array.from({ length: podCount }, (_, i) => podCount - 1 - i).map((ordinal) => ({
    pod: `${clusterName}-${ordinal}`,
    nodeUid: ordinal + 1,
  }));
  for (const uid of [...nodeUids].sort((a, b) => a - b)) {
    if (uid > podCount) roll.push({ pod: `node ${uid}`, nodeUid: uid });
  }
  return roll;
}

/** A master and its replica share an `assigned_slots` range; without ranges, by their order. */
function pairsOf(shards: readonly ShardPlacement[]): Pair[] {
  const masters = shards.filter((shard) => shard.role === 'master');
  const replicas = shards.filter((shard) => shard.role === 'slave');
  const unmatched = [...replicas];
  return masters.map((master) => {
    const index = unmatched.findIndex((replica) =>
      master.slots !== undefined ? replica.slots === master.slots : true,
    );
    const replica = index >= 0 ? unmatched.splice(index, 1)[0] : undefined;
    return { master: master.nodeUid, replica: replica?.nodeUid };
  });
}

/** Plays the roll over the pairs: a failover swaps master and replica, as the cluster does. */
function replay(
  pairs: Pair[],
  roll: readonly { pod: string; nodeUid: number }[],
  replication: boolean,
): Pick<DatabasePrediction, 'prediction' | 'pods' | 'why'> {
  const pods: DatabasePrediction['pods'] = [];
  const reasons = new Set<string>();
  for (const { pod, nodeUid } of roll) {
    let effect: RestartEffect | undefined;
    for (const pair of pairs) {
      if (pair.master !== nodeUid) continue;
      if (pair.replica !== undefined && pair.replica !== nodeUid) {
        [pair.master, pair.replica] = [pair.replica, pair.master];
        effect ??= 'fails-over';
      } else {
        effect = 'goes-down';
        reasons.add(
          !replication || pair.replica === undefined
            ? 'no replication'
            : `a master and its replica both on node ${nodeUid}`,
        );
      }
    }
    if (effect) pods.push({ pod, effect });
  }
  if (pods.some((step) => step.effect === 'goes-down')) {
    const down = pods.filter((step) => step.effect === 'goes-down').map((step) => step.pod);
    return {
      prediction: 'goes-down',
      pods,
      why: `${[...reasons].join('; ')}: down while ${down.join(', ')} restart${down.length === 1 ? 's' : ''}`,
    };
  }
  if (pods.length > 0) {
    return {
      prediction: 'fails-over',
      pods,
      why: `fails over to its replica when ${pods.map((step) => step.pod).join(', ')} restart${pods.length === 1 ? 's' : ''}`,
    };
  }
  return { prediction: 'stays-available', pods, why: 'no master shard on a restarting node' };
}

/** The database resources by bdb uid (REDB status.databaseUID) and the REAADBs by name. */
function resourceNames(snapshot: Snapshot): Map<number | string, { namespace: string; name: string }> {
  const names = new Map<number | string, { namespace: string; name: string }>();
  for (const db of snapshot.databases) {
    const uid = Number(db.databaseUid);
    if (db.databaseUid !== undefined && Number.isInteger(uid))
      names.set(uid, { namespace: db.namespace, name: db.name });
  }
  for (const db of snapshot.activeActiveDatabases)
    if (!names.has(db.name)) names.set(db.name, { namespace: db.namespace, name: db.name });
  for (const db of snapshot.databases)
    if (!names.has(db.name)) names.set(db.name, { namespace: db.namespace, name: db.name });
  return names;
}

function whyNotRead(read: { read: false; why: string } | { read: true } | undefined): string {
  if (!read) return 'the management API was not asked';
  return read.read ? '' : read.why;
}
