/**
 * What ctl says about a frozen upgrade without `--remediate`: the commands of redis-facts.md §3,
 * filled in, and the error that stops the step with them.
 */

import { oneLine } from '../io/safe-text.js';
import type { DialectFields } from '../release/dialect.js';
import { OperationError } from '../errors.js';
import {
  curlApi,
  kubectl,
  type KubeTarget,
  kubectlMergePatch,
  patchAt,
} from '../planning/equivalent-commands.js';
import { targetTakesModuleUploads } from '../planning/module-fix.js';
import { frozenModuleFix, noBuildFix, splitByUpload } from './frozen-module-fix.js';
import { type Blocker, describeBlocker } from './remediate-blockers.js';

export interface RemediationContext {
  /** The kubeconfig and context chosen for ctl: the advice's kubectl commands name them. */
  kube: KubeTarget;
  clusterName: string;
  namespace: string;
  /** Where the operator's Deployment runs (its log is quoted in the advice). */
  operatorNamespace: string;
  fields: DialectFields;
  moduleFiles: string[];
  /** The database resources that map to bdbs (by status.databaseUID, else by name). */
  databaseResources: { name: string; namespace: string; uid?: string | undefined }[];
  /** The operator release the cluster is upgraded to: whether its RS still takes module uploads. */
  targetOperator?: string | undefined;
}

/** The commands of redis-facts.md §3 with every placeholder ctl knows filled in. */
export function remediationCommands(blockers: Blocker[], context: RemediationContext): string[] {
  const { kube, clusterName, namespace, fields } = context;
  const lines = [
    `# the management API on localhost:9443 (leave running in another terminal):`,
    kubectl(kube, 'port-forward', `svc/${clusterName}`, '9443:9443', '-n', namespace),
    `# USERNAME and PASSWORD: ${kubectl(kube, 'get', 'secret', clusterName, '-n', namespace, '-o', 'jsonpath={.data.username}')} | base64 -d (and .data.password)`,
  ];
  const modules = blockers.filter((b) => b.kind === 'module');
  const target = context.targetOperator;
  if (modules.length > 0 && target !== undefined && !targetTakesModuleUploads(target)) {
    // RS 8+: bundled modules come with the database upgrade, custom ones through the REC (module-fix.ts).
    lines.push(`# the ${target} cluster takes no module uploads:`);
    for (const m of modules)
      lines.push(`# ${frozenModuleFix(m, target, { name: clusterName, namespace }, kube)}`);
  } else if (modules.length > 0) {
    const { uploadable, noBuild } = splitByUpload(modules);
    for (const m of noBuild) lines.push(`# ${noBuildFix(m)}`);
    if (uploadable.length > 0) {
      const files =
        context.moduleFiles.length > 0
          ? context.moduleFiles
          : // A placeholder in capitals (src/io/shell-words.ts): `<x.zip>` pasted is a redirection.
            uploadable.map((m) => `${`${m.module}-${m.version ?? 'x.y.z'}`.toUpperCase()}-RHEL9-PACKAGE.zip`);
      lines.push('# install the RHEL9 build of each module, of the version in use:');
      for (const file of files) lines.push(curlApi('POST', '/v2/modules', ['-F', `module=@${file}`]));
      lines.push(
        `# check: ${curlApi('GET', '/v1/modules')} | jq -r '.[] | .module_name + "-" + .semantic_version + " " + ((.platforms // {}) | keys | join(","))'`,
      );
    }
  }
  const databases = blockers.filter((b) => b.kind === 'database');
  if (databases.length > 0) {
    lines.push('# upgrade each database below the minimum version, then wait until its action completes:');
    for (const db of databases) {
      lines.push(
        curlApi('POST', `/v1/bdbs/${db.uid}/upgrade`, [
          '-H',
          'Content-Type: application/json',
          '-d',
          JSON.stringify({ [fields.upgradeBodyKey]: db.target }),
        ]),
      );
      lines.push(
        `# then: ${curlApi('GET', '/v1/actions/ACTION_UID')} (ACTION_UID: action_uid from the answer)`,
      );
      const resource = databaseResourceFor(context.databaseResources, db.uid, db.name);
      if (resource) {
        lines.push(
          kubectlMergePatch(
            kube,
            'redb',
            resource.name,
            resource.namespace,
            patchAt(fields.databaseVersionPath, db.target),
          ),
        );
      }
    }
  }
  return lines;
}

export function databaseResourceFor<T extends { name: string; uid?: string | undefined }>(
  resources: T[],
  uid: number,
  name: string,
): T | undefined {
  return resources.find((r) => r.uid === String(uid)) ?? resources.find((r) => r.name === name);
}

/** The OperationError that stops the step when the upgrade is frozen and --remediate is off. */
export function frozenError(
  blockers: Blocker[],
  context: RemediationContext,
  /** The operator's own error lines about the cluster (its log), newest last. */
  evidence: string[],
): OperationError {
  const logLines =
    evidence.length > 0
      ? `the operator's log (${kubectl(context.kube, 'logs', 'deploy/redis-enterprise-operator', '-n', context.operatorNamespace)}):\n${evidence.map((line) => `  ${oneLine(line)}`).join('\n')}\n`
      : `the operator's log says nothing about it; the rollout has not moved and the management API shows the causes\n`;
  const modules = blockers.filter((b) => b.kind === 'module');
  const { uploadable, noBuild } = splitByUpload(modules);
  const needsFiles = uploadable.length > 0 && context.moduleFiles.length === 0;
  const target = context.targetOperator;
  // --remediate is offered only for what it can do: no upload fixes RedisGraph, and a target
  // that takes no module uploads (RS 8, ../planning/module-fix.ts) gets none: there
  // remediateFrozenUpgrade refuses every module, before it changes anything.
  const takesNoUploads = modules.length > 0 && target !== undefined && !targetTakesModuleUploads(target);
  const databasesToo = blockers.some((b) => b.kind === 'database');
  const hint =
    noBuild.length > 0
      ? `${noBuild.map((m) => m.module).join(', ')} has no RHEL9 build, so nothing can be uploaded for it and --remediate cannot fix it: remove it as the commands above say${uploadable.length > 0 || databasesToo ? ' and run the other commands' : ''}, then run the same ctl command again; it resumes the monitor step.`
      : takesNoUploads
        ? `The ${target} cluster takes no module uploads, so --remediate cannot fix ${modules.map((m) => m.module).join(', ')}: do what the commands above say${databasesToo ? ' (then the same ctl command with --remediate can upgrade the databases)' : ''}, then run the same ctl command again; it resumes the monitor step.`
        : `Run the commands above, or let ctl do it: run the same ctl command again with --remediate${needsFiles ? ' --module-file MODULE_RHEL9_ZIP' : ''}; it resumes the monitor step.`;
  return new OperationError(
    `the cluster upgrade is frozen: ${blockers.map(describeBlocker).join('; ')}\n` +
      logLines +
      `fix it through the management API (database reconciliation does not run during the upgrade):\n` +
      remediationCommands(blockers, context)
        .map((line) => `  ${line}`)
        .join('\n'),
    { hint },
  );
}
