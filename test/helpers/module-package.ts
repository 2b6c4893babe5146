import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';

/**
 * A module package as Redis publishes one: a zip holding the module and its module.json
 * (module_name, semantic_version, os, operating_systems, architecture: RedisLabsModules/RAMP
 * RAMP/module_metadata.py create_default_metadata; `os` is platform.system(), "Linux"), named
 * as Redis names them (`rejson.Linux-rhel9-x86_64.2.6.10.zip`). `older` writes what an older
 * ramp-packer wrote instead of operating_systems: `os_list` (January to February 2023, commits
 * 078ff15 to ffbc83b) or nothing but `os`. The module itself is a stand-in: neither ctl nor the
 * simulator runs it.
 */
export interface ModulePackageSpec {
  module: string;
  version: string;
  operatingSystems?: string[];
  architecture?: string;
  older?: { os?: string; osList?: string[] };
}

/**
 * The zip's bytes. module.json has every key the cluster's unpacker indexes (RAMP/unpacker.py:
 * module_file, module_name, architecture, version, the integer version RAMP derives from the
 * semantic one, e.g. 20610 for 2.6.10) and the zip holds module.json and the one `.so` it names.
 */
export function modulePackageBytes(pkg: ModulePackageSpec): Uint8Array {
  const metadata = {
    module_name: pkg.module,
    version: integerVersion(pkg.version),
    semantic_version: pkg.version,
    os: pkg.older?.os ?? 'Linux',
    ...(pkg.older
      ? pkg.older.osList
        ? { os_list: pkg.older.osList }
        : {}
      : { operating_systems: pkg.operatingSystems ?? ['rhel9'] }),
    architecture: pkg.architecture ?? 'x86_64',
    module_file: `${pkg.module.toLowerCase()}.so`,
  };
  return zipOf({
    'module.json': JSON.stringify(metadata),
    [metadata.module_file]: 'a stand-in for the module',
  });
}

/**
 * A zip of text files, by name: the packages a test shapes by hand (a module.json that is not
 * JSON, a file besides the module, ...), for ctl's reader and the simulator's unpacker alike.
 */
export function zipOf(files: Record<string, string>): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])));
}

/** `2.6.10` -> 20610: the module's own number, of which RAMP/packer.py version_to_semantic_version reads the semantic one. */
function integerVersion(semantic: string): number {
  const [major = 0, minor = 0, patch = 0] = semantic.split('.').map(Number);
  return major * 10000 + minor * 100 + patch;
}

export function writeModulePackage(dir: string, pkg: ModulePackageSpec & { file: string }): string {
  const file = path.join(dir, pkg.file);
  writeFileSync(file, modulePackageBytes(pkg));
  return file;
}

/** RedisJSON 2.6.10 built for RHEL9: what module-without-rhel9's freeze needs. */
export function rejsonRhel9Package(dir: string): string {
  return writeModulePackage(dir, {
    file: 'rejson.Linux-rhel9-x86_64.2.6.10.zip',
    module: 'ReJSON',
    version: '2.6.10',
  });
}
