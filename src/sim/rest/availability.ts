import { compareVersions, type RestModel } from './model.js';
import { reportTimestamp } from './shards.js';

/**
 * The availability and shard requests of the management API, as redis/docs documents them:
 *
 * - `GET /v1/bdbs/{uid}/availability` (references/rest-api/requests/bdbs/availability.md;
 *   new in RS 7.8.2, release-notes/rs-7-8-releases/rs-7-8-2-34.md "Database availability API"):
 *   200 when the database is available; otherwise an error status with `error_code` and
 *   `description`: 503 `bdb_unavailable_shard_unreachable` ("a primary (master) shard is
 *   unreachable"), 404 `db_not_found`.
 * - `GET /v1/local/bdbs/{uid}/endpoint/availability`: 200 "if all primary (master) shards are
 *   reachable from the local database endpoint"; 503 `bdb_endpoint_unavailable`, 404
 *   `db_not_found`.
 * - `GET /v1/shards`, `GET /v1/shards/{uid}`, `GET /v1/bdbs/{uid}/shards`
 *   (references/rest-api/requests/shards, requests/bdbs/shards.md): shard objects.
 *
 * Before 7.8 the availability requests do not exist: the API answers them as any unknown path.
 */

/** The first release with the availability requests (the 7.8 line's first GA, 7.8.2). */
export const AVAILABILITY_API_SINCE = '7.8';

export interface Answer {
  status: number;
  body: unknown;
}

export function bdbAvailability(model: RestModel, uid: number, path: string): Answer {
  if (!hasAvailabilityApi(model)) return unknownPath(path);
  const bdb = model.findBdb(uid);
  if (!bdb) return error(404, 'db_not_found', 'Database does not exist in the cluster');
  if (model.shards.unreachable(bdb))
    return error(503, 'bdb_unavailable_shard_unreachable', 'Endpoint error status: shard unreachable');
  return { status: 200, body: {} };
}

export function localEndpointAvailability(model: RestModel, uid: number, path: string): Answer {
  if (!hasAvailabilityApi(model)) return unknownPath(path);
  const bdb = model.findBdb(uid);
  if (!bdb) return error(404, 'db_not_found', 'Database does not exist in the cluster');
  if (model.shards.unreachable(bdb))
    return error(503, 'bdb_endpoint_unavailable', 'Local database endpoint is not available');
  return { status: 200, body: {} };
}

export function listShards(model: RestModel): Answer {
  const now = reportTimestamp(model.now());
  return { status: 200, body: model.shards.all().map((shard) => model.shards.render(shard, now)) };
}

export function getShard(model: RestModel, uid: number): Answer {
  const shard = model.shards.find(uid);
  if (!shard) return error(404, 'shard_not_found', `Shard ${uid} does not exist`);
  return { status: 200, body: model.shards.render(shard, reportTimestamp(model.now())) };
}

export function bdbShards(model: RestModel, uid: number): Answer {
  const bdb = model.findBdb(uid);
  if (!bdb) return error(404, 'db_not_exist', `Database ${uid} does not exist`);
  const now = reportTimestamp(model.now());
  return { status: 200, body: model.shards.shardsOf(bdb).map((shard) => model.shards.render(shard, now)) };
}

function hasAvailabilityApi(model: RestModel): boolean {
  return compareVersions(model.servingVersion, AVAILABILITY_API_SINCE) >= 0;
}

function unknownPath(path: string): Answer {
  return {
    status: 404,
    body: { error_code: 'not_found', message: `No such endpoint: GET ${path.split('?')[0] ?? path}` },
  };
}

function error(status: number, errorCode: string, description: string): Answer {
  return { status, body: { error_code: errorCode, description } };
}
