/** The management API's objects, as far as ctl reads them (redis-facts.md §4). */

export interface ModulePlatformInfo {
  dependencies?: Record<string, unknown>;
  sha256?: string;
}

export interface ApiModule {
  uid: string;
  module_name: string;
  display_name?: string;
  semantic_version: string;
  version?: number;
  /** Keyed like `rhel9/x86_64`; absent from the newest docs. */
  platforms?: Record<string, ModulePlatformInfo>;
  /** "Whether module came bundled with a version of Redis Enterprise" (rest-api/objects/module.md). */
  is_bundled?: boolean;
  [field: string]: unknown;
}

export interface ApiBdbModule {
  module_name: string;
  semantic_version?: string;
  module_args?: string;
  module_id?: string;
}

export interface ApiBdb {
  uid: number;
  name: string;
  status?: string;
  /** Database version "x.y": `redis_version` on real clusters, `engine_version` in the engine dialect. */
  redis_version?: string;
  engine_version?: string;
  module_list?: ApiBdbModule[];
  crdt?: boolean;
  action_uid?: string;
  [field: string]: unknown;
}

export interface ApiAction {
  action_uid: string;
  name?: string;
  status: 'pending' | 'active' | 'completed' | 'failed' | string;
  progress?: number;
  object_name?: string;
  error_message?: string;
  [field: string]: unknown;
}

export interface ApiNode {
  uid: number;
  software_version: string;
  status: string;
  os_name?: string;
  os_version?: string;
  architecture?: string;
  supported_database_versions?: { db_type: string; version: string }[];
  [field: string]: unknown;
}

export interface ApiCluster {
  name: string;
  [field: string]: unknown;
}

/** The database version of a bdb, whichever dialect's key carries it. */
export function bdbVersion(bdb: ApiBdb): string | undefined {
  return bdb.redis_version ?? bdb.engine_version;
}

/**
 * The shard object (redis/docs content/operate/rs/references/rest-api/objects/shard): `uid` and
 * `node_uid` are strings, `bdb_uid` an integer; `role` master|slave; `status`
 * active|inactive|trimming; `detailed_status` ok|down|busy|importing|loading|timeout|trimming|unknown.
 */
export interface ApiShard {
  uid?: string;
  bdb_uid: number;
  node_uid?: string;
  role?: string;
  assigned_slots?: string;
  status?: string;
  detailed_status?: string;
  [field: string]: unknown;
}
