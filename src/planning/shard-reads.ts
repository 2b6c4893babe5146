/**
 * Where each database's shards are, for the plan's `database-availability` prediction: one
 * `GET /v1/shards` (every shard of the cluster in one request, whatever the number of
 * databases). The shard object (redis/docs content/operate/rs/references/rest-api/objects/shard)
 * gives `bdb_uid`, `node_uid` (a string), `role` (master|slave) and `assigned_slots`; the
 * reader checks their types (src/api/shard-shape.ts). A failed read does not fail the snapshot:
 * the prediction then says it could not see the placement, and why.
 */

import { MalformedAnswerError } from '../api/api-errors.js';

export interface ShardPlacement {
  bdbUid: number;
  nodeUid: number | undefined;
  role: string | undefined;
  /** The hash-slot range: a master and its replica share it. */
  slots: string | undefined;
}

export type ShardsRead =
  | { read: true; shards: ShardPlacement[] }
  /** `fix`: what to do when the answer itself was at fault (not the API's: see its hint). */
  | { read: false; why: string; fix?: string | undefined };

export interface ShardReader {
  listShards?(): Promise<{ bdb_uid: number; node_uid?: unknown; role?: unknown; assigned_slots?: unknown }[]>;
}

export async function readShards(reader: ShardReader): Promise<ShardsRead> {
  if (!reader.listShards) return { read: false, why: 'this connection does not read shards' };
  try {
    const shards = await reader.listShards();
    return {
      read: true,
      shards: shards.map((shard) => ({
        bdbUid: shard.bdb_uid,
        nodeUid: nodeUidOf(shard.node_uid),
        role: typeof shard.role === 'string' ? shard.role : undefined,
        slots: typeof shard.assigned_slots === 'string' ? shard.assigned_slots : undefined,
      })),
    };
  } catch (error) {
    // An answer that is not the management API's names the shard and the field itself.
    if (error instanceof MalformedAnswerError) return { read: false, why: error.message, fix: error.hint };
    return {
      read: false,
      why: `GET /v1/shards failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function nodeUidOf(value: unknown): number | undefined {
  const uid = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isInteger(uid) ? uid : undefined;
}
