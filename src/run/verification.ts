/**
 * After a run (not a dry run): does the cluster say what the run says? Read once through the
 * management API, whose answers are the truth of an upgrade (the spec's versionTag is only a
 * wish: redis-facts.md §2 "no status field for the running RS version"): `GET /v1/nodes`, each
 * node's `software_version` must be the target RS; `GET /v1/bdbs`, each database `active` at
 * its target version (`redis_version`, `engine_version` in the engine dialect; redis-facts.md §4,
 * DOCS `operate/rs/references/rest-api/objects/node.md` and `objects/bdb/_index.md`).
 *
 * A difference this run explains (a database left out by --databases, an Active-Active database
 * to upgrade by hand, a step not run) is shown with what to do and does not fail the run; a
 * difference the run cannot explain (a step reported done, the cluster disagrees) is a failure
 * (exit 1, CLI.md "the operation failed"). When the API cannot be read, the verification says
 * it could not be made and why, and the run's result stands, except when the API's certificate
 * is no longer trusted: that is thrown, for exit 1 (docs/exit-codes.md "Decisions").
 *
 * A database the API reports `pending` or `active-change-pending` (objects/bdb `status`, DOCS
 * `operate/rs/references/rest-api/objects/bdb/_index.md`) is still changing: the operator may
 * be upgrading it on its own, as it does after the cluster upgrade for a database resource whose
 * version is `major` or `latest` (redisVersion in DOCS
 * `operate/kubernetes/reference/api/redis_enterprise_database_api.md`), which the plan leaves to
 * it. So the verification reads again, bounded (the run's --stall-timeout), until no database it
 * cannot explain is still changing; only then is a difference a failure.
 */

import type { Clock } from '../api/clock.js';
import type { ApiBdb, ApiNode } from '../api/types.js';
import { findTlsFailure } from '../api/tls-errors.js';
import { shellQuote } from '../io/shell-words.js';
import type { Plan, PlanDatabase } from '../planning/plan.js';
import type { Snapshot } from '../planning/snapshot.js';
import { selectsDatabase } from '../planning/target.js';
import { compareDatabaseVersions, databaseVersionOf, parseImageTag } from '../release/versions.js';
import type { StepSummary } from './runner.js';
import { ctlRunTo, ctlTargetOf, kubectl } from '../planning/equivalent-commands.js';
import { retargeted } from '../kube/kube-target.js';

export interface VerifiedNode {
  uid: number;
  softwareVersion: string | null;
  status: string | null;
  ok: boolean;
}

export interface VerifiedDatabase {
  name: string;
  namespace: string | null;
  uid: number | null;
  status: string | null;
  version: string | null;
  expected: string | null;
  ok: boolean;
  /** Why it is not at its target, when this run explains it; with what to do next. */
  note?: string;
}

export interface Verification {
  /** verified: all at target; mismatch: something is not; unverified: the API could not be read. */
  status: 'verified' | 'mismatch' | 'unverified';
  /** unverified: why. */
  reason?: string;
  /** The RS every node should run (the target image tag's release and build), or null when the run set none. */
  expectedClusterVersion: string | null;
  nodes: VerifiedNode[];
  databases: VerifiedDatabase[];
  /** One line per difference, each with what to do next. */
  mismatches: string[];
  /** True when a mismatch is one this run cannot explain: the run fails (exit 1). */
  unexplained: boolean;
}

export interface VerificationReader {
  listNodes(): Promise<ApiNode[]>;
  listBdbs(): Promise<ApiBdb[]>;
}

/** A database status of the API while a change is under way (objects/bdb `status`). */
const CHANGING: ReadonlySet<string> = new Set(['pending', 'active-change-pending']);

/** How long the verification waits for databases that are still changing, and how. */
export interface SettleOptions {
  clock: Clock;
  /** The longest wait, in milliseconds (the run's --stall-timeout). */
  boundMs: number;
  /** The run's signal: an interruption ends the wait (the last verification read stands). */
  signal?: AbortSignal;
}

/**
 * Reads the nodes and databases and verifies them; throws only a TLS failure. With `settle`, a
 * verification that fails while a database is still changing (CHANGING) is read again, until
 * it settles, `settle.boundMs` has passed or the signal aborts: then the last one read stands.
 */
export async function verifyRun(
  api: VerificationReader | undefined,
  input: {
    plan: Plan;
    snapshot: Snapshot;
    steps: readonly StepSummary[];
    sameRecord?: ((command: string) => string) | undefined;
  },
  settle?: SettleOptions,
): Promise<Verification> {
  if (!api) return unverified(input.plan, 'the management API was never opened');
  const started = settle?.clock.now() ?? 0;
  let delay = 250;
  for (;;) {
    let nodes: ApiNode[];
    let bdbs: ApiBdb[];
    try {
      [nodes, bdbs] = await Promise.all([api.listNodes(), api.listBdbs()]);
    } catch (error) {
      if (findTlsFailure(error)) throw error;
      return unverified(input.plan, error instanceof Error ? error.message : String(error));
    }
    const verification = verify({ ...input, nodes, bdbs });
    if (!settle || !stillChanging(verification)) return verification;
    const left = started + settle.boundMs - settle.clock.now();
    if (left <= 0) return verification;
    try {
      await settle.clock.sleep(Math.min(delay, left), settle.signal);
    } catch {
      // Interrupted (or --timeout): the steps are done; the verification as last read stands.
      return verification;
    }
    delay = Math.min(delay * 2, 2000);
  }
}

/** A failed verification with a database the API still shows changing: worth reading again. */
function stillChanging(verification: Verification): boolean {
  return (
    verification.unexplained &&
    verification.databases.some((db) => !db.ok && db.status !== null && CHANGING.has(db.status))
  );
}

export function unverified(plan: Plan, reason: string): Verification {
  return {
    status: 'unverified',
    reason,
    expectedClusterVersion: expectedRs(plan.target.clusterVersion),
    nodes: [],
    databases: [],
    mismatches: [],
    unexplained: false,
  };
}

/** `7.8.2-60`, `8.0.18-36.14`, `7.4.6-22.rhel8-openshift` -> `7.8.2-60`, `8.0.18-36`, `7.4.6-22`. */
function expectedRs(tag: string | null): string | null {
  const parsed = tag ? parseImageTag(tag) : undefined;
  return parsed ? `${parsed.rs.join('.')}-${parsed.build}` : null;
}

const RAN = new Set(['done', 'already done']);

export function verify(input: {
  plan: Plan;
  snapshot: Snapshot;
  steps: readonly StepSummary[];
  nodes: ApiNode[];
  bdbs: ApiBdb[];
  /**
   * A `ctl upgrade run` with the run's record named (`--state <file>`, `--state-store <kind>`, as
   * the run was given them: src/commands/next-command.ts withRunState), as the run's Next line
   * names it (src/run/work-left.ts sameRecord): each `ctl upgrade run` the mismatches print goes
   * through it, so that, pasted, it goes on with the same record. Unset: as built.
   */
  sameRecord?: ((command: string) => string) | undefined;
}): Verification {
  const { plan, snapshot } = input;
  const sameRecord = input.sameRecord ?? ((command: string) => command);
  /** The run of this upgrade's target for the same cluster and record, with `words` (--databases). */
  const runOf = (...words: string[]) =>
    sameRecord(ctlRunTo(ctlTargetOf(snapshot), plan.target.operator, ...words));
  const ran = (id: string) => RAN.has(input.steps.find((s) => s.id === id)?.result ?? 'not run');
  const mismatches: string[] = [];
  let unexplained = false;

  const expectedClusterVersion = expectedRs(plan.target.clusterVersion);
  const nodes = input.nodes.map((node): VerifiedNode => {
    const running = expectedRs(node.software_version ?? null);
    const ok =
      expectedClusterVersion === null || (running === expectedClusterVersion && node.status === 'active');
    return { uid: node.uid, softwareVersion: node.software_version ?? null, status: node.status ?? null, ok };
  });
  const lagging = nodes.filter((n) => !n.ok);
  if (lagging.length > 0) {
    const which = lagging
      .map((n) => `node ${n.uid} (${n.softwareVersion ?? '?'}, ${n.status ?? '?'})`)
      .join(', ');
    if (ran('monitor')) {
      unexplained = true;
      mismatches.push(
        `${which}: not ${expectedClusterVersion} and active, though the monitor step finished; read the operator's log (${kubectl(snapshot.kubeTarget, 'logs', 'deploy/redis-enterprise-operator', '-n', snapshot.operator?.namespace ?? snapshot.namespace)}) and ${kubectl(snapshot.kubeTarget, 'get', 'rec', '-n', snapshot.namespace)}, then run ${runOf()} again`,
      );
    } else {
      mismatches.push(
        `${which}: not ${expectedClusterVersion} yet: the cluster steps did not run in this run; run ${runOf()} to finish`,
      );
    }
  }

  const planned = new Map<string, PlanDatabase>();
  const plannedCommands = new Map<string, string>();
  for (const action of plan.steps.find((s) => s.id === 'databases')?.actions ?? []) {
    if (!action.database) continue;
    planned.set(`${action.database.namespace}/${action.database.name}`, action.database);
    plannedCommands.set(`${action.database.namespace}/${action.database.name}`, action.command);
  }
  const target = plan.target.databaseVersion;
  const databases = databasesOf(snapshot, input.bdbs).map(({ name, namespace, bdb }): VerifiedDatabase => {
    const key = `${namespace ?? ''}/${name}`;
    const action = planned.get(key);
    // --databases as the plan recorded it; all when not recorded.
    const chosen = selectsDatabase(plan.target.selection?.databases ?? { kind: 'all' }, { name, namespace });
    // A selected database the plan left alone (its spec says major/latest, it runs the wanted
    // version or newer, its policy allows no newer one) was never asked to move: nothing to expect
    // of it but being active. A database left out by --databases keeps the target as the yardstick.
    const expected = action ? action.version : chosen ? null : target;
    const version = bdb ? (bdb.redis_version ?? bdb.engine_version ?? null) : null;
    const atTarget = atLeast(version, expected);
    const ok = bdb !== undefined && bdb.status === 'active' && atTarget;
    const result: VerifiedDatabase = {
      name,
      namespace,
      uid: bdb?.uid ?? null,
      status: bdb?.status ?? null,
      version,
      expected,
      ok,
    };
    if (ok) return result;
    // A database only the management API lists has the name whoever created it gave: quoted.
    const named = namespace ? `${namespace}/${name}` : name;
    const where = shellQuote(named);
    const runOfIt = runOf('--databases', named);
    const state = bdb ? `${bdb.status ?? 'no status'} at ${version ?? '?'}` : 'not in GET /v1/bdbs';
    if (!atTarget && action?.heldBack) {
      // The plan's command for later, as the databases step recorded it and the Next line prints
      // it (src/run/work-left.ts): it always names the context (src/planning/active-active.ts
      // laterUpgradeCommand), for the current one may be another cluster by the time the
      // participants are ready; retargeted to this run's kubeconfig, as the Next line is.
      const later = plannedCommands.get(key);
      const heldBackRun = later ? sameRecord(retargeted(later, snapshot.kubeTarget)) : runOfIt;
      result.note = `an Active-Active database held back: ${action.heldBack}; once every participant can run ${action.version}, upgrade it with ${heldBackRun}`;
    } else if (!atTarget && action?.manual) {
      result.note = `an Active-Active database ctl does not upgrade: follow the manual procedure the run printed`;
    } else if (!atTarget && !action && !chosen) {
      result.note = `not selected for this run (--databases): upgrade it with ${runOfIt}`;
    } else if (!atTarget && !ran('databases')) {
      result.note = `the databases step did not run: run ${runOf()} to finish`;
    } else {
      unexplained = true;
      result.note = `expected active at ${expected ?? '?'}: check ${kubectl(snapshot.kubeTarget, 'get', 'redb', name, ...(namespace ? ['-n', namespace] : []))} and the operator's log, then run ${runOf()} again`;
    }
    mismatches.push(`database ${where}: ${state}, ${result.note}`);
    return result;
  });

  return {
    status: mismatches.length > 0 ? 'mismatch' : 'verified',
    expectedClusterVersion,
    nodes,
    databases,
    mismatches,
    unexplained,
  };
}

/** The cluster's databases (REDBs and its REAADBs) with their bdb; bdbs no resource names are kept too. */
function databasesOf(
  snapshot: Snapshot,
  bdbs: ApiBdb[],
): { name: string; namespace: string | null; bdb: ApiBdb | undefined }[] {
  const used = new Set<number>();
  const take = (bdb: ApiBdb | undefined) => {
    if (bdb) used.add(bdb.uid);
    return bdb;
  };
  const result: { name: string; namespace: string | null; bdb: ApiBdb | undefined }[] =
    snapshot.databases.map((database) => ({
      name: database.name,
      namespace: database.namespace,
      bdb: take(
        bdbs.find((b) => database.databaseUid !== undefined && String(b.uid) === database.databaseUid) ??
          bdbs.find((b) => b.name === database.name && b.crdt !== true && !used.has(b.uid)),
      ),
    }));
  for (const database of snapshot.activeActiveDatabases) {
    const bdb = bdbs.find((b) => b.name === database.name && b.crdt === true && !used.has(b.uid));
    if (!bdb && !database.participatingClusters.some((p) => p.name === snapshot.cluster?.name)) continue;
    result.push({ name: database.name, namespace: database.namespace, bdb: take(bdb) });
  }
  for (const bdb of bdbs) {
    if (!used.has(bdb.uid)) result.push({ name: bdb.name, namespace: null, bdb });
  }
  return result;
}

function atLeast(version: string | null, expected: string | null): boolean {
  if (expected === null) return true;
  const have = version ? databaseVersionOf(version) : undefined;
  const want = databaseVersionOf(expected);
  if (!have || !want) return false;
  return compareDatabaseVersions(have, want) >= 0;
}
