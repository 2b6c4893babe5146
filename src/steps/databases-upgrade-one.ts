/**
 * One database's upgrade: re-read it live, skip it when it already runs the target or the
 * cluster's policy refuses the version (./databases-upgrade-policy.ts), record the intent, set
 * the dialect's version field, then watch the resource until it is active at the new version
 * (./databases-done.ts); an Active-Active database then gets its feature-set commands
 * (./databases-active-active.ts).
 */

import { ACTIVE_ACTIVE_RESOURCE, DATABASE_RESOURCE, type KubeObject } from '../kube/reads.js';
import type { waitForObject } from '../kube/watch.js';
import { readObject } from '../kube/write.js';
import { kubectlMergePatch, patchAt } from '../planning/equivalent-commands.js';
import type { DialectFields } from '../release/dialect.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import { type FeatureSetRecord, updateFeatureSetOnce } from './databases-active-active.js';
import {
  atLeast,
  checkDatabase,
  runningVersion,
  waitForActiveActiveVersion,
  whereToLook,
} from './databases-done.js';
import type { IntentLog } from './databases-intent-log.js';
import { type LiveCluster, policyRefusal } from './databases-upgrade-policy.js';
import type { DatabaseWork } from './databases-work.js';
import { getPath, str } from '../json-read.js';
import { stepWaitWarning } from './wait-warnings.js';

/** The kinds of the database resources (the remediation of a frozen upgrade patches REDBs too). */
export const DATABASE_KIND = 'RedisEnterpriseDatabase';
const ACTIVE_ACTIVE_KIND = 'RedisEnterpriseActiveActiveDatabase';

/** What one database's upgrade came to: upgraded, or why not (and an Active-Active feature-set record). */
export interface OneResult {
  upgraded: boolean;
  reason?: string;
  featureSet?: FeatureSetRecord;
}

function resourcePath(kind: DatabaseWork['kind'], namespace: string): string {
  const type = kind === 'active-active' ? ACTIVE_ACTIVE_RESOURCE : DATABASE_RESOURCE;
  return `/apis/${type.group}/${type.version}/namespaces/${namespace}/${type.plural}`;
}

function refOf(item: DatabaseWork): { apiVersion: string; kind: string; name: string; namespace: string } {
  const type = item.kind === 'active-active' ? ACTIVE_ACTIVE_RESOURCE : DATABASE_RESOURCE;
  return {
    apiVersion: `${type.group}/${type.version}`,
    kind: item.kind === 'active-active' ? ACTIVE_ACTIVE_KIND : DATABASE_KIND,
    name: item.name,
    namespace: item.namespace,
  };
}

export async function upgradeOne(
  ctx: StepContext<UpgradeDeps>,
  wait: typeof waitForObject,
  item: DatabaseWork,
  fields: DialectFields,
  cluster: LiveCluster,
  intents: IntentLog,
  signal: AbortSignal,
): Promise<OneResult> {
  const { kube, settings } = ctx.deps;
  const label = `${item.namespace}/${item.name}`;
  const ref = refOf(item);
  const short = item.kind === 'active-active' ? 'reaadb' : 'redb';
  const versionPath =
    item.kind === 'active-active' ? fields.activeActiveVersionPath : fields.databaseVersionPath;
  const live = await readObject(kube, ref);
  if (!live) {
    ctx.warn(`${short}/${item.name} -n ${item.namespace} no longer exists: skipped`);
    return { upgraded: false, reason: 'the database resource no longer exists' };
  }

  const running = await runningVersion(ctx, item, live);
  if (atLeast(running, item.version)) {
    return { upgraded: false, reason: `already runs ${running}` };
  }

  // The cluster's `major` policy refuses minor versions (redis-facts.md §3): skip, do not fail.
  const reason = policyRefusal(cluster, item.version);
  if (reason !== undefined) {
    ctx.warn(
      `${label}: skipped: ${reason}. To upgrade it, set ${fields.upgradePolicyPath.slice(1).join('.')} to latest (${kubectlMergePatch(ctx.deps.snapshot.kubeTarget, 'rec', cluster.name, cluster.namespace, patchAt(fields.upgradePolicyPath, 'latest'))}) or choose a major version with --db-version, then run ctl again.`,
    );
    return { upgraded: false, reason };
  }

  const spec = str(getPath(live, versionPath));
  const body = patchAt(versionPath, item.version);
  if (spec !== item.version) {
    await intents.record(label, { from: running ?? spec ?? null, to: item.version });
    ctx.progress(
      `${label}: setting ${versionPath.slice(1).join('.')} to ${item.version} (runs ${running ?? 'unknown'})`,
    );
    // An interrupt that arrived during the reads above must not be followed by a change.
    signal.throwIfAborted();
    await ctx.deps.kubeWriter.mergePatch(ref, body);
  } else {
    ctx.progress(
      `${label}: ${versionPath.slice(1).join('.')} is already ${item.version}; ${ctx.dryRun ? 'would wait' : 'waiting'} for the operator`,
    );
  }
  // Nothing was patched in dry-run, so there is nothing to wait for.
  if (ctx.dryRun) return { upgraded: true };

  const after = await readObject(kube, ref);
  const generation = after?.metadata?.generation ?? live.metadata?.generation ?? 0;
  await wait<KubeObject>({
    kube,
    path: resourcePath(item.kind, item.namespace),
    name: item.name,
    signal,
    timeoutMs: settings.timeoutMs,
    stallTimeoutMs: settings.stallTimeoutMs,
    description: `${short}/${item.name} -n ${item.namespace} to be active at ${item.version}`,
    hint: `${whereToLook(ctx, item)}; run ctl again to resume.`,
    check: (object) => checkDatabase(object, item, generation, whereToLook(ctx, item)),
    onProgress: (message) => ctx.progress(`${label}: ${message}`),
    onWarning: stepWaitWarning(ctx, (message) => `${label}: ${message}`),
  });
  if (item.kind === 'active-active') await waitForActiveActiveVersion(ctx, item, signal);
  ctx.progress(`${label}: runs ${item.version}`);
  if (item.kind === 'active-active') {
    const featureSet = await updateFeatureSetOnce(ctx, item, after ?? live, intents);
    return { upgraded: true, featureSet };
  }
  return { upgraded: true };
}
