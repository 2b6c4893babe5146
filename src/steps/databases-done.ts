/**
 * What one database runs and when its upgrade is done: an REDB says both in its status
 * (`status.version`, `status.status` active, after the operator observed the change); an REAADB
 * has no version in its status, so the management API's bdb confirms it (polled: the API has no
 * watch). A refusal (specStatus Invalid) fails at once, with where the real product says why.
 */

import type { ApiBdb } from '../api/types.js';
import { bdbVersion } from '../api/types.js';
import { findTlsFailure } from '../api/tls-errors.js';
import { OperationError, TimeoutError } from '../errors.js';
import type { KubeObject } from '../kube/reads.js';
import { formatDuration } from '../kube/watch.js';
import { curlApi, kubectl } from '../planning/equivalent-commands.js';
import { compareDatabaseVersions, databaseVersionOf } from '../release/versions.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import type { DatabaseWork } from './databases-work.js';
import { getPath, str } from '../json-read.js';

/** The version runs `wanted` or a later one. */
export function atLeast(version: string | undefined, wanted: string): boolean {
  const a = version ? databaseVersionOf(version) : undefined;
  const b = databaseVersionOf(wanted);
  return Boolean(a && b && compareDatabaseVersions(a, b) >= 0);
}

/** What the database runs: REDB status.version; for an REAADB, the management API's bdb. */
export async function runningVersion(
  ctx: StepContext<UpgradeDeps>,
  item: DatabaseWork,
  live: KubeObject,
): Promise<string | undefined> {
  if (item.kind === 'database') return str(getPath(live, ['status', 'version']));
  const bdb = await findActiveActiveBdb(ctx, item.name);
  return bdb ? bdbVersion(bdb) : undefined;
}

export async function findActiveActiveBdb(
  ctx: StepContext<UpgradeDeps>,
  name: string,
): Promise<ApiBdb | undefined> {
  try {
    const bdbs = await ctx.deps.api.listBdbs();
    return bdbs.find((b) => b.name === name && b.crdt === true) ?? bdbs.find((b) => b.name === name);
  } catch (error) {
    if (findTlsFailure(error)) throw error; // an untrusted certificate is exit 1 (docs/exit-codes.md)
    ctx.warn(`cannot read the management API to check ${name}'s version: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * Where the real product says what happens to a database upgrade: the resource's status
 * (`kubectl get redb`), the operator's log and the management API's database version. The
 * operator raises no documented Event for it (redis-facts.md §12).
 */
export function whereToLook(ctx: StepContext<UpgradeDeps>, item: DatabaseWork): string {
  const short = item.kind === 'active-active' ? 'reaadb' : 'redb';
  const operatorNs =
    ctx.deps.snapshot.operator?.namespace ?? ctx.deps.snapshot.cluster?.namespace ?? item.namespace;
  return (
    `Look at ${kubectl(ctx.deps.snapshot.kubeTarget, 'get', short, item.name, '-n', item.namespace, '-o', 'yaml')} (status and specStatus), ` +
    `the operator's log (${kubectl(ctx.deps.snapshot.kubeTarget, 'logs', 'deploy/redis-enterprise-operator', '-n', operatorNs)}) ` +
    `and the database's version in the management API (${curlApi('GET', '/v1/bdbs')})`
  );
}

/**
 * Done when the resource is `active` at the new version, after the operator has seen the change
 * (observedGeneration). A refusal (specStatus Invalid for this generation) fails at once.
 */
export function checkDatabase(
  object: KubeObject | undefined,
  item: DatabaseWork,
  generation: number,
  lookHint: string,
): boolean | string {
  if (!object)
    throw new OperationError(`${item.namespace}/${item.name} was deleted while it was being upgraded`);
  const status = (object.status ?? {}) as Record<string, unknown>;
  const observed = typeof status.observedGeneration === 'number' ? status.observedGeneration : undefined;
  const seen = observed === undefined || observed >= generation;
  const state = str(status.status) ?? 'unknown';
  if (seen && status.specStatus === 'Invalid') {
    throw new OperationError(
      `the operator refused the upgrade of ${item.namespace}/${item.name} to ${item.version} (specStatus Invalid)`,
      {
        hint: `${lookHint}; fix the spec, then run ctl again.`,
      },
    );
  }
  if (item.kind === 'active-active') {
    // An REAADB has no version in its status: active after the operator saw the change, then the API confirms.
    return seen && observed !== undefined && state === 'active' ? true : `status ${state}`;
  }
  const version = str(status.version);
  if (seen && state === 'active' && atLeast(version, item.version)) return true;
  return `status ${state}, version ${version ?? 'unknown'}`;
}

/** The management API has no watch: poll the Active-Active bdb until it reports the version. */
export async function waitForActiveActiveVersion(
  ctx: StepContext<UpgradeDeps>,
  item: DatabaseWork,
  signal: AbortSignal,
): Promise<void> {
  const { clock, settings } = ctx.deps;
  const started = clock.now();
  let delay = 250;
  for (;;) {
    const bdb = await findActiveActiveBdb(ctx, item.name);
    if (!bdb) return; // nothing to verify against: the resource's status was all there was
    const version = bdbVersion(bdb);
    if (atLeast(version, item.version) && (bdb.status === undefined || bdb.status === 'active')) return;
    if (clock.now() - started > settings.stallTimeoutMs) {
      throw new TimeoutError(
        `Active-Active database ${item.name} still runs ${version ?? 'an unknown version'} ${formatDuration(settings.stallTimeoutMs)} after its resource became active`,
        {
          hint: `Look at the database in the management API and on the other participating clusters; run ctl again to resume.`,
        },
      );
    }
    await clock.sleep(delay, signal);
    delay = Math.min(delay * 2, 2000);
  }
}
