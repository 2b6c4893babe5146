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
export function writeModulePackage(
  dir: string,
  pkg: {
    file: string;
    module: string;
    version: string;
    operatingSystems?: string[];
    architecture?: string;
    older?: { os?: string; osList?: string[] };
  },
): string {
  const metadata = {
    module_name: pkg.module,
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
  const file = path.join(dir, pkg.file);
  writeFileSync(
    file,
    zipSync({
      'module.json': strToU8(JSON.stringify(metadata)),
      [metadata.module_file]: strToU8('a stand-in for the module'),
    }),
  );
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
