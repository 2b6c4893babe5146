/**
 * What a `--module-file` holds (read by module-package-read.ts, which alone loads the zip reader:
 * a plan without --remediate reads no zip and loads none), and how messages name it.
 */

export interface ModulePackage {
  /** The file's base name, as the upload names it. */
  file: string;
  /** `module_name` of its module.json. */
  module?: string;
  /** `semantic_version` of its module.json. */
  version?: string;
  /**
   * The systems its module.json says it was built for: `operating_systems`, else `os_list`
   * (older packers), else an `os` naming more than "Linux" (module-package-read.ts); absent
   * when it does not say.
   */
  operatingSystems?: string[];
  /** `architecture` of its module.json, when it says. */
  architecture?: string;
  /** Why the cluster would not take it as a module package; absent when it would. */
  problem?: string;
}

/** `ReJSON 2.6.10 (rhel9, x86_64)`: what a package holds, for messages. */
export function describeHeld(pkg: ModulePackage): string {
  const build = [pkg.operatingSystems?.join('/'), pkg.architecture].filter(Boolean).join(', ');
  return `${pkg.module ?? '?'} ${pkg.version ?? '?'}${build ? ` (${build})` : ''}`;
}

/**
 * The systems Redis Enterprise counts as RHEL9: RAMP's RLEC_OS_MAP (RedisLabsModules/RAMP
 * RAMP/module_metadata.py) names the build hosts whose packages are Redis Enterprise's `rhel9`
 * builds: rhel9, rocky9, centos9, almalinux9, oracle9 (the packer writes the mapped name,
 * get_curr_os; a manifest may write the host's own). Exact names: the map has no `rhel9.4`.
 */
const RHEL9_SYSTEMS = ['rhel9', 'rocky9', 'centos9', 'almalinux9', 'oracle9'];

/** A package built for RHEL9, or one whose module.json does not say (the check then says so). */
export function mayBeRhel9(pkg: ModulePackage): boolean {
  return pkg.operatingSystems === undefined || pkg.operatingSystems.some((os) => RHEL9_SYSTEMS.includes(os));
}

/**
 * A key of a module object's `platforms` (`<os>/<arch>`, such as `rhel9/x86_64`) for a RHEL9
 * build, by the same exact names: `rocky9/x86_64` is one, `rhel9.4/x86_64` is not. The plan's
 * modules-compatible check and the run's frozen-upgrade remediation both judge by it, as the
 * simulator's freeze does (src/sim/operator/freeze.ts, by the simulator's own RLEC_OS_MAP).
 */
export function isRhel9Platform(key: string): boolean {
  const os = /^([^/]+)\//.exec(key)?.[1];
  return os !== undefined && RHEL9_SYSTEMS.includes(os);
}
