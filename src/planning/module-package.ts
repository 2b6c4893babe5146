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

/** A package built for RHEL9, or one whose module.json does not say (the check then says so). */
export function mayBeRhel9(pkg: ModulePackage): boolean {
  return pkg.operatingSystems === undefined || pkg.operatingSystems.some((os) => os.startsWith('rhel9'));
}
