/**
 * What a `--module-file` holds, read as the management API reads a module package before the run
 * sends it, so that the plan judges the file the remediation will upload (the module-packages
 * check) instead of the run finding out at the freeze, when the cluster answers HTTP 400
 * `invalid_module` (`POST /v2/modules` error codes, redis-facts.md §4: rs/7.22
 * references/rest-api/requests/modules/_index.md).
 *
 * A module package is a zip holding the module and its `module.json`: Redis's packer writes the
 * metadata there, `module_name` and `semantic_version` among it, with the operating systems it
 * was built for (`operating_systems`, e.g. `["rhel9"]`) and `architecture`
 * (RedisLabsModules/RAMP RAMP/module_metadata.py, FIELDS and create_default_metadata; the same
 * requirement for user-defined modules: redis.io rs/references/rest-api/objects/bootstrap/
 * user_defined_module, "Module package requirements").
 *
 * Older packages carry other fields (RAMP's history of module_metadata.py): `operating_systems`
 * from February 2023 (commit ffbc83b), `os_list` for the weeks before (078ff15, January 2023),
 * and always `os`, which is platform.system() ("Linux") unless the packer's `--os` or manifest
 * set it ("build target OS (Darwin/Linux)"). Unpacking, the cluster parses every entry of
 * `os_list` and `operating_systems` as a name and a version and refuses the package when one
 * does not parse (`module_os_list_invalid`), refuses an architecture other than x86_64 and
 * aarch64 (`module_architecture_not_supported`), and reads `os` not at all (RAMP/unpacker.py
 * _validate_metadata and _os_version_parser; Redis keeps it in step with Redis Enterprise's:
 * commits 6dfaf85 "sync RedisEnterprise changes", 5a6de17 "RED-95151 update RAMP unpacker to
 * unpack operating_systems"). So the systems are the list's. Without a list, an `os` naming a
 * release (`rhel8`) or another system than Linux (`Darwin`) still says what the module was built
 * for: the cluster takes such a package, but it is no RHEL9 build and cannot lift the freeze.
 * "Linux" names no release: the check then says it cannot tell rather than guess.
 */

import { basename } from 'node:path';
import { unzipSync } from 'fflate';
import { INPUT_FILE_LIMITS, readInputBytes } from '../io/paths.js';
import type { ModulePackage } from './module-package.js';

/** module.json is a few kilobytes; anything past this is no metadata file. */
const MAX_METADATA_BYTES = 1024 * 1024;
const METADATA = 'module.json';

/** Reads each `--module-file` (bounded as the run reads it) and says what it holds. */
export async function readModulePackages(files: readonly string[]): Promise<ModulePackage[]> {
  const packages: ModulePackage[] = [];
  for (const file of files) {
    packages.push(
      describeModulePackage(
        basename(file),
        await readInputBytes('--module-file', file, INPUT_FILE_LIMITS.moduleFile),
      ),
    );
  }
  return packages;
}

export function describeModulePackage(file: string, bytes: Uint8Array): ModulePackage {
  let entries: Record<string, Uint8Array>;
  try {
    // Only module.json is inflated: the module itself may be tens of megabytes.
    entries = unzipSync(bytes, {
      filter: (entry) => entry.name === METADATA && entry.originalSize <= MAX_METADATA_BYTES,
    });
  } catch {
    return { file, problem: 'it is not a zip archive' };
  }
  const metadata = entries[METADATA];
  if (!metadata) return { file, problem: `the zip holds no ${METADATA} (at most 1 MiB, at its top)` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(metadata).toString('utf8'));
  } catch {
    return { file, problem: `its ${METADATA} is not JSON` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { file, problem: `its ${METADATA} is not a JSON object` };
  }
  const meta = parsed as Record<string, unknown>;
  const module =
    typeof meta.module_name === 'string' && meta.module_name !== '' ? meta.module_name : undefined;
  const version =
    typeof meta.semantic_version === 'string' && meta.semantic_version !== ''
      ? meta.semantic_version
      : undefined;
  if (!module || !version) {
    return { file, problem: `its ${METADATA} names no module_name and semantic_version` };
  }
  const architecture =
    typeof meta.architecture === 'string' && meta.architecture !== '' ? meta.architecture : undefined;
  if (architecture !== undefined && !ARCHITECTURES.includes(architecture)) {
    return {
      file,
      problem: `its ${METADATA} says architecture "${architecture}": the cluster takes x86_64 or aarch64 builds only (module_architecture_not_supported)`,
    };
  }
  const systems = systemsOf(meta);
  if (typeof systems === 'string') return { file, problem: systems };
  return {
    file,
    module,
    version,
    ...(systems && systems.length > 0 ? { operatingSystems: systems } : {}),
    ...(architecture !== undefined ? { architecture } : {}),
  };
}

const ARCHITECTURES = ['x86_64', 'aarch64'];
const LIST_FIELDS = ['operating_systems', 'os_list'] as const;
/** The unpacker's parse of an entry: a name (letters, `_`) and a version (`rhel9`, `ubuntu18.04`). */
const NAME = /[a-zA-Z_]+/;
const RELEASE = /\d+(\.\d+)?(\.\d+)?/;

/**
 * The systems module.json says the module was built for: the first list of `operating_systems`
 * and `os_list` that has entries, else an `os` other than "Linux"; undefined when it does not
 * say; a string (the problem) when a list is one the cluster refuses.
 */
function systemsOf(meta: Record<string, unknown>): string[] | string | undefined {
  let found: string[] | undefined;
  for (const field of LIST_FIELDS) {
    if (!(field in meta)) continue;
    const list = meta[field];
    if (!Array.isArray(list) || list.some((entry) => typeof entry !== 'string')) {
      return `its ${METADATA} ${field} is not a list of systems such as "rhel9" (module_os_list_invalid)`;
    }
    const wrong = (list as string[]).find((entry) => !NAME.test(entry) || !RELEASE.test(entry));
    if (wrong !== undefined) {
      return `its ${METADATA} ${field} entry "${wrong}" names no system and version such as "rhel9" (module_os_list_invalid)`;
    }
    if (found === undefined && list.length > 0) found = list as string[];
  }
  if (found) return found;
  const os = typeof meta.os === 'string' ? meta.os.trim() : '';
  return os === '' || os.toLowerCase() === 'linux' ? undefined : [os];
}
