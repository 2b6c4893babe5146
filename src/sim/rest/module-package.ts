/**
 * A module package as the cluster unpacks one on `POST /v2/modules`: Redis Enterprise's
 * unpacker is RAMP's (RedisLabsModules/RAMP RAMP/unpacker.py, kept in step with Redis
 * Enterprise's: commits 6dfaf85 "sync RedisEnterprise changes", 5a6de17 "RED-95151 update RAMP
 * unpacker to unpack operating_systems"; read at d350ec4, 2025-07-01). In its order, it refuses:
 *
 * - a body that is no zip ("Failed to extract bundle");
 * - a zip holding anything but module.json, one `.so` file and entries under `deps/`
 *   (_validate_zip_file: "module zip file content invalid", `invalid_number_of_files`);
 * - a zip without module.json, a module.json without `module_file` or whose `module_file` is not
 *   in the zip (KeyError), a module.json that is not JSON ("Failed to read module.json");
 * - _validate_metadata: an empty `module_name` (`module_name_missing`), an `architecture` other
 *   than x86_64 and aarch64 (`module_architecture_not_supported`), a missing or empty `version`
 *   (`module_version_missing`) or one `int(float(version))` cannot read
 *   (`module_version_not_integer`), an entry of `os_list` or `operating_systems` that names no
 *   system and version (`module_os_list_invalid`). A key the unpacker indexes that is absent
 *   (`module_name`, `architecture`, `version`) raises KeyError: refused too.
 *
 * The API answers these 400 `invalid_module` (the documented code for "an invalid module file":
 * rs/7.22 references/rest-api/requests/modules/_index.md); the message is the unpacker's
 * (UnpackerPackageError.__str__: "<message>, reason: <reason>"). For the KeyError cases the
 * cluster's wording is not on record: the message names the missing key. The unpacker reads no
 * `semantic_version`, but the module object carries it and the simulator keys modules by it, so
 * a package without one is refused the same way.
 *
 * The systems a package was built for are its `operating_systems` (or the older `os_list`) in
 * RAMP's names for Redis Enterprise's systems: RLEC_OS_MAP (RAMP/module_metadata.py) maps rocky9,
 * centos9, almalinux9 and oracle9 to rhel9 (and the 8s to rhel8), the name the module object's
 * `platforms` keys carry (`rhel9/x86_64`). A package that lists none is taken for the nodes'.
 */

import { unzipSync } from 'fflate';

export interface UnpackedModule {
  name: string;
  version: string;
  platforms: string[];
}

export interface ModuleRefusal {
  refused: string;
}

const METADATA = 'module.json';
const ARCHITECTURES = ['x86_64', 'aarch64'];
const INVALID_METADATA = 'module metadata invalid';
/** What the nodes run: a package that names no system is taken for it. */
const NODE_SYSTEM = 'rhel9';

/** RAMP/module_metadata.py RLEC_OS_MAP: the build host's system -> Redis Enterprise's name for it. */
const RLEC_OS_MAP: Readonly<Record<string, string>> = {
  rhel7: 'rhel7',
  rhel8: 'rhel8',
  rhel9: 'rhel9',
  centos7: 'rhel7',
  centos8: 'rhel8',
  rocky8: 'rhel8',
  almalinux8: 'rhel8',
  oracle8: 'rhel8',
  rocky9: 'rhel9',
  centos9: 'rhel9',
  almalinux9: 'rhel9',
  oracle9: 'rhel9',
};

/**
 * A module object's `platforms` key (`<os>/<arch>`) for a build the RHEL9 nodes run: its system
 * one RLEC_OS_MAP names rhel9 (exact names: `rhel9.4` is none).
 */
export function isRhel9Platform(key: string): boolean {
  const os = /^([^/]+)\//.exec(key)?.[1];
  return os !== undefined && Object.hasOwn(RLEC_OS_MAP, os) && RLEC_OS_MAP[os] === 'rhel9';
}

export function unpackModulePackage(bytes: Uint8Array): UnpackedModule | ModuleRefusal {
  const names: string[] = [];
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes, {
      filter: (entry) => {
        names.push(entry.name);
        return entry.name === METADATA;
      },
    });
  } catch {
    return { refused: 'Failed to extract bundle, reason: None' };
  }
  const modules = names.filter((name) => name.endsWith('.so'));
  const expected = modules.length + names.filter((n) => n === METADATA || n.startsWith('deps/')).length;
  if (names.length > expected || modules.length > 1) {
    return {
      refused:
        'module zip file content invalid, reason: module zip file should contains exactly two files and deps folder',
    };
  }
  const json = entries[METADATA];
  if (!json) return { refused: `There is no item named '${METADATA}' in the archive` };
  let meta: unknown;
  try {
    meta = JSON.parse(Buffer.from(json).toString('utf8'));
  } catch {
    return { refused: 'Failed to read module.json, reason: None' };
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    return { refused: `${METADATA} is not a JSON object` };
  }
  return validateMetadata(meta as Record<string, unknown>, names);
}

function validateMetadata(
  meta: Record<string, unknown>,
  names: readonly string[],
): UnpackedModule | ModuleRefusal {
  const invalid = (reason: string) => ({ refused: `${INVALID_METADATA}, reason: ${reason}` });
  const missing = (key: string) => ({ refused: `${METADATA} has no "${key}"` });
  if (!('module_file' in meta)) return missing('module_file');
  if (typeof meta.module_file !== 'string' || !names.includes(meta.module_file)) {
    return { refused: `There is no item named '${String(meta.module_file)}' in the archive` };
  }
  if (!('module_name' in meta)) return missing('module_name');
  if (typeof meta.module_name !== 'string' || meta.module_name === '') return invalid('Empty module name');
  if (!('architecture' in meta)) return missing('architecture');
  if (typeof meta.architecture !== 'string' || !ARCHITECTURES.includes(meta.architecture)) {
    return invalid('Architecture must be 64 bits');
  }
  if (!('version' in meta)) return missing('version');
  if (!pythonTruthy(meta.version)) return invalid('Missing version');
  if (!integerByFloat(meta.version)) return invalid('Module version should be an integer');
  const lists: string[][] = [];
  for (const field of ['os_list', 'operating_systems'] as const) {
    if (!(field in meta)) continue;
    const entries = iterated(meta[field]);
    if (entries === undefined) return { refused: `${METADATA} ${field} is not a list` };
    const wrong = entries.find((entry) => !parsesAsSystem(entry));
    if (wrong !== undefined) return invalid(`Can't parse OS '${String(wrong)}'`);
    lists.push(entries as string[]);
  }
  if (typeof meta.semantic_version !== 'string' || meta.semantic_version === '') {
    return { refused: `${METADATA} has no "semantic_version"` };
  }
  // operating_systems before os_list: the newer field wins where a package has both.
  const listed = [...lists].reverse().find((list) => list.length > 0);
  const systems = (listed ?? [NODE_SYSTEM]).map((os) => RLEC_OS_MAP[os] ?? os);
  return {
    name: meta.module_name,
    version: meta.semantic_version,
    platforms: [...new Set(systems)].map((os) => `${os}/${String(meta.architecture)}`),
  };
}

/** Python's truth of a JSON value: `not value` is true for null, false, 0, "", [] and {}. */
function pythonTruthy(value: unknown): boolean {
  if (value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** Whether `int(float(value))` reads the value: a finite number, a boolean, or a decimal string. */
function integerByFloat(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'string') return false;
  return /^\s*[+-]?(\d+(_\d+)*\.?(\d+(_\d+)*)?|\.\d+(_\d+)*)([eE][+-]?\d+)?\s*$/.test(value);
}

/** What Python iterates in a JSON value: a list's items, a string's characters, an object's keys. */
function iterated(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [...value];
  if (value !== null && typeof value === 'object') return Object.keys(value);
  return undefined;
}

/** _os_version_parser: a name (letters, `_`) and a version (digits) somewhere in the entry. */
function parsesAsSystem(entry: unknown): boolean {
  return typeof entry === 'string' && /[a-zA-Z_]+/.test(entry) && /\d+/.test(entry);
}
