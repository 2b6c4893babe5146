/**
 * The management API as far as the snapshot reads it (the real client, src/api/client.ts, is
 * adapted to it): modules, databases, nodes, and which RS cluster answers.
 */
import { MalformedAnswerError } from '../api/api-errors.js';
import type { OwnRole } from '../api/own-role.js';
import { ExitCode, isCtlError } from '../errors.js';
import { readShards, type ShardReader, type ShardsRead } from './shard-reads.js';
import { type Dialect, dialectFields } from '../release/dialect.js';

export interface Module {
  uid?: string;
  module_name: string;
  /** The name a user-defined module may be listed by too (re-databases/modules.md). */
  display_name?: string;
  semantic_version?: string;
  /** Keyed like `rhel9/x86_64`. */
  platforms?: Record<string, unknown>;
  is_bundled?: boolean;
}

export interface Bdb {
  uid: number;
  name: string;
  status?: string;
  redis_version?: string;
  /** The engine dialect's name of redis_version. */
  engine_version?: string;
  crdt?: boolean;
  module_list?: { module_name: string; semantic_version?: string }[];
  /** bdb `replication` and `shards_count` (rest-api/objects/bdb), for the availability prediction. */
  replication?: boolean;
  shards_count?: number;
}

export interface Node {
  uid: number;
  software_version?: string;
  status?: string;
  os_name?: string;
}

/**
 * GET /v1/cluster's read-only identity fields (the cluster object, redis/docs
 * content/operate/rs/references/rest-api/objects/cluster/_index.md): `name`, "Cluster's fully
 * qualified domain name", which on Kubernetes is `<REC-name>.<namespace>.svc.cluster.local`
 * (content/operate/kubernetes/security/configuration-secrets.md), and `created_time`, "Cluster
 * creation date". The object documents no uid. Two clusters with the same names share the
 * name; the creation date tells them apart.
 */
export interface ManagementCluster {
  name?: string | undefined;
  createdTime?: string | undefined;
}

/**
 * The fields of a bdb the plan reads: every field of Bdb, asked for with `fields=` so a cluster
 * of 10,000 databases answers these alone (src/api/client.ts listBdbs). The type below fails to
 * compile when Bdb gains a field this list lacks.
 */
export const BDB_FIELDS = [
  'uid',
  'name',
  'status',
  'redis_version',
  'engine_version',
  'crdt',
  'module_list',
  'replication',
  'shards_count',
] as const satisfies readonly (keyof Bdb)[];
/**
 * BDB_FIELDS in one dialect: its own name of the database version only (the API of a cluster
 * speaks one). Both when the dialect is not known.
 */
export function bdbFieldsFor(dialect: Dialect | undefined): readonly string[] {
  if (dialect === undefined) return BDB_FIELDS;
  const own = dialectFields(dialect).upgradeBodyKey;
  return BDB_FIELDS.filter(
    (field) => (field !== 'redis_version' && field !== 'engine_version') || field === own,
  );
}

type EveryBdbField = Exclude<keyof Bdb, (typeof BDB_FIELDS)[number]> extends never ? true : never;
const everyBdbField: EveryBdbField = true;
void everyBdbField;

export interface ManagementReader extends ShardReader {
  listModules(): Promise<Module[]>;
  /** With `fields`, the server may answer only those fields (and may answer more). */
  listBdbs(fields?: readonly string[]): Promise<Bdb[]>;
  listNodes(): Promise<Node[]>;
  /** GET /v1/cluster; optional so that a reader without it still plans. */
  getCluster?(): Promise<{ name?: unknown; created_time?: unknown; allow_modules_upload?: unknown }>;
  /** The signed-in user's management roles (src/api/own-role.ts); optional like getCluster. */
  readOwnRole?(): Promise<OwnRole>;
}

/** Read from the Secret named after the cluster; handed to the management reader, never stored. */
export interface ApiCredentials {
  secretName: string;
  username: string;
  password: string;
}

export type ManagementReaderFactory<Cluster> = (input: {
  cluster: Cluster;
  /**
   * The credentials in the cluster's Secret, once that read answers: a factory that has them
   * from flags or env connects without waiting for it (src/api/credentials.ts asks in order).
   */
  credentials: () => Promise<ApiCredentials | undefined>;
}) => ManagementReader | Promise<ManagementReader>;

export interface ApiSnapshot {
  reachable: boolean;
  error?: string | undefined;
  /** How the failure should end a command: 3 for an answer not the API's, 4 for refused credentials, 1 for TLS and transport. */
  failure?: { exitCode: number; hint?: string | undefined; malformed?: true } | undefined;
  modules: Module[];
  bdbs: Bdb[];
  nodes: Node[];
  /** Which RS cluster answered (recorded in a run's state: src/run/cluster-identity.ts). */
  cluster?: ManagementCluster | undefined;
  /**
   * GET /v1/cluster's `allow_modules_upload`, the cluster setting that lets custom modules be
   * uploaded: from RS 8.2 on (redis/docs rs-8-2-0-25.md "Breaking changes", off by default;
   * rest-api/objects/cluster); absent on an older RS, which takes every upload, or unread.
   * Only `ctl sim capture` reads it (src/planning/scenario-capture.ts).
   */
  modulesUploadAllowed?: boolean | undefined;
  /** Where the shards are (./shard-reads.ts); absent when the API was not read. */
  shards?: ShardsRead | undefined;
  /**
   * The API user's management roles, for the `api-permissions` check; absent when the API was
   * not read or the reader cannot tell (a reader without readOwnRole).
   */
  user?: OwnRole | undefined;
}

export async function readManagementApi<Cluster>(
  management: ManagementReader | ManagementReaderFactory<Cluster> | undefined,
  cluster: Cluster,
  credentials: () => Promise<ApiCredentials | undefined>,
  bdbFields: readonly string[] = BDB_FIELDS,
): Promise<ApiSnapshot> {
  if (!management) return unreachableApi('no management API connection was configured');
  try {
    const reader = typeof management === 'function' ? await management({ cluster, credentials }) : management;
    const [modules, bdbs, nodes, clusterObject, shards, user] = await Promise.all([
      reader.listModules(),
      reader.listBdbs(bdbFields),
      reader.listNodes(),
      readClusterObject(reader),
      readShards(reader),
      readUser(reader),
    ]);
    return {
      reachable: true,
      modules,
      bdbs,
      nodes,
      shards,
      ...(clusterObject.identity ? { cluster: clusterObject.identity } : {}),
      ...(clusterObject.modulesUploadAllowed !== undefined
        ? { modulesUploadAllowed: clusterObject.modulesUploadAllowed }
        : {}),
      ...(user ? { user } : {}),
    };
  } catch (error) {
    const api = unreachableApi(error instanceof Error ? error.message : String(error));
    // An API that answers, but not as the management API does, is a failed check (exit 3);
    // refused credentials 4; TLS and transport 1 (docs/exit-codes.md, "Decisions").
    if (error instanceof MalformedAnswerError)
      api.failure = { exitCode: ExitCode.preflight, hint: error.hint, malformed: true };
    else if (isCtlError(error)) api.failure = { exitCode: error.exitCode, hint: error.hint };
    return api;
  }
}

/**
 * The cluster's identity, when the API gives it, and its `allow_modules_upload` setting. A user
 * whose role may list databases but not view the cluster's settings (view_cluster_info) gets a
 * 403 here: the run then records no management identity and relies on the REC uid alone, as
 * before.
 */
async function readClusterObject(
  reader: ManagementReader,
): Promise<{ identity?: ManagementCluster | undefined; modulesUploadAllowed?: boolean | undefined }> {
  if (!reader.getCluster) return {};
  const answer = await reader.getCluster().catch(() => undefined);
  if (!answer) return {};
  return {
    identity: knownManagementCluster({
      name: typeof answer.name === 'string' ? answer.name : undefined,
      createdTime: typeof answer.created_time === 'string' ? answer.created_time : undefined,
    }),
    modulesUploadAllowed:
      typeof answer.allow_modules_upload === 'boolean' ? answer.allow_modules_upload : undefined,
  };
}

/**
 * The user's roles: a failure here is not the API's failure (the other reads decide that), only
 * a role the plan cannot tell.
 */
async function readUser(reader: ManagementReader): Promise<OwnRole | undefined> {
  if (!reader.readOwnRole) return undefined;
  return reader.readOwnRole().catch((error: unknown): OwnRole => ({
    kind: 'unknown',
    why: `reading it failed: ${error instanceof Error ? error.message : String(error)}`,
  }));
}

/** The identity's non-empty fields, or undefined when it has none. */
export function knownManagementCluster(
  cluster: ManagementCluster | undefined,
): { name?: string; createdTime?: string } | undefined {
  if (!cluster?.name && !cluster?.createdTime) return undefined;
  return {
    ...(cluster.name ? { name: cluster.name } : {}),
    ...(cluster.createdTime ? { createdTime: cluster.createdTime } : {}),
  };
}

export function unreachableApi(error: string): ApiSnapshot {
  return { reachable: false, error, modules: [], bdbs: [], nodes: [] };
}
