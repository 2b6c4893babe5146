import type { RestModel, RestUser } from './model.js';
import * as availability from './availability.js';
import { licenseAnswer } from './license.js';
import { unzipSync } from 'fflate';
import { unpackModulePackage } from './module-package.js';
import { moduleFilePart } from './module-file-part.js';
import {
  allows,
  limitedToSomeDatabases,
  managementRolesOf,
  renderUser,
  rolesServed,
  rsAtLeast,
} from './access.js';
import {
  createUserDefinedModule,
  uploadUserDefinedArtifact,
  USER_DEFINED_MODULES_SINCE,
} from './user-defined-modules.js';
import type { VersionNumbers } from '../world/versions.js';

/**
 * The management API's endpoints over a RestModel, free of any transport: the server parses
 * the request into an ApiRequest and writes the ApiResponse. Error bodies are
 * `{error_code, message}` as the real API's.
 */

export interface ApiRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface ApiResponse {
  status: number;
  body: unknown;
  /** Who was authenticated (for the audit log); '' when nobody. */
  user: string;
}

const MAX_TTL = 86400;
const DEFAULT_TTL = 300;

export async function handleApiRequest(model: RestModel, request: ApiRequest): Promise<ApiResponse> {
  model.settle();
  const path = request.path.split('?')[0] ?? request.path;
  if (request.method === 'POST' && path === '/v1/users/authorize') return authorize(model, request);
  if (request.method === 'POST' && path === '/v1/users/refresh_jwt') return refreshJwt(model, request);

  const found = findRoute(request.method, path);
  if (!found) return fail(404, 'not_found', `No such endpoint: ${request.method} ${path}`);
  if ('methodNotAllowed' in found)
    return fail(405, 'method_not_allowed', `${request.method} is not allowed on ${path}`);
  const { route, params } = found;
  // A request of a later RS is an unknown path on an older one.
  if (route.since && !rsAtLeast(model.serverVersion, route.since))
    return fail(404, 'not_found', `No such endpoint: ${request.method} ${path}`);

  const auth = authenticate(model, request.headers.authorization);
  if ('error' in auth) return auth.error;
  const user = auth.user;
  // RS 8.2 and later, allow_modules_upload off: the upload requests answer 403
  // modules_upload_disabled "regardless of user role" (rs-8-2-0-25.md), so before the role.
  if (route.uploadGate && model.allowModulesUpload === false) {
    return {
      ...fail(
        403,
        'modules_upload_disabled',
        'Module upload is disabled on this cluster (allow_modules_upload is false)',
      ),
      user: user.username,
    };
  }
  // The permission of the request's page, judged on the user's roles (./access.ts): 403 without it.
  if (!allows(model, user, route.permission, route.perDatabase ? params[0] : undefined)) {
    return {
      ...fail(
        403,
        'insufficient_permissions',
        `Role ${managementRolesOf(model, user).join(', ')} may not ${request.method} ${path} (it needs ${route.permission})`,
      ),
      user: user.username,
    };
  }
  const response = await route.handler(model, request, params, user);
  return { ...response, user: user.username };
}

// ---- authorization ------------------------------------------------------------------------

function authorize(model: RestModel, request: ApiRequest): ApiResponse {
  const body = parseJsonBody(request.body);
  if (body === INVALID) return fail(400, 'invalid_json', 'Request body is not valid JSON');
  const ttl = body.ttl ?? DEFAULT_TTL;
  if (!isValidTtl(ttl)) return fail(400, 'invalid_ttl', `ttl must be an integer between 1 and ${MAX_TTL}`);

  let username: string;
  let password: string;
  if (model.acceptsHeaderAuthorize) {
    // 7.8.2 and later ignore username and password in the body.
    const basic = parseBasic(request.headers.authorization);
    if (!basic) {
      return fail(
        401,
        'unauthorized',
        'Authentication required: send the credentials with HTTP Basic authentication',
      );
    }
    ({ username, password } = basic);
  } else {
    if (typeof body.username !== 'string' || typeof body.password !== 'string') {
      // Undocumented either way (redis-facts.md §12): the scenario's api.headerFormAnswer decides.
      return model.headerFormAnswer === 401
        ? fail(
            401,
            'unauthorized',
            'Authentication required: the request body must contain username and password',
          )
        : fail(400, 'missing_credentials', 'The request body must contain username and password');
    }
    username = body.username;
    password = body.password;
  }
  const checked = checkPassword(model, username, password);
  if ('error' in checked) return checked.error;
  return {
    status: 200,
    body: { access_token: model.issueToken(checked.user, ttl) },
    user: checked.user.username,
  };
}

function refreshJwt(model: RestModel, request: ApiRequest): ApiResponse {
  const body = parseJsonBody(request.body);
  if (body === INVALID) return fail(400, 'invalid_json', 'Request body is not valid JSON');
  const ttl = body.ttl ?? DEFAULT_TTL;
  if (!isValidTtl(ttl)) return fail(400, 'invalid_ttl', `ttl must be an integer between 1 and ${MAX_TTL}`);
  const token = parseScheme(request.headers.authorization, 'JWT');
  if (!token) return fail(401, 'unauthorized', 'refresh_jwt needs the header Authorization: JWT <token>');
  const checked = model.checkToken(token);
  if ('error' in checked) return fail(401, 'invalid_token', `The token is ${checked.error}`);
  if (checked.user.passwordExpired) return passwordExpired(checked.user);
  return {
    status: 200,
    body: { access_token: model.issueToken(checked.user, ttl) },
    user: checked.user.username,
  };
}

function authenticate(
  model: RestModel,
  header: string | string[] | undefined,
): { user: RestUser } | { error: ApiResponse } {
  const basic = parseBasic(header);
  if (basic) return checkPassword(model, basic.username, basic.password);
  const token = parseScheme(header, 'JWT');
  if (token) {
    const checked = model.checkToken(token);
    if ('error' in checked) return { error: fail(401, 'invalid_token', `The token is ${checked.error}`) };
    if (checked.user.passwordExpired) return { error: passwordExpired(checked.user) };
    return checked;
  }
  return { error: fail(401, 'unauthorized', 'Authentication required (Basic or JWT)') };
}

function checkPassword(
  model: RestModel,
  username: string,
  password: string,
): { user: RestUser } | { error: ApiResponse } {
  const user = model.findUser(username);
  if (!user || user.password !== password) {
    return { error: fail(401, 'unauthorized', 'Invalid username or password') };
  }
  if (user.passwordExpired) return { error: passwordExpired(user) };
  return { user };
}

function passwordExpired(user: RestUser): ApiResponse {
  return { ...fail(401, 'password_expired', 'The password has expired'), user: user.username };
}

// ---- resources ------------------------------------------------------------------------------

type Handler = (
  model: RestModel,
  request: ApiRequest,
  params: string[],
  /** Who asked (authenticated, and allowed the route's permission). */
  user: RestUser,
) => Promise<ApiResponse> | ApiResponse;

interface Route {
  method: string;
  pattern: RegExp;
  /** The permission the request's page names (./access.ts). */
  permission: string;
  /** The first parameter is a database uid: a role limited to some databases is judged on it. */
  perDatabase?: true;
  /** The first RS that serves it: on an older one it is an unknown path (404). */
  since?: VersionNumbers;
  /** A module upload, refused while the cluster setting allow_modules_upload is off (RS 8.2+). */
  uploadGate?: true;
  handler: Handler;
}

const ROUTES: Route[] = [
  {
    method: 'GET',
    pattern: /^\/v1\/modules$/,
    permission: 'view_cluster_modules',
    handler: (m) => ok(m.modules),
  },
  // rest-api/requests/modules "Get module": 404 when the module does not exist.
  {
    method: 'GET',
    pattern: /^\/v1\/modules\/([^/]+)$/,
    permission: 'view_cluster_modules',
    handler: getModule,
  },
  // The upload of RS 7.22 and earlier (add-module-to-cluster.md). The 8.0 references no longer
  // list it and no source says what an RS 8 answers to it: the simulator keeps taking it, and
  // refuses it with the user-defined uploads while allow_modules_upload is off, as the cluster
  // object's reference says of "module upload endpoints" (rest-api/objects/cluster).
  {
    method: 'POST',
    pattern: /^\/v2\/modules$/,
    permission: 'update_cluster',
    uploadGate: true,
    handler: uploadModule,
  },
  // The custom module requests of RS 8.0.2 and later (./user-defined-modules.ts).
  {
    method: 'POST',
    pattern: /^\/v2\/modules\/user-defined$/,
    permission: 'manage_cluster_modules',
    since: USER_DEFINED_MODULES_SINCE,
    uploadGate: true,
    handler: (m, request) => answer(createUserDefinedModule(m, request.body)),
  },
  {
    method: 'POST',
    pattern: /^\/v2\/local\/modules\/user-defined\/artifacts$/,
    permission: 'manage_cluster_modules',
    since: USER_DEFINED_MODULES_SINCE,
    uploadGate: true,
    handler: async (m, request) =>
      answer(
        await uploadUserDefinedArtifact(
          m,
          String(request.headers['content-type'] ?? ''),
          request.body,
          describeModuleFile,
        ),
      ),
  },
  {
    method: 'GET',
    pattern: /^\/v1\/bdbs$/,
    permission: 'view_all_bdbs_info',
    handler: (m, request, _params, user) => {
      const wanted = wantedFields(request);
      // A user whose roles are limited to some databases sees only those in the list
      // (rs-8-2-0-25.md "Database-scoped management roles": "Other databases are hidden").
      const seen = limitedToSomeDatabases(m, user)
        ? m.bdbs.filter((bdb) => allows(m, user, 'view_bdb_info', String(bdb.uid)))
        : m.bdbs;
      return ok(seen.map((bdb) => onlyFields(m.renderBdb(bdb), wanted)));
    },
  },
  {
    method: 'GET',
    pattern: /^\/v1\/bdbs\/(\d+)$/,
    permission: 'view_bdb_info',
    perDatabase: true,
    handler: getBdb,
  },
  {
    method: 'POST',
    pattern: /^\/v1\/bdbs\/(\d+)\/upgrade$/,
    permission: 'update_bdb_with_action',
    perDatabase: true,
    handler: upgradeBdb,
  },
  {
    method: 'GET',
    pattern: /^\/v1\/actions\/([^/]+)$/,
    permission: 'view_status_of_cluster_action',
    handler: getAction,
  },
  { method: 'GET', pattern: /^\/v1\/nodes$/, permission: 'view_all_nodes_info', handler: (m) => ok(m.nodes) },
  { method: 'GET', pattern: /^\/v1\/cluster$/, permission: 'view_cluster_info', handler: getCluster },
  // requests/license "Get license" (./license.ts).
  {
    method: 'GET',
    pattern: /^\/v1\/license$/,
    permission: 'view_license',
    handler: (m) => answer(licenseAnswer(m.license, m.serverVersion, m.clusterFqdn, m.shards.all().length)),
  },
  // Availability and shards (./availability.ts).
  {
    method: 'GET',
    pattern: /^\/v1\/bdbs\/(\d+)\/availability$/,
    permission: 'view_bdb_info',
    perDatabase: true,
    handler: (m, r, [uid]) => answer(availability.bdbAvailability(m, Number(uid), r.path)),
  },
  {
    method: 'GET',
    pattern: /^\/v1\/local\/bdbs\/(\d+)\/endpoint\/availability$/,
    permission: 'view_bdb_info',
    perDatabase: true,
    handler: (m, r, [uid]) => answer(availability.localEndpointAvailability(m, Number(uid), r.path)),
  },
  {
    method: 'GET',
    pattern: /^\/v1\/shards$/,
    permission: 'view_all_shard_stats',
    handler: (m) => answer(availability.listShards(m)),
  },
  {
    method: 'GET',
    pattern: /^\/v1\/shards\/(\d+)$/,
    permission: 'view_all_shard_stats',
    handler: (m, _r, [uid]) => answer(availability.getShard(m, Number(uid))),
  },
  // Users and roles (./access.ts): requests/users and requests/roles.
  {
    method: 'GET',
    pattern: /^\/v1\/users$/,
    permission: 'view_all_users_info',
    // A user who is no user object (an LDAP user: scenario `listed: false`) is not among them.
    handler: (m) => ok(m.users.filter((user) => user.listed !== false).map((user) => renderUser(m, user))),
  },
  { method: 'GET', pattern: /^\/v1\/users\/(\d+)$/, permission: 'view_user_info', handler: getUser },
  {
    method: 'GET',
    pattern: /^\/v1\/roles$/,
    permission: 'view_all_roles_info',
    handler: (m) => ok(rolesServed(m)),
  },
  {
    method: 'GET',
    pattern: /^\/v1\/bdbs\/(\d+)\/shards$/,
    permission: 'view_all_shard_stats',
    perDatabase: true,
    handler: (m, _r, [uid]) => answer(availability.bdbShards(m, Number(uid))),
  },
];

function findRoute(
  method: string,
  path: string,
): { route: Route; params: string[] } | { methodNotAllowed: true } | undefined {
  let pathMatched = false;
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    pathMatched = true;
    if (route.method === method) return { route, params: match.slice(1) };
  }
  return pathMatched ? { methodNotAllowed: true } : undefined;
}

function getUser(model: RestModel, _request: ApiRequest, [uid]: string[]): ApiResponse {
  const user = model.users.find((candidate) => candidate.uid === uid && candidate.listed !== false);
  return user ? ok(renderUser(model, user)) : fail(404, 'user_not_exist', `User ${uid} does not exist`);
}

function getBdb(model: RestModel, request: ApiRequest, [uid]: string[]): ApiResponse {
  const bdb = model.findBdb(Number(uid));
  if (!bdb) return fail(404, 'db_not_exist', `Database ${uid} does not exist`);
  return ok(onlyFields(model.renderBdb(bdb), wantedFields(request)));
}

/**
 * The `fields` query of GET /v1/bdbs and /v1/bdbs/<uid>: "Comma-separated list of field names to
 * return (by default all fields are returned)" (redis/docs content/operate/rs/7.4/references/
 * rest-api/requests/bdbs/_index.md, and later versions). A named field the object lacks is left
 * out, as a real cluster leaves out unset fields.
 */
function onlyFields(object: Record<string, unknown>, wanted: string[] | null): Record<string, unknown> {
  if (wanted === null) return object;
  // Object.fromEntries of the fields present, as one loop: it runs for each of 10,000 bdbs.
  // `__proto__` would set the prototype here, where fromEntries makes it a member.
  if (wanted.includes('__proto__'))
    return Object.fromEntries(
      wanted.filter((field) => field in object).map((field) => [field, object[field]]),
    );
  const picked: Record<string, unknown> = {};
  for (const field of wanted) if (field in object) picked[field] = object[field];
  return picked;
}

/** The request's `fields`, once per request (not once per bdb of a list); null without it. */
function wantedFields(request: ApiRequest): string[] | null {
  const query = request.path.split('?')[1];
  const fields = query === undefined ? null : new URLSearchParams(query).get('fields');
  return fields === null ? null : fields.split(',').map((field) => field.trim());
}

function upgradeBdb(model: RestModel, request: ApiRequest, [uid]: string[]): ApiResponse {
  const bdb = model.findBdb(Number(uid));
  if (!bdb) return fail(404, 'db_not_exist', `Database ${uid} does not exist`);
  const body = parseJsonBody(request.body);
  if (body === INVALID) return fail(400, 'invalid_json', 'Request body is not valid JSON');
  const key = model.versionKey;
  const otherKey = key === 'redis_version' ? 'engine_version' : 'redis_version';
  if (otherKey in body)
    return fail(400, 'invalid_schema', `Unknown field ${otherKey}; this cluster expects ${key}`);
  const supported = model.supportedDatabaseVersions;
  const target = body[key] ?? supported[supported.length - 1];
  if (typeof target !== 'string' || !supported.includes(target)) {
    return fail(
      400,
      'unsupported_version',
      `${key} ${String(target)} is not supported; supported: ${supported.join(', ')}`,
    );
  }
  if (bdb.action_uid && model.actions.get(bdb.action_uid)?.status !== 'completed') {
    return fail(409, 'bdb_busy', `Database ${uid} already has an action in progress (${bdb.action_uid})`);
  }
  const { action } = model.requestBdbUpgrade(bdb, target);
  return ok({ ...model.renderBdb(bdb), action_uid: action.action_uid });
}

function getAction(model: RestModel, _request: ApiRequest, [uid]: string[]): ApiResponse {
  const action = model.actions.get(uid ?? '');
  if (!action) return fail(404, 'action_not_exist', `Action ${uid} does not exist`);
  return ok(model.renderAction(action));
}

function getCluster(model: RestModel): ApiResponse {
  return ok({
    name: model.clusterFqdn,
    ...(model.createdTime ? { created_time: model.createdTime } : {}),
    rack_aware: false,
    email_alerts: false,
    // From RS 8.2 only (model.ts MODULES_UPLOAD_SETTING_SINCE).
    ...(model.allowModulesUpload === undefined ? {} : { allow_modules_upload: model.allowModulesUpload }),
    cm_port: 8443,
    cnm_https_port: 9443,
  });
}

function getModule(model: RestModel, _request: ApiRequest, [uid]: string[]): ApiResponse {
  const module = model.findModuleByUid(uid ?? '');
  return module ? ok(module) : fail(404, 'module_not_found', `Module ${uid} does not exist`);
}

async function uploadModule(model: RestModel, request: ApiRequest): Promise<ApiResponse> {
  const file = await moduleFilePart(String(request.headers['content-type'] ?? ''), request.body);
  if (file === 'not-multipart')
    return fail(400, 'no_module', 'Send the module as multipart/form-data field "module"');
  if (file === 'unparsable') return fail(400, 'no_module', 'The multipart body could not be parsed');
  if (file === 'missing') return fail(400, 'no_module', 'Missing multipart file field "module"');
  // The cluster's unpacker decides what it takes (module-package.ts).
  const spec = unpackModulePackage(new Uint8Array(await file.arrayBuffer()));
  if ('refused' in spec) return fail(400, 'invalid_module', `${file.name}: ${spec.refused}`);
  const existing = model.findModule(spec.name, spec.version);
  if (existing && spec.platforms.every((key) => key in existing.platforms)) {
    return fail(400, 'module_exists', `Module ${spec.name} ${spec.version} is already installed`);
  }
  const { module, action } = model.uploadModule(spec);
  return ok({ ...module, action_uid: action.action_uid });
}

const MODULE_NAMES: Record<string, string> = {
  redisearch: 'search',
  rejson: 'ReJSON',
  redisjson: 'ReJSON',
  redistimeseries: 'timeseries',
  redisbloom: 'bf',
  redisgears: 'rg',
};

/**
 * The artifact of a user-defined module (POST /v2/local/modules/user-defined/artifacts,
 * user-defined-modules.ts): a zip holding the module and its module.json (module_name,
 * semantic_version, operating_systems such as ["rhel9"], architecture: RedisLabsModules/RAMP
 * RAMP/module_metadata.py). For that request only, the simulator also takes, more leniently
 * than a cluster, a bare module.json ({module_name, semantic_version, platforms}) and a file
 * named as Redis names its packages (`redisearch.Linux-rhel9-x86_64.2.8.4.zip`) whatever it
 * holds. POST /v2/modules unpacks as the cluster does (module-package.ts).
 * Like the cluster's unpacker (RAMP/unpacker.py _validate_metadata), it reads the systems from
 * `operating_systems` or the older `os_list`, refuses a package with an entry of either that
 * names no system and version, or an architecture other than x86_64 and aarch64, and reads `os`
 * not at all; a package that lists no system is taken for the nodes' (rhel9).
 */
export function describeModuleFile(
  fileName: string,
  bytes: Uint8Array,
): { name: string; version: string; platforms: string[] } | undefined {
  const zipped = fromZippedMetadata(bytes);
  if (zipped === 'refused') return undefined;
  return zipped ?? fromMetadataOrName(fileName, Buffer.from(bytes).toString('utf8'));
}

const UNPACKER_ARCHITECTURES = ['x86_64', 'aarch64'];

/** An entry the unpacker parses: a name and a version (`rhel9`, `ubuntu18.04`). */
function parsesAsSystem(entry: unknown): entry is string {
  return typeof entry === 'string' && /[a-zA-Z_]+/.test(entry) && /\d+/.test(entry);
}

function fromZippedMetadata(
  bytes: Uint8Array,
): { name: string; version: string; platforms: string[] } | 'refused' | undefined {
  let meta: Record<string, unknown>;
  try {
    const entries = unzipSync(bytes, { filter: (entry) => entry.name === 'module.json' });
    const json = entries['module.json'];
    if (!json) return undefined;
    meta = JSON.parse(Buffer.from(json).toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof meta.module_name !== 'string' || typeof meta.semantic_version !== 'string') return undefined;
  const arch = typeof meta.architecture === 'string' ? meta.architecture : 'x86_64';
  if (!UNPACKER_ARCHITECTURES.includes(arch)) return 'refused';
  const lists = (['operating_systems', 'os_list'] as const).filter((field) => field in meta);
  for (const field of lists) {
    const list = meta[field];
    if (!Array.isArray(list) || !list.every(parsesAsSystem)) return 'refused';
  }
  const listed = lists.map((field) => meta[field] as string[]).find((list) => list.length > 0);
  const systems = listed ?? ['rhel9'];
  return {
    name: meta.module_name,
    version: meta.semantic_version,
    platforms: systems.map((os) => `${os}/${arch}`),
  };
}

function fromMetadataOrName(
  fileName: string,
  content: string,
): { name: string; version: string; platforms: string[] } | undefined {
  try {
    const meta = JSON.parse(content) as {
      module_name?: unknown;
      semantic_version?: unknown;
      platforms?: unknown;
    };
    if (typeof meta.module_name === 'string' && typeof meta.semantic_version === 'string') {
      const platforms = Array.isArray(meta.platforms)
        ? meta.platforms.map(String)
        : meta.platforms && typeof meta.platforms === 'object'
          ? Object.keys(meta.platforms)
          : ['rhel9/x86_64'];
      return { name: meta.module_name, version: meta.semantic_version, platforms };
    }
  } catch {
    // Not JSON: fall through to the file name.
  }
  const match = /^([A-Za-z]+)\.Linux-([a-z0-9.]+)-(x86_64|arm64|aarch64)\.(\d+\.\d+\.\d+)\.zip$/.exec(
    fileName,
  );
  if (!match) return undefined;
  const [, base = '', os = '', arch = '', version = ''] = match;
  return { name: MODULE_NAMES[base.toLowerCase()] ?? base, version, platforms: [`${os}/${arch}`] };
}

// ---- helpers ------------------------------------------------------------------------------

const INVALID = Symbol('invalid');

function parseJsonBody(body: Buffer): Record<string, unknown> | typeof INVALID {
  if (body.length === 0) return {};
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : INVALID;
  } catch {
    return INVALID;
  }
}

function isValidTtl(ttl: unknown): ttl is number {
  return typeof ttl === 'number' && Number.isInteger(ttl) && ttl >= 1 && ttl <= MAX_TTL;
}

function parseScheme(header: string | string[] | undefined, scheme: string): string | undefined {
  if (typeof header !== 'string') return undefined;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return undefined;
  const value = header.slice(space + 1).trim();
  return value === '' ? undefined : value;
}

function parseBasic(
  header: string | string[] | undefined,
): { username: string; password: string } | undefined {
  const encoded = parseScheme(header, 'Basic');
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function answer({ status, body }: { status: number; body: unknown }): ApiResponse {
  return { status, body, user: '' };
}

function ok(body: unknown): ApiResponse {
  return { status: 200, body, user: '' };
}

function fail(status: number, errorCode: string, message: string): ApiResponse {
  return { status, body: { error_code: errorCode, message }, user: '' };
}
