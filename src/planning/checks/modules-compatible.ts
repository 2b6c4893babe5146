/**
 * `modules-compatible`: every module in use can follow the target: reads the cluster's user-defined
 * modules and auto-upgrade, and the management API's modules (their platforms) and each database's
 * module list. A module without a RHEL9 build for a target that needs one fails (the upgrade would
 * freeze), with the fix that fits the target's RS (module-fix.ts).
 */

import { dialectFields } from '../../release/dialect.js';
import { requiresRhel9Modules } from '../../release/catalog.js';
import { curlApi, kubectlMergePatch, patchAt } from '../equivalent-commands.js';
import { moduleFix, reportedBundled, targetTakesModuleUploads } from '../module-fix.js';
import type { Bdb, Module } from '../snapshot.js';
import { type Check, type CheckInput, clusterOf, fail, list, type Outcome, pass, warn } from './check.js';

function checkModulesCompatible(input: CheckInput): Outcome {
  const { snapshot, target, resolved } = input;
  const rec = clusterOf(input);
  if (rec.userDefinedModules.length > 0 && rec.autoUpgrade) {
    const fields = dialectFields(snapshot.dialect);
    return fail(
      `user-defined modules (${rec.userDefinedModules.join(', ')}) need auto-upgrade off before the operator upgrade`,
      kubectlMergePatch('rec', rec.name, rec.namespace, patchAt(fields.autoUpgradePath, false)),
    );
  }
  if (!requiresRhel9Modules(target.operator)) return pass(`${target.operator} needs no RHEL9 module builds`);
  if (!snapshot.api.reachable) {
    return warn(
      'cannot list the modules in use: the management API is not reachable',
      'Fix api-reachable to verify the RHEL9 module builds.',
    );
  }
  const inUse = modulesInUse(snapshot.api.bdbs);
  const missing: string[] = [];
  const fixes: string[] = [];
  const unknown: string[] = [];
  for (const [key, use] of inUse) {
    const candidates = snapshot.api.modules.filter(
      (m) => m.module_name === use.name && (use.version === undefined || m.semantic_version === use.version),
    );
    const platforms = candidates.flatMap((m) => Object.keys(m.platforms ?? {}));
    if (candidates.some((m) => m.is_bundled) && platforms.length === 0) continue;
    if (candidates.length === 0 || candidates.every((m) => m.platforms === undefined)) {
      unknown.push(key);
    } else if (!platforms.some((p) => p.startsWith('rhel9'))) {
      missing.push(`${key} (platforms: ${platforms.join(', ') || 'none'}; used by ${list(use.databases)})`);
      // Fit for the target's RS: bundled from 8.0, userDefinedModules, uploads before (module-fix.ts).
      fixes.push(
        moduleFix({
          targetOperator: target.operator,
          module: use.name,
          isBundled: reportedBundled(candidates),
          reportedByRs8: (resolved.currentRs?.[0] ?? 0) >= 8,
          cluster: { name: rec.name, namespace: rec.namespace },
          databases: use.databases,
        }),
      );
    }
  }
  if (missing.length > 0) {
    return fail(
      `modules without a RHEL9 build: ${missing.join('; ')}: the cluster upgrade to ${target.operator} would freeze`,
      `For each module: ${[...new Set(fixes)].join('; ')}.` + remediation(target.operator),
    );
  }
  if (unknown.length > 0) {
    return warn(
      `cannot tell the platforms of ${unknown.join(', ')}`,
      `List them: ${curlApi('GET', '/v1/modules')} | jq -r '.[] | [.module_name, .semantic_version, (.platforms | keys)]'`,
    );
  }
  return pass(
    inUse.size === 0
      ? 'no modules in use'
      : `every module in use has a RHEL9 build (${[...inUse.keys()].join(', ')})`,
  );
}

/**
 * While the target's cluster still takes module uploads, ctl can make the upload itself when
 * the upgrade freezes (src/steps/remediate.ts): the run that does it. After that (RS 8: bundled
 * modules, no POST /v2/modules) --remediate has nothing to upload, so it is not offered.
 */
function remediation(targetOperator: string): string {
  if (!targetTakesModuleUploads(targetOperator)) return '';
  return ` Or let ctl upload it when the upgrade freezes: ctl upgrade run --to ${targetOperator} --ignore-check modules-compatible --remediate --module-file <its RHEL9 package>.`;
}

function modulesInUse(
  bdbs: Bdb[],
): Map<string, { name: string; version?: string | undefined; databases: string[] }> {
  const uses = new Map<string, { name: string; version?: string | undefined; databases: string[] }>();
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

export function hasRhel9Build(module: Module): boolean {
  return Object.keys(module.platforms ?? {}).some((p) => p.startsWith('rhel9'));
}

export const modulesCompatibleCheck = {
  id: 'modules-compatible',
  needsCluster: true,
  run: checkModulesCompatible,
} as const satisfies Check;
