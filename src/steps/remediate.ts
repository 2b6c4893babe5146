/**
 * The frozen upgrade (redis-facts.md §3 "Troubleshooting a frozen upgrade"): from 7.8.2-6 on
 * the nodes run RHEL9 images, so a database below 7.2 or a module in use without a `rhel9/...`
 * build stops the rolling upgrade. The REC stays in state `Upgrade`, the operator says why only
 * in its log (./freeze.ts reads it), and database reconciliation does not run, so the fix goes
 * through the management API by hand: `POST /v2/modules` with a RHEL9 build, `POST /v1/bdbs/<uid>/upgrade`, then the same
 * version in the database resource.
 *
 * Without `--remediate` ctl stops and prints exactly those commands, filled in. With it, ctl makes
 * the calls itself, each recorded as an intent first and each preceded by a fresh look at the
 * live state (so a resumed run never uploads or upgrades twice), and waits for every action.
 */

import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { oneLine } from '../io/safe-text.js';
import type { ApiWriter } from '../api/writer.js';
import { type ApiAction, type ApiBdb, type ApiModule, bdbVersion } from '../api/types.js';
import { type DialectFields, dialectFields } from '../release/dialect.js';
import { OperationError, TimeoutError } from '../errors.js';
import { DATABASE_RESOURCE, type KubeObject } from '../kube/reads.js';
import { formatDuration } from '../kube/watch.js';
import { readObject } from '../kube/write.js';
import { MIN_DATABASE_FOR_RHEL9_TARGETS, minimumDatabaseVersionFor } from '../release/catalog.js';
import { curlApi, kubectl, kubectlMergePatch, patchAt } from '../planning/equivalent-commands.js';
import { compareDatabaseVersions, databaseVersionOf } from '../release/versions.js';
import { reportedBundled, targetTakesModuleUploads } from '../planning/module-fix.js';
import { frozenModuleFix, noBuildFix, splitByUpload } from './frozen-module-fix.js';
import type { UpgradeDeps } from './deps.js';
import type { StepContext } from '../run/step.js';

export const DATABASE_KIND = 'RedisEnterpriseDatabase';

export type Blocker =
  | {
      kind: 'database';
      uid: number;
      name: string;
      /** What it runs now, `major.minor`, when known. */
      version?: string | undefined;
      /** The version to upgrade it to. */
      target: string;
    }
  | {
      kind: 'module';
      module: string;
      version?: string | undefined;
      /** The databases using it. */
      databases: { uid?: number | undefined; name: string }[];
      /** What the management API says of its builds (`is_bundled`); absent: it does not say. */
      isBundled?: boolean;
    };

/** A core/v1 Event, as far as ctl reads it (InvalidUpgrade's documented warning). */
export interface KubeEvent {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string | Date };
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string | Date | null;
  firstTimestamp?: string | Date | null;
  eventTime?: string | Date | null;
}

/** The version a too-old database is upgraded to: the minimum the target requires. */
export function minimumDatabaseVersion(targetOperator: string): string {
  return minimumDatabaseVersionFor(targetOperator) ?? MIN_DATABASE_FOR_RHEL9_TARGETS;
}

/**
 * What blocks the upgrade according to the management API: databases below `targetVersion`,
 * and modules in use that have no `rhel9/...` build installed. A module whose platforms the API
 * does not list (the newest docs dropped the field) counts only when the operator's log names it.
 */
export function blockersFromApi(
  bdbs: ApiBdb[],
  modules: ApiModule[],
  targetVersion: string,
  namedByLog: Blocker[] = [],
): Blocker[] {
  const minimum = databaseVersionOf(targetVersion);
  const modulesNamedByLog = new Set(
    namedByLog.filter((b) => b.kind === 'module').map((b) => moduleKey(b.module, b.version)),
  );
  const blockers: Blocker[] = [];
  for (const bdb of bdbs) {
    const running = bdbVersion(bdb);
    const parsed = running ? databaseVersionOf(running) : undefined;
    if (minimum && parsed && compareDatabaseVersions(parsed, minimum) < 0) {
      blockers.push({
        kind: 'database',
        uid: bdb.uid,
        name: bdb.name,
        version: running,
        target: targetVersion,
      });
    }
    for (const used of bdb.module_list ?? []) {
      const installed = modules.filter(
        (m) =>
          m.module_name === used.module_name &&
          (used.semantic_version === undefined || m.semantic_version === used.semantic_version),
      );
      if (installed.some((m) => Object.keys(m.platforms ?? {}).some((p) => p.startsWith('rhel9/')))) continue;
      const listsPlatforms = installed.some((m) => m.platforms !== undefined);
      if (
        !listsPlatforms &&
        installed.length > 0 &&
        !modulesNamedByLog.has(moduleKey(used.module_name, used.semantic_version))
      ) {
        continue;
      }
      const isBundled = reportedBundled(installed);
      blockers.push({
        kind: 'module',
        module: used.module_name,
        version: used.semantic_version,
        databases: [{ uid: bdb.uid, name: bdb.name }],
        ...(isBundled !== undefined ? { isBundled } : {}),
      });
    }
  }
  return mergeBlockers(blockers);
}

function moduleKey(name: string, version: string | undefined): string {
  return `${name}@${version ?? ''}`;
}

export function mergeBlockers(blockers: Blocker[]): Blocker[] {
  const out: Blocker[] = [];
  for (const blocker of blockers) {
    if (blocker.kind === 'database') {
      if (!out.some((b) => b.kind === 'database' && b.uid === blocker.uid)) out.push(blocker);
      continue;
    }
    const same = out.find(
      (b): b is Extract<Blocker, { kind: 'module' }> =>
        b.kind === 'module' && moduleKey(b.module, b.version) === moduleKey(blocker.module, blocker.version),
    );
    if (!same) {
      out.push({ ...blocker, databases: [...blocker.databases] });
      continue;
    }
    for (const db of blocker.databases) {
      if (!same.databases.some((d) => d.name === db.name)) same.databases.push(db);
    }
    if (same.isBundled === undefined && blocker.isBundled !== undefined) same.isBundled = blocker.isBundled;
  }
  return out;
}

export function describeBlocker(blocker: Blocker): string {
  if (blocker.kind === 'database') {
    return `database ${blocker.name} (uid ${blocker.uid}) runs ${blocker.version ?? 'an old version'}, below ${blocker.target}`;
  }
  const used = blocker.databases
    .map((d) => (d.uid === undefined ? d.name : `${d.name} (uid ${d.uid})`))
    .join(', ');
  return `module ${blocker.module}${blocker.version ? ` ${blocker.version}` : ''} has no rhel9 build installed (used by ${used})`;
}

export interface RemediationContext {
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
  const { clusterName, namespace, fields } = context;
  const lines = [
    `# the management API on localhost:9443 (leave running in another terminal):`,
    kubectl('port-forward', `svc/${clusterName}`, '9443:9443', '-n', namespace),
    `# <username> and <password>: ${kubectl('get', 'secret', clusterName, '-n', namespace, '-o', 'jsonpath={.data.username}')} | base64 -d (and .data.password)`,
  ];
  const modules = blockers.filter((b) => b.kind === 'module');
  const target = context.targetOperator;
  if (modules.length > 0 && target !== undefined && !targetTakesModuleUploads(target)) {
    // RS 8+: bundled modules come with the database upgrade, custom ones through the REC (module-fix.ts).
    lines.push(`# the ${target} cluster takes no module uploads:`);
    for (const m of modules) lines.push(`# ${frozenModuleFix(m, target, { name: clusterName, namespace })}`);
  } else if (modules.length > 0) {
    const { uploadable, noBuild } = splitByUpload(modules);
    for (const m of noBuild) lines.push(`# ${noBuildFix(m)}`);
    if (uploadable.length > 0) {
      const files =
        context.moduleFiles.length > 0
          ? context.moduleFiles
          : uploadable.map(
              (m) => `<${`${m.module}-${m.version ?? 'x.y.z'}`.toLowerCase()}-rhel9-package.zip>`,
            );
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
      lines.push(`# then: ${curlApi('GET', '/v1/actions/<action_uid from the answer>')}`);
      const resource = databaseResourceFor(context.databaseResources, db.uid, db.name);
      if (resource) {
        lines.push(
          kubectlMergePatch(
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
      ? `the operator's log (${kubectl('logs', 'deploy/redis-enterprise-operator', '-n', context.operatorNamespace)}):\n${evidence.map((line) => `  ${oneLine(line)}`).join('\n')}\n`
      : `the operator's log says nothing about it; the rollout has not moved and the management API shows the causes\n`;
  const { uploadable, noBuild } = splitByUpload(blockers.filter((b) => b.kind === 'module'));
  const needsFiles = uploadable.length > 0 && context.moduleFiles.length === 0;
  // No upload fixes RedisGraph: --remediate is offered only for what it can do.
  const hint =
    noBuild.length > 0
      ? `${noBuild.map((m) => m.module).join(', ')} has no RHEL9 build, so nothing can be uploaded for it and --remediate cannot fix it: remove it as the commands above say${uploadable.length > 0 || blockers.some((b) => b.kind === 'database') ? ' and run the other commands' : ''}, then run the same ctl command again; it resumes the monitor step.`
      : `Run the commands above, or let ctl do it: run the same ctl command again with --remediate${needsFiles ? ' --module-file <rhel9 module package>' : ''}; it resumes the monitor step.`;
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

// ---- remediation -----------------------------------------------------------------------------

export interface Remediation {
  /** Each action taken (or found already done), in order; also the step's intent record. */
  actions: Record<string, unknown>[];
}

/**
 * Fixes the blockers through the management API: modules first (a database upgrade may need
 * the module's new build), then each database, then the database resources. Idempotent: every
 * action re-reads the live state first and is skipped when it is already done.
 */
export async function remediateFrozenUpgrade(
  ctx: StepContext<UpgradeDeps>,
  blockers: Blocker[],
  context: RemediationContext,
  record: Remediation,
): Promise<void> {
  const { api, settings } = ctx.deps;
  const modules = blockers.filter((b) => b.kind === 'module');
  const target = context.targetOperator;
  if (modules.length > 0 && target !== undefined && !targetTakesModuleUploads(target)) {
    throw new OperationError(
      `cannot remediate by upload: ${modules.map(describeBlocker).join('; ')}, and the ${target} cluster takes no module uploads (POST /v2/modules)`,
      {
        hint: `${modules.map((m) => frozenModuleFix(m, target, { name: context.clusterName, namespace: context.namespace })).join('; ')}. Then run ctl again.`,
      },
    );
  }
  const { noBuild } = splitByUpload(modules);
  if (noBuild.length > 0) {
    throw new OperationError(
      `cannot remediate by upload: ${noBuild.map(describeBlocker).join('; ')}, and no RHEL9 build of it exists`,
      { hint: `${noBuild.map(noBuildFix).join('; ')}. Nothing was changed.` },
    );
  }
  if (modules.length > 0 && settings.moduleFiles.length === 0) {
    throw new OperationError(
      `cannot remediate: ${modules.map(describeBlocker).join('; ')}, and no --module-file was given`,
      {
        hint: `Download the RHEL9 build of ${modules.map((m) => `${m.module}${m.version ? ` ${m.version}` : ''}`).join(', ')} and run ctl again with --remediate --module-file <package>. Nothing was changed.`,
      },
    );
  }
  const intent = async (action: Record<string, unknown>): Promise<void> => {
    record.actions.push(action);
    await ctx.recordIntent({ remediation: [...record.actions] });
  };

  if (modules.length > 0) {
    for (const file of settings.moduleFiles) {
      // Look first: a resumed run (or another operator) may have installed it already.
      const remaining = blockersFromApi(
        await api.listBdbs(),
        await api.listModules(),
        minimumOf(blockers),
      ).filter((b) => b.kind === 'module');
      if (remaining.length === 0) {
        ctx.progress('every module in use has a rhel9 build installed');
        break;
      }
      const name = basename(file);
      const bytes = await readModuleFile(file);
      await intent({ action: 'upload-module', file: name, for: remaining.map(describeBlocker) });
      ctx.progress(`uploading module ${name} (POST /v2/modules)`);
      const uploaded = await uploadOnce(ctx.deps.apiWriter, name, bytes);
      // Not sent in dry-run: nothing to wait for.
      if (uploaded === undefined) continue;
      if (uploaded === 'exists') {
        ctx.progress(`module ${name} is already installed`);
        continue;
      }
      await waitForAction(ctx, uploaded.action_uid, `the upload of ${name}`);
      ctx.progress(`module ${uploaded.module_name} ${uploaded.semantic_version} installed`);
    }
    if (!ctx.dryRun) {
      const still = blockersFromApi(
        await api.listBdbs(),
        await api.listModules(),
        minimumOf(blockers),
      ).filter((b) => b.kind === 'module');
      if (still.length > 0) {
        throw new OperationError(
          `after uploading ${settings.moduleFiles.map((f) => basename(f)).join(', ')}: ${still.map(describeBlocker).join('; ')}`,
          {
            hint: `Pass the RHEL9 package of ${still.map((m) => (m.kind === 'module' ? `${m.module} ${m.version ?? ''}`.trim() : '')).join(', ')} with --module-file (same module version as in use), then run ctl again with --remediate.`,
          },
        );
      }
    }
  }

  for (const blocker of blockers) {
    if (blocker.kind !== 'database') continue;
    await upgradeDatabase(ctx, blocker, context, intent);
  }
}

function minimumOf(blockers: Blocker[]): string {
  return (
    blockers.find((b): b is Extract<Blocker, { kind: 'database' }> => b.kind === 'database')?.target ??
    MIN_DATABASE_FOR_RHEL9_TARGETS
  );
}

async function readModuleFile(file: string): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new OperationError(`cannot read --module-file ${file}: ${(error as Error).message}`, {
      hint: 'Check the path of the module package, then run ctl again.',
      cause: error,
    });
  }
}

async function uploadOnce(
  writer: ApiWriter,
  name: string,
  bytes: Uint8Array,
): Promise<(ApiModule & { action_uid: string }) | 'exists' | undefined> {
  try {
    return await writer.uploadModule(name, bytes);
  } catch (error) {
    if (error instanceof OperationError && /module_exists/.test(error.message)) return 'exists';
    throw error;
  }
}

async function upgradeDatabase(
  ctx: StepContext<UpgradeDeps>,
  blocker: Extract<Blocker, { kind: 'database' }>,
  context: RemediationContext,
  intent: (action: Record<string, unknown>) => Promise<void>,
): Promise<void> {
  const { api, snapshot } = ctx.deps;
  const fields = dialectFields(snapshot.dialect);
  const wanted = databaseVersionOf(blocker.target);
  const live = await api.getBdb(blocker.uid);
  const running = bdbVersion(live);
  const parsed = running ? databaseVersionOf(running) : undefined;
  const done = (): boolean => Boolean(wanted && parsed && compareDatabaseVersions(parsed, wanted) >= 0);
  if (!done()) {
    const pending = live.action_uid ? await api.getAction(live.action_uid).catch(() => undefined) : undefined;
    if (pending && !isFinished(pending)) {
      // A resumed run: the upgrade asked for last time is still running. Wait for it, do not ask again.
      ctx.progress(
        `database ${live.name} (uid ${live.uid}): waiting for the running action ${pending.action_uid}`,
      );
      await waitForAction(ctx, pending.action_uid, `the upgrade of database ${live.name}`);
    } else {
      await intent({
        action: 'upgrade-bdb',
        uid: live.uid,
        name: live.name,
        from: running ?? null,
        to: blocker.target,
      });
      ctx.progress(
        `upgrading database ${live.name} (uid ${live.uid}) from ${running ?? '?'} to ${blocker.target}`,
      );
      const answer = await ctx.deps.apiWriter.upgradeBdb(live.uid, blocker.target, fields.upgradeBodyKey);
      if (answer?.action_uid)
        await waitForAction(ctx, answer.action_uid, `the upgrade of database ${live.name}`);
    }
    if (!ctx.dryRun) {
      const after = await api.getBdb(blocker.uid);
      const now = bdbVersion(after);
      const nowParsed = now ? databaseVersionOf(now) : undefined;
      if (!(wanted && nowParsed && compareDatabaseVersions(nowParsed, wanted) >= 0)) {
        throw new OperationError(
          `database ${after.name} (uid ${after.uid}) runs ${now ?? 'an unknown version'} after its upgrade to ${blocker.target}`,
          {
            hint: `Look at the database with ${curlApi('GET', `/v1/bdbs/${after.uid}`)}, then run ctl again.`,
          },
        );
      }
      ctx.progress(`database ${after.name} (uid ${after.uid}) runs ${now}`);
    }
  } else {
    ctx.progress(`database ${live.name} (uid ${live.uid}) already runs ${running}`);
  }
  await syncDatabaseResource(ctx, blocker, context, intent);
}

/**
 * Brings the database resources in line with every database upgrade recorded so far (also by an
 * earlier, interrupted run): the API was changed, the resource may not have been yet.
 */
export async function syncRecordedDatabases(
  ctx: StepContext<UpgradeDeps>,
  context: RemediationContext,
  record: Remediation,
): Promise<void> {
  const intent = async (action: Record<string, unknown>): Promise<void> => {
    record.actions.push(action);
    await ctx.recordIntent({ remediation: [...record.actions] });
  };
  const upgraded = record.actions.filter((a) => a.action === 'upgrade-bdb');
  for (const action of upgraded) {
    const uid = Number(action.uid);
    if (!Number.isInteger(uid) || typeof action.to !== 'string') continue;
    const name = typeof action.name === 'string' ? action.name : `uid ${uid}`;
    await syncDatabaseResource(ctx, { kind: 'database', uid, name, target: action.to }, context, intent);
  }
}

/** Copies the new version into the database resource, so the operator does not undo it. */
async function syncDatabaseResource(
  ctx: StepContext<UpgradeDeps>,
  blocker: Extract<Blocker, { kind: 'database' }>,
  context: RemediationContext,
  intent: (action: Record<string, unknown>) => Promise<void>,
): Promise<void> {
  const resource = databaseResourceFor(context.databaseResources, blocker.uid, blocker.name);
  if (!resource) {
    ctx.warn(
      `no database resource found for database ${blocker.name} (uid ${blocker.uid}): set its version field to ${blocker.target} by hand`,
    );
    return;
  }
  const ref = {
    apiVersion: `${DATABASE_RESOURCE.group}/${DATABASE_RESOURCE.version}`,
    kind: DATABASE_KIND,
    name: resource.name,
    namespace: resource.namespace,
  };
  const object = await readObject(ctx.deps.kube, ref);
  if (!object) return;
  const spec = getString(object, context.fields.databaseVersionPath);
  const current = spec ? databaseVersionOf(spec) : undefined;
  const wanted = databaseVersionOf(blocker.target);
  // A policy word (`major`, `latest`) lets the operator choose: leave it. So does a newer version.
  if (spec !== undefined && !current) return;
  if (current && wanted && compareDatabaseVersions(current, wanted) >= 0) return;
  const body = patchAt(context.fields.databaseVersionPath, blocker.target);
  await intent({
    action: 'patch-redb',
    name: resource.name,
    namespace: resource.namespace,
    to: blocker.target,
  });
  ctx.progress(
    `setting ${context.fields.databaseVersionField} of redb/${resource.name} to ${blocker.target}`,
  );
  await ctx.deps.kubeWriter.mergePatch(ref, body);
}

function getString(object: KubeObject, path: readonly string[]): string | undefined {
  let value: unknown = object;
  for (const key of path)
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}

// ---- actions --------------------------------------------------------------------------------

const FAILED_ACTION = new Set(['failed', 'cancelled', 'aborted']);

function isFinished(action: ApiAction): boolean {
  return action.status === 'completed' || FAILED_ACTION.has(action.status);
}

/**
 * Polls `GET /v1/actions/<uid>` (the management API has no watch) until the action completes.
 * A failed action is an OperationError with the action's own error; no change in status or
 * progress for --stall-timeout is a TimeoutError. An action the API no longer knows (404 after
 * it finished) counts as done: the caller verifies the result on the object itself.
 */
export async function waitForAction(ctx: StepContext<UpgradeDeps>, uid: string, what: string): Promise<void> {
  const { api, clock, settings } = ctx.deps;
  const started = clock.now();
  let lastChange = started;
  let last = '';
  let delay = 250;
  for (;;) {
    let action: ApiAction;
    try {
      action = await api.getAction(uid);
    } catch (error) {
      if (error instanceof OperationError && /HTTP 404/.test(error.message)) return;
      throw error;
    }
    if (action.status === 'completed') return;
    if (FAILED_ACTION.has(action.status)) {
      const detail =
        action.error_message ??
        (action.additional_info as { error?: string } | undefined)?.error ??
        (typeof action.error_code === 'string' ? action.error_code : undefined) ??
        'no error message';
      throw new OperationError(`${what} failed (action ${uid}, ${action.status}): ${detail}`, {
        hint: `Look at the action with ${curlApi('GET', `/v1/actions/${uid}`)} and at the cluster's logs; fix the cause, then run ctl again.`,
      });
    }
    const now = clock.now();
    const seen = `${action.status} ${action.progress ?? ''}`;
    if (seen !== last) {
      last = seen;
      lastChange = now;
      ctx.progress(
        `${what}: ${action.status}${typeof action.progress === 'number' ? ` ${Math.round(action.progress)}%` : ''}`,
      );
    }
    if (now - lastChange > settings.stallTimeoutMs) {
      throw new TimeoutError(
        `${what} made no progress for ${formatDuration(settings.stallTimeoutMs)} (action ${uid}: ${action.status})`,
        {
          hint: `Look at the action with ${curlApi('GET', `/v1/actions/${uid}`)}; run ctl again to keep waiting.`,
        },
      );
    }
    if (now - started > settings.timeoutMs) {
      throw new TimeoutError(
        `timed out after ${formatDuration(settings.timeoutMs)} waiting for ${what} (action ${uid}: ${action.status})`,
        {
          hint: `Look at the action with ${curlApi('GET', `/v1/actions/${uid}`)}; run ctl again to keep waiting.`,
        },
      );
    }
    await clock.sleep(delay, ctx.signal);
    delay = Math.min(delay * 2, 2000);
  }
}
