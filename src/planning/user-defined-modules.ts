/**
 * `--user-defined-modules <file>` on `plan` and `run`: the custom (user-defined) modules the
 * cluster step writes into the cluster resource's `spec.userDefinedModules`, in the same patch
 * as the new `versionTag`.
 *
 * Why a flag and not a patch before the upgrade: the field exists only in the REC CRD from
 * operator 8.0.6-8 (src/planning/module-fix.ts cites the sources), so on an older running
 * operator the field cannot be set before the operator step brings the new CRD. The documented
 * procedure sets both in one edit, after the operator upgrade: redis/docs
 * `content/operate/kubernetes/upgrade/upgrade-redis-cluster.md`, "Edit redisEnterpriseImageSpec
 * in the REC spec" (replace versionTag, "Define any user-defined modules used by databases in
 * the cluster"), and `content/operate/kubernetes/re-databases/modules.md`, "Upgrade with
 * user-defined modules" ("Add or update the userDefinedModules list in the REC spec ... before
 * or during the cluster upgrade"; the name must match the module's display_name or
 * module_name).
 *
 * The file is a YAML or JSON list in the REC's own shape: `name`, `source.https.url`, optional
 * `source.https.credentialsSecret` (the name of a Secret, never its values). It is read like
 * every input file (src/kube/download.ts: a regular file only, at most 256 KiB, within 10 s);
 * a URL carrying credentials (`user:pass@`, a query) is refused: the list goes into the saved
 * plan, the state file and the cluster resource, so it must hold no secret.
 */

import { z } from 'zod';
import { OperationError, UsageError } from '../errors.js';
import { download, isUrl } from '../kube/download.js';
import { parseYaml, yamlProblem } from '../io/yaml-from-outside.js';

import type { UserDefinedModule } from './user-defined-modules-patch.js';

export type { UserDefinedModule } from './user-defined-modules-patch.js';

export const USER_DEFINED_MODULES_FLAG = '--user-defined-modules';

/** Far more than any real list of modules; the file is read whole. */
export const USER_DEFINED_MODULES_LIMITS = { what: USER_DEFINED_MODULES_FLAG, maxBytes: 256 * 1024 } as const;
const DEADLINE_MS = 10_000;
const MAX_MODULES = 100;

const HINT =
  "Give a YAML or JSON list in the shape of the cluster resource's spec.userDefinedModules, e.g.\n  - name: MODULE_NAME             # its module_name or display_name\n    source:\n      https:\n        url: https://HOST/MODULE.zip  # its build for the target\n        credentialsSecret: SECRET_NAME  # optional";

/** A Secret's name: a DNS-1123 subdomain. */
const SECRET_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const moduleSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a module name: letters, digits, "_", "." and "-"'),
  source: z.strictObject({
    https: z.strictObject({
      url: z.string().max(2048).refine(isSafeHttpsUrl, {
        message:
          'an https:// URL without credentials (no user:password@, no query): give credentials as credentialsSecret, the name of a Secret',
      }),
      credentialsSecret: z.string().max(253).regex(SECRET_NAME, 'the name of a Secret').optional(),
    }),
  }),
});

const listSchema = z
  .array(moduleSchema)
  .min(1, 'an empty list')
  .max(MAX_MODULES)
  .refine((list) => new Set(list.map((m) => m.name)).size === list.length, {
    message: 'a module is listed twice',
  });

function isSafeHttpsUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.username === '' && url.password === '' && url.search === '';
}

/** Reads and checks the file; anything wrong is a UsageError (exit 2) before any cluster is read. */
export async function loadUserDefinedModules(path: string): Promise<UserDefinedModule[]> {
  const flag = `${USER_DEFINED_MODULES_FLAG} ${path}`;
  if (isUrl(path)) {
    throw new UsageError(`${flag}: a file is expected, not a URL`, {
      hint: 'Save the list to a file first.',
    });
  }
  let text: string;
  try {
    text = (await download(path, { ...USER_DEFINED_MODULES_LIMITS, deadlineMs: DEADLINE_MS })).text;
  } catch (error) {
    if (!(error instanceof OperationError)) throw error;
    throw new UsageError(`${flag}: ${error.message}`, { hint: error.hint ?? HINT, cause: error });
  }
  let document: unknown;
  try {
    // YAML is a superset of JSON: one parser reads both.
    document = parseYaml(text);
  } catch (error) {
    // Where and what, never the file's lines (yaml-from-outside.ts): a URL in them may carry a secret.
    throw new UsageError(`${flag}: neither JSON nor YAML (${yamlProblem(error)})`, { hint: HINT });
  }
  const parsed = listSchema.safeParse(document);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
    throw new UsageError(`${flag} is not a list of user-defined modules: ${problems.join('; ')}`, {
      hint: HINT,
    });
  }
  return parsed.data.map(({ name, source }) => ({
    name,
    source: {
      https: {
        url: source.https.url,
        ...(source.https.credentialsSecret ? { credentialsSecret: source.https.credentialsSecret } : {}),
      },
    },
  }));
}
