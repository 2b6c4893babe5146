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
 *
 * The unpacker refuses more (RAMP/unpacker.py at d350ec4, 2025-07-01, in its order): a zip that
 * holds anything but module.json, one `.so` and entries under `deps/` (_validate_zip_file,
 * `invalid_number_of_files`); a module.json without `module_file` or whose `module_file` is not
 * in the zip, without `module_name`, `architecture` or `version` (KeyError: it indexes them); an
 * empty `version` (`module_version_missing`) or one `int(float(version))` cannot read
 * (`module_version_not_integer`). The plan refuses the same, so a Ready plan does not stop at
 * the upload. The unpacker iterates a system list as Python does: a string by its characters
 * (so "rhel9" is refused: "r" names no version), an object by its keys.
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
  const names: string[] = [];
  try {
    // Only module.json is inflated: the module itself may be tens of megabytes.
    entries = unzipSync(bytes, {
      filter: (entry) => {
        names.push(entry.name);
        return entry.name === METADATA && entry.originalSize <= MAX_METADATA_BYTES;
      },
    });
  } catch {
    return { file, problem: 'it is not a zip archive' };
  }
  const content = zipContentProblem(names);
  if (content) return { file, problem: content };
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
  const moduleFile = meta.module_file;
  if (typeof moduleFile !== 'string' || moduleFile === '') {
    return { file, problem: `its ${METADATA} names no module_file (the file of the module in the zip)` };
  }
  if (!names.includes(moduleFile)) {
    return {
      file,
      problem: `its ${METADATA} names module_file "${moduleFile}", which the zip does not hold`,
    };
  }
  const module =
    typeof meta.module_name === 'string' && meta.module_name !== '' ? meta.module_name : undefined;
  const version =
    typeof meta.semantic_version === 'string' && meta.semantic_version !== ''
      ? meta.semantic_version
      : undefined;
  if (!module || !version) {
    return { file, problem: `its ${METADATA} names no module_name and semantic_version` };
  }
  const architecture = typeof meta.architecture === 'string' ? meta.architecture : undefined;
  if (!('architecture' in meta)) {
    return {
      file,
      problem: `its ${METADATA} names no architecture (the cluster takes x86_64 or aarch64 builds)`,
    };
  }
  if (architecture === undefined || !ARCHITECTURES.includes(architecture)) {
    return {
      file,
      problem: `its ${METADATA} says architecture ${JSON.stringify(meta.architecture)}: the cluster takes x86_64 or aarch64 builds only (module_architecture_not_supported)`,
    };
  }
  const versionProblem = integerVersionProblem(meta);
  if (versionProblem) return { file, problem: versionProblem };
  const systems = systemsOf(meta);
  if (typeof systems === 'string') return { file, problem: systems };
  return {
    file,
    module,
    version,
    ...(systems && systems.length > 0 ? { operatingSystems: systems } : {}),
    architecture,
  };
}

/** _validate_zip_file: module.json, at most one `.so`, and `deps/...`; nothing else. */
function zipContentProblem(names: readonly string[]): string | undefined {
  const modules = names.filter((name) => name.endsWith('.so'));
  if (modules.length > 1) {
    return `the zip holds ${modules.length} .so files (${modules.join(', ')}): the cluster takes one module per package (invalid_number_of_files)`;
  }
  const others = names.filter(
    (name) => !name.endsWith('.so') && name !== METADATA && !name.startsWith('deps/'),
  );
  if (others.length === 0) return undefined;
  return `the zip holds ${others.map((name) => `"${name}"`).join(', ')} besides module.json, the module's .so and deps/: the cluster takes nothing else (invalid_number_of_files)`;
}

/**
 * module.json's integer `version` as the unpacker reads it: present, not empty (Python's `not
 * version`: null, false, 0, "", [] and {} are empty), and readable by `int(float(version))`.
 */
function integerVersionProblem(meta: Record<string, unknown>): string | undefined {
  if (!('version' in meta)) return `its ${METADATA} names no version (the module's integer version)`;
  const version = meta.version;
  const empty =
    version === null ||
    version === false ||
    version === 0 ||
    version === '' ||
    (Array.isArray(version) && version.length === 0) ||
    (typeof version === 'object' && version !== null && Object.keys(version).length === 0);
  if (empty) return `its ${METADATA} version is empty (module_version_missing)`;
  const readable =
    typeof version === 'boolean' ||
    (typeof version === 'number' && Number.isFinite(version)) ||
    (typeof version === 'string' && PYTHON_FLOAT.test(version));
  return readable
    ? undefined
    : `its ${METADATA} version ${JSON.stringify(version)} is not a number (module_version_not_integer)`;
}

/** What Python's float() reads and int() then takes: a decimal, with `_` between digits, maybe an exponent. */
const PYTHON_FLOAT = /^\s*[+-]?(\d+(_\d+)*\.?(\d+(_\d+)*)?|\.\d+(_\d+)*)([eE][+-]?\d+)?\s*$/;

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
    const list = iterated(meta[field]);
    if (list === undefined) {
      return `its ${METADATA} ${field} is not a list of systems such as "rhel9" (module_os_list_invalid)`;
    }
    const wrong = list.find(
      (entry) => typeof entry !== 'string' || !NAME.test(entry) || !RELEASE.test(entry),
    );
    if (wrong !== undefined) {
      return `its ${METADATA} ${field} entry ${JSON.stringify(wrong)} names no system and version such as "rhel9" (module_os_list_invalid)`;
    }
    if (found === undefined && list.length > 0) found = list as string[];
  }
  if (found) return found;
  const os = typeof meta.os === 'string' ? meta.os.trim() : '';
  return os === '' || os.toLowerCase() === 'linux' ? undefined : [os];
}

/** What the unpacker's loop goes through: a list's items, a string's characters, an object's keys. */
function iterated(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [...value];
  if (value !== null && typeof value === 'object') return Object.keys(value);
  return undefined;
}
