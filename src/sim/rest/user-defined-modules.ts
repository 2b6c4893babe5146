/**
 * The custom (user-defined) module requests of the management API, from RS 8.0.2 (redis/docs
 * content/operate/rs/release-notes/rs-8-0-releases/rs-8-0-2-17.md: "Added new REST API requests
 * to manage custom, user-defined modules"; content/operate/rs/references/rest-api/requests/
 * modules/user-defined.md). From RS 8.0 on they are the documented way to add a custom module
 * (operate/oss_and_stack/stack-with-enterprise/install/add-module-to-cluster.md, "Add a
 * user-defined module to a cluster (Redis Software v8.0.x and later)"; `POST /v2/modules` is the
 * way of "v7.22.x and earlier", and the 8.0 references no longer list it):
 *
 * - `POST /v2/modules/user-defined`: a JSON module configuration (module_name, version,
 *   semantic_version, display_name, commands, command_line_args, capabilities,
 *   min_redis_version, all required) becomes a module object in the cluster's configuration;
 *   200 with the module object, 406 "an issue with the module object, such as missing required
 *   fields or invalid values".
 * - `POST /v2/local/modules/user-defined/artifacts`: the module's `.zip` (multipart), on each
 *   node; 200, 400 "Missing or bad artifact", 406 "bad metadata".
 * - both need `manage_cluster_modules` (admin only).
 *
 * From RS 8.2, while the cluster setting `allow_modules_upload` is off, both answer
 * `403 modules_upload_disabled` "regardless of user role" (rs-8-2-releases/rs-8-2-0-25.md,
 * "Breaking changes"): handlers.ts checks that before the role (Route.uploadGate).
 *
 * Ours, since the docs do not say: the `error_code` of a 406 or 400 (the status is documented),
 * and that an artifact whose module has no configuration yet is bad metadata (406). The
 * simulated API is one endpoint for the whole cluster, so an artifact posted to it counts for
 * every node; it adds the nodes' platform (`rhel9/x86_64` for RHEL 9.4 on x86_64, the key
 * format of the module object's `platforms`) as an upload does (RestModel.uploadModule), which
 * may lift a frozen upgrade.
 */

import type { RestModel, RestModule } from './model.js';
import { moduleFilePart } from './module-file-part.js';

export interface Answer {
  status: number;
  body: unknown;
}

/** The RS that first serves these requests. */
export const USER_DEFINED_MODULES_SINCE = [8, 0, 2] as const;

const REQUIRED: Record<string, (value: unknown) => boolean> = {
  module_name: (value) => typeof value === 'string' && /^[A-Za-z][A-Za-z0-9_-]*$/.test(value),
  version: (value) => typeof value === 'number' && Number.isInteger(value) && value > 0,
  semantic_version: (value) => typeof value === 'string' && /^\d+\.\d+\.\d+$/.test(value),
  display_name: (value) => typeof value === 'string',
  commands: Array.isArray,
  command_line_args: (value) => typeof value === 'string',
  capabilities: (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
  min_redis_version: (value) => typeof value === 'string',
};

/** POST /v2/modules/user-defined: the module configuration, no build for any platform yet. */
export function createUserDefinedModule(model: RestModel, body: Buffer): Answer {
  let config: Record<string, unknown>;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    config = parsed as Record<string, unknown>;
  } catch {
    return notAcceptable('invalid_module', 'The module configuration is not a JSON object');
  }
  const wrong = Object.entries(REQUIRED)
    .filter(([field, valid]) => !valid(config[field]))
    .map(([field]) => field);
  if (wrong.length > 0)
    return notAcceptable('invalid_module', `Missing or invalid module fields: ${wrong.join(', ')}`);
  const name = config.module_name as string;
  const semantic = config.semantic_version as string;
  if (model.findModule(name, semantic))
    return notAcceptable('module_exists', `Module ${name} ${semantic} is already in the cluster`);
  const module: RestModule = model.addModule({ name, version: semantic, platforms: [], kind: 'custom' });
  module.version = config.version as number;
  module.display_name = config.display_name as string;
  module.capabilities = [...(config.capabilities as string[])];
  module.min_redis_version = config.min_redis_version as string;
  return { status: 200, body: module };
}

/** POST /v2/local/modules/user-defined/artifacts: the module's build, for the nodes' platform. */
export async function uploadUserDefinedArtifact(
  model: RestModel,
  contentType: string,
  body: Buffer,
  readMetadata: (fileName: string, bytes: Uint8Array) => { name: string; version: string } | undefined,
): Promise<Answer> {
  const file = await moduleFilePart(contentType, body);
  if (file === 'not-multipart')
    return badRequest('Send the module artifact as multipart/form-data field "module"');
  if (file === 'unparsable') return badRequest('The multipart body could not be parsed');
  if (file === 'missing') return badRequest('Missing multipart file field "module"');
  const meta = readMetadata(file.name, new Uint8Array(await file.arrayBuffer()));
  if (!meta) return notAcceptable('invalid_module', `Cannot read the module metadata of ${file.name}`);
  if (!model.findModule(meta.name, meta.version))
    return notAcceptable(
      'invalid_module',
      `Module ${meta.name} ${meta.version} has no configuration in the cluster: POST /v2/modules/user-defined first`,
    );
  model.uploadModule({
    name: meta.name,
    version: meta.version,
    platforms: nodePlatforms(model),
    kind: 'custom',
  });
  return { status: 200, body: {} };
}

/** The nodes' `<os><major>/<arch>` keys, as the module object's `platforms` names them. */
function nodePlatforms(model: RestModel): string[] {
  const keys = model.nodes.map(
    (node) => `${node.os_name}${node.os_version.split('.')[0] ?? ''}/${node.architecture}`,
  );
  return [...new Set(keys)];
}

function notAcceptable(errorCode: string, message: string): Answer {
  return { status: 406, body: { error_code: errorCode, message } };
}

function badRequest(message: string): Answer {
  return { status: 400, body: { error_code: 'no_module', message } };
}
