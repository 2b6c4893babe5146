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
  const systems = Array.isArray(meta.operating_systems)
    ? meta.operating_systems.filter((s): s is string => typeof s === 'string')
    : undefined;
  return {
    file,
    module,
    version,
    ...(systems && systems.length > 0 ? { operatingSystems: systems } : {}),
    ...(typeof meta.architecture === 'string' && meta.architecture !== ''
      ? { architecture: meta.architecture }
      : {}),
  };
}
