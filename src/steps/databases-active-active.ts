/**
 * The databases step's Active-Active half (DOCS `operate/rs/installing-upgrading/upgrading/upgrade-active-active.md`):
 *
 * - an REAADB whose participants cannot all run the target yet is held back: the plan shows it
 *   with the command to run later, the run warns and records it, and exits 0
 *   (src/planning/active-active.ts decides);
 * - once ctl has raised an REAADB (every participant could run it), the feature set and, for a
 *   database with modules, the module list are updated once, for all instances together. The
 *   docs give these only as `crdb-cli` commands (RS 8.0: `crdb-cli crdb update --crdb-guid
 *   <guid> --featureset-version yes`, then `--update-db-config-modules true`); the REST API
 *   documents no call for either (requests/crdbs: PATCH and POST .../updates take a CRDB
 *   configuration, none names the feature set), so ctl prints them, once, recorded as an intent;
 * - the manual procedure for operators before 8.0.2-2: every instance first, on its own
 *   cluster after that cluster's upgrade, then the feature set and module list once.
 */

import { oneLine } from '../io/safe-text.js';
import { laterUpgradeCommand, participantsHoldingBack } from '../planning/active-active.js';
import { kubectl, type KubeTarget } from '../planning/equivalent-commands.js';
import { type PlanAction, type PlanDatabase, action } from '../planning/plan.js';
import type { DatabaseTarget } from '../planning/resolve.js';
import type { Snapshot } from '../planning/snapshot.js';
import type { Target } from '../planning/target.js';
import { getPath, str } from '../json-read.js';
import type { KubeObject } from '../kube/reads.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import type { ApiBdb } from '../api/types.js';
import { findTlsFailure } from '../api/tls-errors.js';
import { ACTIVE_ACTIVE_UPGRADE_FROM, supportsActiveActiveUpgrade } from '../release/catalog.js';
import { findActiveActiveBdb } from './databases-done.js';
import type { IntentLog } from './databases-intent-log.js';
import type { DatabaseWork } from './databases-work.js';

/** An REAADB the plan holds back, as the run reads it from the plan's action. */
export interface HeldBackWork {
  name: string;
  namespace: string;
  version: string;
  reason: string;
  /** The ctl command that upgrades it later. */
  command: string;
}

export interface HeldBackRecord {
  database: string;
  version: string;
  reason: string;
  command: string;
}

export interface FeatureSetRecord {
  database: string;
  guid: string | null;
  commands: string[];
}

/**
 * The plan's action for an REAADB some participant holds back; undefined when none does.
 * `manual`: the target upgrades Active-Active databases by hand (before 8.0.2-2); the hold then
 * replaces the `rladmin upgrade db` commands the plan would print.
 */
export function heldBackAction(
  snapshot: Snapshot,
  target: Pick<Target, 'operator' | 'deferActiveActive'>,
  db: DatabaseTarget,
  version: string,
  from: string,
  options: { manual?: boolean } = {},
): PlanAction | undefined {
  const operator = target.operator;
  const aa = snapshot.activeActiveDatabases.find((a) => a.name === db.name && a.namespace === db.namespace);
  if (!aa) return undefined;
  const holding = participantsHoldingBack(snapshot, aa, version, options);
  // A fleet's first pass defers every Active-Active database to its last pass.
  if (holding.length === 0 && !target.deferActiveActive) return undefined;
  const reason =
    holding.length > 0 ? holding.map((h) => h.reason).join('; ') : (target.deferActiveActive as string);
  const database: PlanDatabase = {
    kind: 'reaadb',
    name: db.name,
    namespace: db.namespace,
    version,
    manual: false,
    heldBack: reason,
  };
  return {
    ...action(
      `Hold back Active-Active database ${db.namespace}/${db.name}${from}: not raised to ${version}, since ${reason}. Once every participating cluster can take it, run the command shown`,
      laterUpgradeCommand(snapshot, operator, db),
    ),
    database,
  };
}

/** Warns once per held-back REAADB, with the participant and the command; nothing is changed. */
export function reportHeldBack(
  ctx: StepContext<UpgradeDeps>,
  items: readonly HeldBackWork[],
): HeldBackRecord[] {
  return items.map((item) => {
    const label = `${item.namespace}/${item.name}`;
    ctx.warn(
      `Active-Active database ${oneLine(label)} held back, not raised to ${item.version}: ${oneLine(item.reason)}. ` +
        `Once every participating cluster can take it (the reason says what each needs), run: ${oneLine(item.command)}`,
      { database: item.name, namespace: item.namespace, heldBack: item.reason, command: item.command },
    );
    return { database: label, version: item.version, reason: item.reason, command: item.command };
  });
}

/**
 * The commands that update the feature set and module list of an Active-Active database, once,
 * after every instance runs the new version. `guid` from the REAADB's `status.guid` (reference
 * `crd-reaadb.yaml`), else the bdb's `crdt_guid`.
 */
export function featureSetCommands(input: {
  kube: KubeTarget;
  pod: string;
  namespace: string;
  guid: string | undefined;
  withModules: boolean;
}): string[] {
  const guid = input.guid ?? 'CRDB_GUID';
  const exec = (...words: string[]) =>
    kubectl(input.kube, 'exec', '-it', input.pod, '-n', input.namespace, '--', ...words);
  return [
    // Without the GUID, the list shows it (CRDB-GUID column).
    ...(input.guid === undefined ? [exec('crdb-cli', 'crdb', 'list')] : []),
    exec('crdb-cli', 'crdb', 'update', '--crdb-guid', guid, '--featureset-version', 'yes'),
    ...(input.withModules
      ? [exec('crdb-cli', 'crdb', 'update', '--crdb-guid', guid, '--update-db-config-modules', 'true')]
      : []),
  ];
}

/** The CRDB GUID of an REAADB object: `status.guid`. */
export function guidOf(object: KubeObject | undefined): string | undefined {
  return object ? str(getPath(object, ['status', 'guid'])) : undefined;
}

/** Whether the REAADB's global configuration lists modules. */
export function hasModules(object: KubeObject | undefined): boolean {
  const list = object ? getPath(object, ['spec', 'globalConfigurations', 'modulesList']) : undefined;
  return Array.isArray(list) && list.length > 0;
}

/**
 * The manual procedure (operators before 8.0.2-2), in the documented order: on every
 * participating cluster, after that cluster's upgrade, its instance; then once, after the
 * last participant, the feature set (and module list).
 */
export function manualCommands(input: {
  kube: KubeTarget;
  pod: string;
  namespace: string;
  name: string;
  version: string;
  guid: string | undefined;
}): { eachCluster: string[]; once: string[] } {
  const exec = (...words: string[]) =>
    kubectl(input.kube, 'exec', '-it', input.pod, '-n', input.namespace, '--', ...words);
  return {
    eachCluster: [
      exec('rladmin', 'status'),
      exec('rladmin', 'upgrade', 'db', input.name, 'redis_version', input.version),
    ],
    once: featureSetCommands({
      kube: input.kube,
      pod: input.pod,
      namespace: input.namespace,
      guid: input.guid,
      withModules: true,
    }),
  };
}

/**
 * After ctl raised an REAADB on every participant at once: the feature set and the module list,
 * once for all instances (the top of this module says why these are printed commands).
 */
export async function updateFeatureSetOnce(
  ctx: StepContext<UpgradeDeps>,
  item: DatabaseWork,
  live: KubeObject,
  intents: IntentLog,
): Promise<FeatureSetRecord> {
  const cluster = ctx.deps.snapshot.cluster;
  const label = `${item.namespace}/${item.name}`;
  const guid = guidOf(live) ?? crdtGuidOf(await findActiveActiveBdb(ctx, item.name));
  const commands = featureSetCommands({
    kube: ctx.deps.snapshot.kubeTarget,
    pod: `${cluster?.name ?? 'REC'}-0`,
    namespace: cluster?.namespace ?? item.namespace,
    guid,
    withModules: hasModules(live),
  });
  const record: FeatureSetRecord = { database: label, guid: guid ?? null, commands };
  await intents.recordFeatureSet(record);
  ctx.warn(
    `Active-Active database ${oneLine(label)} runs ${item.version} on every participating cluster. Update its feature set${commands.length > 1 ? ' and module list' : ''} once, now, on this cluster only:\n${commands.map((c) => `  ${oneLine(c)}`).join('\n')}`,
    { database: item.name, namespace: item.namespace, featureSet: commands },
  );
  return record;
}

function crdtGuidOf(bdb: ApiBdb | undefined): string | undefined {
  return typeof bdb?.crdt_guid === 'string' ? bdb.crdt_guid : undefined;
}

/** The manual procedure for operators before 8.0.2-2, as warnings: ctl changes nothing for these. */

export async function reportManual(
  ctx: StepContext<UpgradeDeps>,
  items: DatabaseWork[],
  outcome: { manual: string[] },
): Promise<void> {
  const { snapshot, plan } = ctx.deps;
  const cluster = snapshot.cluster;
  let bdbs: ApiBdb[] = [];
  try {
    bdbs = await ctx.deps.api.listBdbs();
  } catch (error) {
    // The commands then keep their placeholders; an untrusted certificate is exit 1 (docs/exit-codes.md).
    if (findTlsFailure(error)) throw error;
  }
  for (const item of items) {
    const pod = `${cluster?.name ?? 'REC'}-0`;
    const ns = cluster?.namespace ?? item.namespace;
    const bdb =
      bdbs.find((b) => b.name === item.name && b.crdt === true) ?? bdbs.find((b) => b.name === item.name);
    const guid = typeof bdb?.crdt_guid === 'string' ? bdb.crdt_guid : undefined;
    const { eachCluster, once } = manualCommands({
      kube: ctx.deps.snapshot.kubeTarget,
      pod,
      namespace: ns,
      name: item.name,
      version: item.version,
      guid,
    });
    // The documented order: every instance first, then the feature set once for all of them
    // (DOCS operate/rs/installing-upgrading/upgrading/upgrade-active-active.md).
    ctx.warn(
      `Active-Active database ${oneLine(item.namespace)}/${oneLine(item.name)} must be upgraded by hand: operator ${plan.target.operator} cannot (it needs ${ACTIVE_ACTIVE_UPGRADE_FROM} or later on every participating cluster). ` +
        `Upgrade Redis Software on every participating cluster first. Then on each participating cluster (its own pod):\n${eachCluster.map((c) => `  ${oneLine(c)}`).join('\n')}\n` +
        `Then once, after every instance runs ${oneLine(item.version)}, on any one participating cluster (the last command only for a database with modules):\n${once.map((c) => `  ${oneLine(c)}`).join('\n')}`,
      { database: item.name, namespace: item.namespace, commands: [...eachCluster, ...once] },
    );
    outcome.manual.push(`${item.namespace}/${item.name}`);
  }
  if (items.length > 0 && supportsActiveActiveUpgrade(plan.target.operator)) {
    // Not expected: the planner only writes manual actions for older operators.
    ctx.warn(
      `operator ${plan.target.operator} could upgrade these through the REAADB; re-plan to let ctl do it`,
    );
  }
}
