/**
 * `modules-compatible`: every module in use can follow the target: reads the cluster's user-defined
 * modules and auto-upgrade, and the management API's modules (their platforms) and each database's
 * module list. A module without a RHEL9 build for a target that needs one fails (the upgrade would
 * freeze), with the fix that fits the target's RS (module-fix.ts). With --user-defined-modules,
 * also that the CRD the cluster step writes through keeps spec.userDefinedModules
 * (../user-defined-modules-field.ts): worst outcome first.
 */

import { dialectFields } from '../../release/dialect.js';
import { requiresRhel9Modules } from '../../release/catalog.js';
import {
  type CtlTarget,
  ctlRunTo,
  ctlTargetOf,
  curlApi,
  kubectlMergePatch,
  patchAt,
} from '../equivalent-commands.js';
import {
  hasNoRhel9Build,
  listedAsUserDefined,
  moduleFix,
  reportedBundled,
  targetTakesModuleUploads,
} from '../module-fix.js';
import { userDefinedModulesFieldOutcome } from '../user-defined-modules-field.js';
import { isRhel9Platform } from '../module-package.js';
import type { Bdb } from '../snapshot.js';
import { type Check, type CheckInput, clusterOf, fail, list, type Outcome, pass, warn } from './check.js';

function checkModulesCompatible(input: CheckInput): Outcome {
  const field = userDefinedModulesFieldOutcome(input);
  if (field?.status === 'fail') return field;
  const modules = checkModulesInUse(input);
  if (!field || modules.status === 'fail') return modules;
  // The field's warn ("cannot tell") wins over a pass; a pass adds what it saw.
  if (field.status === 'warn' && modules.status === 'pass')
    return { ...field, message: `${field.message}; ${modules.message}` };
  return { ...modules, message: `${modules.message}; ${field.message}` };
}

function checkModulesInUse(input: CheckInput): Outcome {
  const { snapshot, target } = input;
  const rec = clusterOf(input);
  // The modules of --user-defined-modules too: with auto-upgrade on the operator moves the
  // cluster itself and the cluster step writes nothing, so they would never be set.
  const userDefined = [
    ...new Set([...rec.userDefinedModules, ...(target.userDefinedModules ?? []).map((m) => m.name)]),
  ];
  if (userDefined.length > 0 && rec.autoUpgrade) {
    const fields = dialectFields(snapshot.dialect);
    return fail(
      `user-defined modules (${userDefined.join(', ')}) need auto-upgrade off before the operator upgrade`,
      kubectlMergePatch(
        snapshot.kubeTarget,
        'rec',
        rec.name,
        rec.namespace,
        patchAt(fields.autoUpgradePath, false),
      ),
    );
  }
  if (!requiresRhel9Modules(target.operator)) return pass(`${target.operator} needs no RHEL9 module builds`);
  if (!snapshot.api.reachable) {
    return warn(
      // Not reached, or answered in a form that is not the API's (a module's platforms as a list).
      'cannot list the modules in use: the management API was not read (api-reachable says why)',
      'Fix api-reachable to verify the RHEL9 module builds.',
    );
  }
  const { inUse, missing, fixes, uploadable, unknown, listed } = judgeModulesInUse(input);
  if (missing.length > 0) {
    return fail(
      `modules without a RHEL9 build: ${missing.join('; ')}: the cluster upgrade to ${target.operator} would freeze`,
      `For each module: ${[...new Set(fixes)].join('; ')}.` +
        (uploadable.length > 0
          ? remediation(target.operator, target.onTheWayTo ?? target.operator, ctlTargetOf(snapshot))
          : ''),
    );
  }
  if (unknown.length > 0) {
    return warn(
      `cannot tell the platforms of ${unknown.join(', ')}`,
      `List them: ${curlApi('GET', '/v1/modules')} | jq -r '.[] | [.module_name, .semantic_version, (.platforms | keys)]'`,
    );
  }
  if (listed.length > 0) {
    const others = [...inUse.keys()].filter((key) => !listed.includes(key));
    return pass(
      `${listed.join(', ')}: listed in --user-defined-modules, set in spec.userDefinedModules with the new versionTag by the cluster step` +
        (others.length > 0 ? `; every other module in use has a RHEL9 build (${others.join(', ')})` : ''),
    );
  }
  return pass(
    inUse.size === 0
      ? 'no modules in use'
      : `every module in use has a RHEL9 build (${[...inUse.keys()].join(', ')})`,
  );
}

type ModuleUse = { name: string; version?: string | undefined; databases: string[] };

/**
 * The modules the databases use, each judged against the management API's builds: without a
 * RHEL9 build (`missing`, with its fix; `uploadable` when a RHEL9 build exists to upload, which
 * the module-packages check holds the --module-file packages to), platforms unknown, or listed in
 * --user-defined-modules. For a target that needs RHEL9 builds, with the API read.
 */
export function judgeModulesInUse(input: CheckInput): {
  inUse: Map<string, ModuleUse>;
  missing: string[];
  fixes: string[];
  uploadable: { key: string; name: string; version?: string | undefined }[];
  unknown: string[];
  listed: string[];
} {
  const { snapshot, target, resolved } = input;
  const rec = clusterOf(input);
  const inUse = modulesInUse(snapshot.api.bdbs);
  const missing: string[] = [];
  const fixes: string[] = [];
  // Modules an upload can fix (not RedisGraph, which has no RHEL9 build: module-fix.ts).
  const uploadable: { key: string; name: string; version?: string | undefined }[] = [];
  const unknown: string[] = [];
  const listed: string[] = [];
  for (const [key, use] of inUse) {
    const candidates = snapshot.api.modules.filter(
      (m) => m.module_name === use.name && (use.version === undefined || m.semantic_version === use.version),
    );
    const platforms = candidates.flatMap((m) => Object.keys(m.platforms ?? {}));
    if (candidates.some((m) => m.is_bundled) && platforms.length === 0) continue;
    if (candidates.length === 0 || candidates.every((m) => m.platforms === undefined)) {
      unknown.push(key);
    } else if (!platforms.some(isRhel9Platform)) {
      const fix = {
        targetOperator: target.operator,
        runTo: target.onTheWayTo ?? target.operator,
        currentOperator: resolved.operator.current,
        module: use.name,
        version: use.version,
        isBundled: reportedBundled(candidates),
        reportedByRs8: (resolved.currentRs?.[0] ?? 0) >= 8,
        cluster: { name: rec.name, namespace: rec.namespace },
        kube: ctlTargetOf(snapshot),
        databases: use.databases,
      };
      const displayNames = candidates.flatMap((m) => (m.display_name ? [m.display_name] : []));
      // Listed in --user-defined-modules: the cluster step sets it with the new versionTag.
      if (listedAsUserDefined(fix, displayNames, target.userDefinedModules)) {
        listed.push(key);
        continue;
      }
      missing.push(`${key} (platforms: ${platforms.join(', ') || 'none'}; used by ${list(use.databases)})`);
      // Fit for the target's RS: bundled from 8.0, userDefinedModules, uploads before (module-fix.ts).
      fixes.push(moduleFix(fix));
      if (!hasNoRhel9Build(use.name)) uploadable.push({ key, name: use.name, version: use.version });
    }
  }
  return { inUse, missing, fixes, uploadable, unknown, listed };
}

/**
 * While the target's cluster still takes module uploads, ctl can make the upload itself when
 * the upgrade freezes (src/steps/remediate.ts): the run that does it. After that (RS 8: bundled
 * modules, no POST /v2/modules) --remediate has nothing to upload, so it is not offered.
 */
/** `runTo`: the run's --to, the final target on a hop before the last (one run does every hop). */
function remediation(targetOperator: string, runTo: string, kube: CtlTarget): string {
  if (!targetTakesModuleUploads(targetOperator)) return '';
  return ` Or let ctl upload it when the upgrade freezes: ${ctlRunTo(kube, runTo, '--ignore-check', 'modules-compatible', '--remediate', '--module-file', 'RHEL9_PACKAGE')} (its RHEL9 package).`;
}

function modulesInUse(bdbs: Bdb[]): Map<string, ModuleUse> {
  const uses = new Map<string, ModuleUse>();
  for (const bdb of bdbs) {
    for (const m of bdb.module_list ?? []) {
      const key = m.semantic_version ? `${m.module_name} ${m.semantic_version}` : m.module_name;
      const use = uses.get(key) ?? { name: m.module_name, version: m.semantic_version, databases: [] };
      use.databases.push(bdb.name);
      uses.set(key, use);
    }
  }
  return uses;
}

export const modulesCompatibleCheck = {
  id: 'modules-compatible',
  needsCluster: true,
  run: checkModulesCompatible,
} as const satisfies Check;
