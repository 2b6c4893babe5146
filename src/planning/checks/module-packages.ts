/**
 * `module-packages`: the packages a run with `--remediate` would upload can lift the freeze the
 * plan foresees. Reads what each `--module-file` holds (its module.json: src/planning/
 * module-package.ts) and the modules in use without a RHEL9 build (modules-compatible's
 * judgement). Fails when a file is no module package the cluster takes (it would answer HTTP 400
 * `invalid_module` at the freeze), or when a module the freeze needs has no package of its
 * version built for RHEL9 among them (the run would stop at the freeze: "after uploading ...").
 * Passes without `--remediate`, and when nothing is to be uploaded. Without this check both were
 * found only in the change window, with the cluster frozen mid-roll.
 */

import { requiresRhel9Modules } from '../../release/catalog.js';
import { targetTakesModuleUploads } from '../module-fix.js';
import { describeHeld, mayBeRhel9, type ModulePackage } from '../module-package.js';
import { type Check, type CheckInput, clusterOf, fail, type Outcome, pass } from './check.js';
import { judgeModulesInUse } from './modules-compatible.js';

const PACKAGE_FIX =
  "Pass the RHEL9 package of each module the freeze needs with --module-file: the zip Redis publishes for the module's version (it holds the module and its module.json; RedisJSON 2.6.10 for RHEL9 on x86_64 is rejson.Linux-rhel9-x86_64.2.6.10.zip).";

function checkModulePackages(input: CheckInput): Outcome {
  const { target, snapshot } = input;
  const remediate = target.remediate;
  if (!remediate) return pass('no --remediate: the run uploads no module package');
  const packages = remediate.packages ?? [];
  const broken = packages.filter((p) => p.problem !== undefined);
  if (broken.length > 0) {
    return fail(
      `${broken.map((p) => `${p.file} is no module package the cluster takes: ${p.problem}`).join('; ')} (POST /v2/modules would answer HTTP 400 invalid_module)`,
      PACKAGE_FIX,
    );
  }
  const held =
    packages.length > 0
      ? `; given: ${packages.map((p) => `${p.file} holds ${describeHeld(p)}`).join(', ')}`
      : '';
  const rec = clusterOf(input);
  if (
    !requiresRhel9Modules(target.operator) ||
    !targetTakesModuleUploads(target.operator) ||
    !snapshot.api.reachable ||
    (rec.autoUpgrade && rec.userDefinedModules.length > 0)
  ) {
    return pass(`no module upload is foreseen for ${target.operator}${held}`);
  }
  const needed = judgeModulesInUse(input).uploadable;
  if (needed.length === 0) return pass(`no module in use lacks a RHEL9 build${held}`);
  const uncovered = needed.filter((use) => !packages.some((p) => covers(p, use)));
  if (uncovered.length > 0) {
    return fail(
      `--remediate cannot lift the freeze: no --module-file holds the RHEL9 build of ${uncovered.map((u) => u.key).join(', ')}${held || '; none was given'}`,
      PACKAGE_FIX,
    );
  }
  const keys = needed.map((u) => u.key).join(', ');
  // A package whose module.json names no system (only `os` "Linux", older packers) may be the
  // RHEL9 build or not: the plan says it cannot tell rather than guess (module-package-read.ts).
  const unsure = packages.filter(
    (p) => p.operatingSystems === undefined && needed.some((use) => covers(p, use)),
  );
  const sure = needed.every((use) =>
    packages.some((p) => p.operatingSystems !== undefined && covers(p, use)),
  );
  if (!sure && unsure.length > 0) {
    const one = unsure.length === 1;
    return pass(
      `the --module-file packages hold ${keys}${held}; ${unsure.map((p) => p.file).join(', ')} ${one ? 'does' : 'do'} not say which OS ${one ? 'it was' : 'they were'} built for (${one ? 'its module.json has' : 'their module.json have'} no operating_systems or os_list, and no os naming a release), so the plan cannot tell whether ${one ? 'it is' : 'they are'} the RHEL9 build`,
    );
  }
  return pass(`the --module-file packages hold the RHEL9 build of ${keys}${held}`);
}

/** The same module and version, built for RHEL9 (or not saying: the message then says so). */
function covers(pkg: ModulePackage, use: { name: string; version?: string | undefined }): boolean {
  return (
    pkg.module === use.name && (use.version === undefined || pkg.version === use.version) && mayBeRhel9(pkg)
  );
}

export const modulePackagesCheck = {
  id: 'module-packages',
  needsCluster: true,
  run: checkModulePackages,
} as const satisfies Check;
