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
 *
 * Split by what each part decides:
 * - this module: the remediation (modules first, then each database) and what a resumed run
 *   brings in line;
 * - ./remediate-blockers.ts: what blocks the upgrade, from the management API;
 * - ./remediate-advice.ts: the commands and the error without `--remediate`;
 * - ./remediate-database.ts: one database's upgrade and its database resource;
 * - ./remediate-action-wait.ts: the wait for a management API action.
 */

import { basename } from 'node:path';
import { ApiStatusError, MalformedAnswerError, NOT_THE_API_HINT } from '../api/api-errors.js';
import type { ApiWriter } from '../api/writer.js';
import { curlApi } from '../planning/equivalent-commands.js';
import type { ApiModule } from '../api/types.js';
import { OperationError, UsageError } from '../errors.js';
import { INPUT_FILE_LIMITS, readInputBytes } from '../io/paths.js';
import { MIN_DATABASE_FOR_RHEL9_TARGETS } from '../release/catalog.js';
import { targetTakesModuleUploads } from '../planning/module-fix.js';
import { frozenModuleFix, noBuildFix, splitByUpload } from './frozen-module-fix.js';
import type { UpgradeDeps } from './deps.js';
import type { StepContext } from '../run/step.js';
import { waitForAction } from './remediate-action-wait.js';
import type { RemediationContext } from './remediate-advice.js';
import { type Blocker, blockersFromApi, describeBlocker } from './remediate-blockers.js';
import { syncDatabaseResource, upgradeDatabase } from './remediate-database.js';

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
        hint: `${modules.map((m) => frozenModuleFix(m, target, { name: context.clusterName, namespace: context.namespace }, context.kube)).join('; ')}. Then run ctl again.`,
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
        hint: `Download the RHEL9 build of ${modules.map(describeWanted).join(', ')} and run ctl again with --remediate --module-file MODULE_RHEL9_ZIP. Nothing was changed.`,
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
      const uploaded = await uploadOnce(ctx.deps.apiWriter, file, bytes, remaining);
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
            hint: `Pass the RHEL9 package of ${still.map(describeWanted).join(', ')} with --module-file (same module version as in use), then run ctl again with --remediate.`,
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

/**
 * Checked when the run started (src/cli/upgrade-actions.ts) and again here, where it is read: a
 * FIFO, a device or a file past the bound put there since is refused (exit 2) without waiting
 * or reading past the bound.
 */
async function readModuleFile(file: string): Promise<Uint8Array> {
  try {
    return await readInputBytes('--module-file', file, INPUT_FILE_LIMITS.moduleFile);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new OperationError(`cannot read --module-file ${file}: ${(error as Error).message}`, {
      hint: 'Check the path of the module package, then run ctl again.',
      cause: error,
    });
  }
}

async function uploadOnce(
  writer: ApiWriter,
  /** The --module-file as given. */
  file: string,
  bytes: Uint8Array,
  wanted: Blocker[],
): Promise<(ApiModule & { action_uid: string }) | 'exists' | undefined> {
  const name = basename(file);
  try {
    return await writer.uploadModule(name, bytes);
  } catch (error) {
    // The upload's answer is not the module and its action (src/api/action-shape.ts): the upload
    // may have started, and there is nothing to wait for. Stop, saying how to see what happened.
    if (error instanceof MalformedAnswerError)
      throw new MalformedAnswerError(`the upload of ${name} cannot be followed: ${error.message}`, {
        hint: `The upload may have started: look at the cluster's modules (${curlApi('GET', '/v1/modules')}) and actions (${curlApi('GET', '/v1/actions')}). ${NOT_THE_API_HINT} Then run ctl again: it looks at the modules before it uploads again.`,
        cause: error,
      });
    // By the answer's error_code (POST /v2/modules error codes, redis-facts.md §4), not by its
    // text: a message may name module_exists without being it (a file called so, refused).
    if (error instanceof ApiStatusError && error.errorCode === 'module_exists') return 'exists';
    // A 4xx the cluster gave no advice for (HTTP 400 invalid_module: not a module package it can
    // read) is about the file: running the same command again sends the same file. Say which
    // package the freeze needs instead (401 and 403 are AuthErrors, with their own hints), and
    // mark the file refused: the command that resumes must not offer it again (run-end.ts).
    if (isRefusedFile(error)) {
      const needed = `the RHEL9 package of ${wanted.map(describeWanted).join(', ')}`;
      error.hint = `The cluster did not take ${name} as a module package. Pass ${needed} (the zip Redis publishes, with the module and its module.json) with --module-file instead, then run ctl again with --remediate: it resumes the monitor step.`;
      error.refused = { flag: '--module-file', value: file, wanted: needed };
    }
    throw error;
  }
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

/** A 4xx answer to the upload (by its HTTP status, not its words), which came with no advice. */
function isRefusedFile(error: unknown): error is ApiStatusError {
  return (
    error instanceof ApiStatusError && error.status >= 400 && error.status < 500 && error.hint === undefined
  );
}

/** `ReJSON 2.6.10`: the package a module blocker needs, as the hints name it. */
function describeWanted(blocker: Blocker): string {
  return blocker.kind === 'module'
    ? `${blocker.module}${blocker.version ? ` ${blocker.version}` : ''}`
    : describeBlocker(blocker);
}
