/**
 * Step `databases`: upgrade each selected database (redis-facts.md §3 "REDB and REAADB") by
 * setting the dialect's version field (`spec.redisVersion` / `spec.engineVersion`) of its
 * database resource, then waiting, with a watch, until the resource is `active` at the new
 * version. One database at a time by default, `--max-parallel` at once.
 *
 * Which databases and which versions come from the plan's `databases` step (the planner already
 * applied `--databases`, `--db-version` and each database's own policy); everything else is
 * re-read live before acting: a database that already runs the target is skipped (so a resumed
 * run writes nothing twice), and a cluster whose upgrade policy is `major` refuses a minor
 * version, so that database is skipped with a warning rather than left Invalid.
 *
 * Active-Active databases: from operator 8.0.2-2 the version is set in
 * `spec.globalConfigurations` of the REAADB on one participating cluster and propagates. Before
 * that, ctl lists the manual procedure (rladmin / crdb-cli) as warnings and does not fail.
 *
 * Split by what each part decides: this module is the step (its permissions, its plan, the run
 * over the plan's databases); ./databases-work.ts reads which database each action changes,
 * ./databases-upgrade-one.ts upgrades one, ./databases-upgrade-policy.ts says whether the
 * cluster allows the version, ./databases-done.ts when a database runs it,
 * ./databases-intent-log.ts what a resumed run must know, ./task-pool.ts how many at once, and
 * ./databases-active-active.ts the Active-Active half.
 */

import { dialectFields } from '../release/dialect.js';
import { waitForObject } from '../kube/watch.js';
import { ACTIVE_ACTIVE_UPGRADE_FROM, supportsActiveActiveUpgrade } from '../release/catalog.js';
import { ctlTargetOf, kubectl, kubectlMergePatch, patchAt } from '../planning/equivalent-commands.js';
import { type PlanAction, PlanContext, PlanDatabase, StepPlan, action } from '../planning/plan.js';
import { UpgradeDeps, UpgradeStep } from './deps.js';
import { FanOutTally } from './fan-out.js';
import type { StepContext, StepResult } from '../run/step.js';
import { type ClusterSnapshot } from '../planning/snapshot.js';
import { type DatabaseTarget } from '../planning/resolve.js';
import {
  type FeatureSetRecord,
  type HeldBackRecord,
  heldBackAction,
  reportHeldBack,
  reportManual,
} from './databases-active-active.js';
import { IntentLog, previousNames } from './databases-intent-log.js';
import { type OneResult, upgradeOne } from './databases-upgrade-one.js';
import { readLiveCluster } from './databases-upgrade-policy.js';
import { type DatabaseWork, workOf } from './databases-work.js';
import { runPool } from './task-pool.js';
import { REDIS_API_GROUP, type StepPermission } from '../planning/permissions.js';

/** The Kubernetes permissions this step needs; the plan's `permissions` check reviews them. */
const PERMISSIONS: readonly StepPermission[] = [
  {
    group: REDIS_API_GROUP,
    resource: 'redisenterprisedatabases',
    verbs: ['list', 'patch'],
    scope: 'watched-namespaces',
    when: 'always',
    why: 'read the databases and set their version',
  },
  {
    group: REDIS_API_GROUP,
    resource: 'redisenterpriseactiveactivedatabases',
    verbs: ['list', 'patch'],
    scope: 'watched-namespaces',
    when: 'always',
    why: 'read the Active-Active databases and set their version',
  },
  {
    group: REDIS_API_GROUP,
    resource: 'redisenterpriseremoteclusters',
    verbs: ['list'],
    scope: 'namespace',
    when: 'always',
    why: "read the Active-Active databases' participating clusters (their API and Secret)",
  },
];

export interface DatabasesStepOptions {
  wait?: typeof waitForObject;
}

export function createDatabasesStep(options: DatabasesStepOptions = {}): UpgradeStep<'databases'> {
  const wait = options.wait ?? waitForObject;
  return {
    id: 'databases',
    title: 'Upgrade the databases',
    permissions: PERMISSIONS,
    plan: planDatabases,
    run: (ctx) => upgradeDatabases(ctx, wait),
  };
}

export const databasesStep = createDatabasesStep();

export interface DatabasesOutcome {
  upgraded: string[];
  skipped: { name: string; reason: string }[];
  manual: string[];
  /** Active-Active databases a participating cluster holds back (the run still exits 0). */
  heldBack?: HeldBackRecord[];
  /** Active-Active databases ctl raised: the feature-set (and module-list) update, once. */
  featureSet?: FeatureSetRecord[];
  [key: string]: unknown;
}

async function upgradeDatabases(
  ctx: StepContext<UpgradeDeps>,
  wait: typeof waitForObject,
): Promise<StepResult> {
  const { plan, snapshot, settings } = ctx.deps;
  const planned = plan.steps.find((s) => s.id === 'databases');
  if (!planned || planned.skip !== null) return { skipped: planned?.skip ?? 'not planned' };
  const fields = dialectFields(snapshot.dialect);
  const work = planned.actions
    .map((action) =>
      workOf(action, fields, plan.target.databaseVersion, {
        kube: ctlTargetOf(snapshot),
        operator: plan.target.operator,
      }),
    )
    .filter((w): w is DatabaseWork => w !== undefined);
  if (work.length === 0) return { skipped: 'the plan names no database to upgrade' };

  const outcome: DatabasesOutcome = { upgraded: [], skipped: [], manual: [] };
  const previous = previousNames(ctx);
  const intents = new IntentLog(ctx, previous);
  const cluster = await readLiveCluster(ctx);

  const manual = work.filter((w) => w.kind === 'manual');
  if (manual.length > 0) await reportManual(ctx, manual, outcome);
  const held = work.filter((w) => w.kind === 'held-back');
  if (held.length > 0)
    outcome.heldBack = reportHeldBack(
      ctx,
      held.map((w) => ({ ...w, reason: w.heldBack?.reason ?? '', command: w.heldBack?.command ?? '' })),
    );

  const automatic = work.filter((w) => w.kind !== 'manual' && w.kind !== 'held-back');
  // Every progress event carries the whole fan-out's counts: a terminal shows those, not a line
  // per database (src/io/progress.ts).
  const tally = new FanOutTally(automatic.length, () => ctx.deps.clock.now());
  const tracked: StepContext<UpgradeDeps> = {
    ...ctx,
    progress: (message, data) => ctx.progress(message, { ...data, fanOut: tally.snapshot() }),
  };
  await runPool(automatic, Math.max(1, settings.maxParallel), ctx.signal, async (item, signal) => {
    const label = `${item.namespace}/${item.name}`;
    tally.start(label);
    let result: OneResult;
    try {
      result = await upgradeOne(tracked, wait, item, fields, cluster, intents, signal);
    } catch (error) {
      tally.finish(label, 'failed');
      throw error;
    }
    tally.finish(label, 'done');
    if (result.featureSet) (outcome.featureSet ??= []).push(result.featureSet);
    if (result.upgraded) outcome.upgraded.push(label);
    else if (result.reason && previous.has(label) && result.reason.startsWith('already runs'))
      outcome.upgraded.push(label);
    else outcome.skipped.push({ name: label, reason: result.reason ?? 'unchanged' });
  });
  if (ctx.dryRun) outcome.dryRun = true;
  return { outcome };
}

// ---- plan: pure, from the snapshot and the target (the run half re-reads live state)

function planDatabases({ snapshot, target, resolved }: PlanContext, cluster: ClusterSnapshot): StepPlan {
  if (target.databases.kind === 'none') return { skip: 'not selected (--databases none)' };
  if (resolved.databases.length === 0) return { skip: 'the cluster has no database resources' };
  const changing = resolved.databases.filter((db) => db.target !== undefined);
  if (changing.length === 0) {
    return { skip: `no database needs a change (${summarizeReasons(resolved.databases)})` };
  }
  const fields = dialectFields(snapshot.dialect);
  return {
    actions: changing.map((db): PlanAction => {
      const version = db.target as string;
      const from = db.current ? ` from ${db.current}` : '';
      const database = (kind: PlanDatabase['kind'], manual: boolean): PlanDatabase => ({
        kind,
        name: db.name,
        namespace: db.namespace,
        version,
        manual,
      });
      if (db.kind === 'database') {
        return {
          ...action(
            `Upgrade database ${db.namespace}/${db.name}${from} to ${version}`,
            kubectlMergePatch(
              snapshot.kubeTarget,
              'redb',
              db.name,
              db.namespace,
              patchAt(fields.databaseVersionPath, version),
            ),
          ),
          database: database('redb', false),
        };
      }
      if (supportsActiveActiveUpgrade(target.operator)) {
        const held = heldBackAction(snapshot, target, db, version, from);
        if (held) return held;
        return {
          ...action(
            `Upgrade Active-Active database ${db.namespace}/${db.name}${from} to ${version} (set on this participating cluster only; every participating cluster must run operator ${ACTIVE_ACTIVE_UPGRADE_FROM} or newer)`,
            kubectlMergePatch(
              snapshot.kubeTarget,
              'reaadb',
              db.name,
              db.namespace,
              patchAt(fields.activeActiveVersionPath, version),
            ),
          ),
          database: database('reaadb', false),
        };
      }
      // The manual path asks the participants too, before it prints any command for them.
      const heldManual = heldBackAction(snapshot, target, db, version, from, { manual: true });
      if (heldManual) return heldManual;
      return {
        ...action(
          `Upgrade Active-Active database ${db.name}${from} to ${version} by hand on each participating cluster (operators before ${ACTIVE_ACTIVE_UPGRADE_FROM} cannot)`,
          kubectl(
            snapshot.kubeTarget,
            'exec',
            '-it',
            `${cluster.name}-0`,
            '-n',
            cluster.namespace,
            '--',
            'rladmin',
            'upgrade',
            'db',
            db.name,
            'redis_version',
            version,
          ),
        ),
        database: database('reaadb', true),
      };
    }),
  };
}

function summarizeReasons(databases: DatabaseTarget[]): string {
  const byReason = new Map<string, string[]>();
  for (const db of databases) {
    const reason = db.reason ?? 'unchanged';
    byReason.set(reason, [...(byReason.get(reason) ?? []), db.name]);
  }
  return [...byReason]
    .map(
      ([reason, names]) => `${names.length > 3 ? `${names.length} databases` : names.join(', ')}: ${reason}`,
    )
    .join('; ');
}
