/**
 * Is the cluster upgrade frozen, and by what? Judged from what the real world offers
 * (redis-facts.md §12): the operator's LOG (the docs: "check the operator logs for the source of
 * the error"; the operator raises no documented Event for a freeze), the management API
 * (databases below the minimum version, modules in use without a `rhel9/...` build: the two
 * documented causes, redis/docs `kubernetes/upgrade/upgrade-redis-cluster.md`), and a rollout
 * that does not move.
 *
 * The decision rests on the management API; the log and the stalled rollout only say when to
 * look, and the log's lines are shown to the user as the operator's own account. No wording of
 * the operator's freeze lines is documented, so none is relied on.
 */

import type { ApiClient } from '../api/client.js';
import type { KubeClients } from '../kube/client.js';
import { type OperatorLogLine, readOperatorLog } from '../kube/operator-log.js';
import type { Snapshot } from '../planning/snapshot.js';
import { type Blocker, blockersFromApi, mergeBlockers } from './remediate-blockers.js';

/** The logger of the operator's cluster controller (K8S issue #89). */
export const CLUSTER_LOGGER = 'controller_redisenterprisecluster';

export interface FreezeInput {
  clusterName: string;
  /** The database version the target requires at least (`7.2`). */
  minimumDatabaseVersion: string;
  /** How long ago the cluster step began: the log is read from then on. */
  sinceSeconds: number;
  /** How long the rollout has not moved. */
  stalledMs: number;
  /** From this long without progress on, the management API is consulted even if the log is silent. */
  graceMs: number;
}

export interface FreezeDiagnosis {
  /** What blocks the upgrade, per the management API (or the log when the API cannot be read). */
  blockers: Blocker[];
  /** The operator's error lines about the cluster since the step began, newest last (at most 5). */
  evidence: string[];
}

export interface FreezeSources {
  kube: KubeClients;
  api: ApiClient;
  snapshot: Snapshot;
  /** Called once per kind of trouble reading a source (the diagnosis goes on without it). */
  warn: (message: string) => void;
}

/**
 * Undefined while there is nothing to look at (the log is quiet and the rollout moved recently);
 * otherwise the blockers found (empty: nothing to fix, the upgrade is not frozen by a known cause).
 */
export async function diagnoseFreeze(
  sources: FreezeSources,
  input: FreezeInput,
): Promise<FreezeDiagnosis | undefined> {
  const lines = await operatorLogSince(sources, input.sinceSeconds);
  const errors = clusterErrorLines(lines, input.clusterName);
  if (errors.length === 0 && input.stalledMs < input.graceMs) return undefined;
  const evidence = errors.slice(-5).map(describeLine);
  const named = blockersFromLog(errors, input.minimumDatabaseVersion);
  try {
    const [bdbs, modules] = await Promise.all([sources.api.listBdbs(), sources.api.listModules()]);
    return { blockers: blockersFromApi(bdbs, modules, input.minimumDatabaseVersion, named), evidence };
  } catch (error) {
    if (errors.length === 0) return undefined;
    sources.warn(`cannot read the management API (${(error as Error).message}): going by the operator's log`);
    return { blockers: mergeBlockers(named), evidence };
  }
}

async function operatorLogSince(sources: FreezeSources, sinceSeconds: number): Promise<OperatorLogLine[]> {
  const operator = sources.snapshot.operator;
  if (!operator) return [];
  try {
    return await readOperatorLog(sources.kube, {
      namespace: operator.namespace,
      deploymentName: operator.deploymentName,
      sinceSeconds,
    });
  } catch (error) {
    sources.warn(
      `cannot read the operator's log (${(error as Error).message}): judging a freeze from the management API and the rollout only`,
    );
    return [];
  }
}

/** The operator's error lines about this cluster (its cluster controller, or lines naming no logger). */
export function clusterErrorLines(lines: OperatorLogLine[], clusterName: string): OperatorLogLine[] {
  return lines.filter(
    (line) =>
      line.level === 'error' &&
      (line.logger === undefined || line.logger === CLUSTER_LOGGER) &&
      (line.requestName === undefined || line.requestName === clusterName),
  );
}

function describeLine(line: OperatorLogLine): string {
  if (line.msg !== undefined && line.error !== undefined) return `${line.msg}: ${line.error}`;
  return line.error ?? line.msg ?? line.text;
}

/**
 * What the log's lines name, read loosely ("database <name> (uid <n>) runs ... <x.y>", "module
 * <name> <version>"): used when the API cannot be read, and to count a module whose platforms the
 * API does not list (the newest docs dropped the field) only when the log names it.
 */
export function blockersFromLog(lines: OperatorLogLine[], minimum: string): Blocker[] {
  const blockers: Blocker[] = [];
  for (const line of lines) {
    const text = line.error ?? line.msg ?? line.text;
    const uid = Number(/\(uid (\d+)\)/.exec(text)?.[1]);
    const name = /database (\S+) \(uid/.exec(text)?.[1] ?? (Number.isInteger(uid) ? `uid ${uid}` : 'unknown');
    const used = /module (\S+) (\d[\w.-]*)/.exec(text);
    if (used?.[1]) {
      blockers.push({
        kind: 'module',
        module: used[1],
        version: used[2]?.replace(/,$/, ''),
        databases: [{ uid: Number.isInteger(uid) ? uid : undefined, name }],
      });
      continue;
    }
    const runs = /runs \S+ (\d+\.\d+)/.exec(text);
    if (Number.isInteger(uid) && runs)
      blockers.push({ kind: 'database', uid, name, version: runs[1], target: minimum });
  }
  return blockers;
}
