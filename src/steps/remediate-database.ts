/**
 * Remediation of one database below the version the target requires: its upgrade through the
 * management API (`POST /v1/bdbs/<uid>/upgrade`, or the wait for the one a resumed run finds
 * running), then the same version in its database resource, so the operator does not undo it.
 */

import { MalformedAnswerError } from '../api/api-errors.js';
import { bdbVersion } from '../api/types.js';
import { dialectFields } from '../release/dialect.js';
import { OperationError } from '../errors.js';
import { DATABASE_RESOURCE, type KubeObject } from '../kube/reads.js';
import { readObject } from '../kube/write.js';
import { curlApi, patchAt } from '../planning/equivalent-commands.js';
import { compareDatabaseVersions, databaseVersionOf } from '../release/versions.js';
import type { StepContext } from '../run/step.js';
import { DATABASE_KIND } from './databases-upgrade-one.js';
import type { UpgradeDeps } from './deps.js';
import { isFinished, waitForAction } from './remediate-action-wait.js';
import { databaseResourceFor, type RemediationContext } from './remediate-advice.js';
import type { Blocker } from './remediate-blockers.js';

export async function upgradeDatabase(
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
    // An action the API no longer knows (or cannot show) is none running; an answer not in the
    // action's form is no answer, and is not taken for one (src/api/action-shape.ts).
    const runningAction = live.action_uid;
    const pending = runningAction
      ? await api.getAction(runningAction).catch((error: unknown) => {
          if (error instanceof MalformedAnswerError) throw error;
          return undefined;
        })
      : undefined;
    if (runningAction && pending && !isFinished(pending)) {
      // A resumed run: the upgrade asked for last time is still running. Wait for it, do not ask again.
      ctx.progress(
        `database ${live.name} (uid ${live.uid}): waiting for the running action ${runningAction}`,
      );
      await waitForAction(ctx, runningAction, `the upgrade of database ${live.name}`);
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

/** Copies the new version into the database resource, so the operator does not undo it. */
export async function syncDatabaseResource(
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
