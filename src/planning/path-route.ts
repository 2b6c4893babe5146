/**
 * The route of an upgrade path without its plans: which release each hop goes to and how the
 * operator is upgraded, as planPath (./hops.ts) would plan them, for what must be asked before
 * planning (the target-available probes, the helm client). Planning every hop twice, once for
 * the route and once with the answers, decided every database of a 10,000-database cluster
 * twice and ran every check twice (docs/performance.md, issue 39).
 *
 * The hop search reads a hop's plan for its target and its steps' database actions only
 * (projectSnapshot), and decides the next hop from the operator, the cluster's tag, the nodes'
 * versions and OLM, never from the databases; so a route with no steps takes the same hops. The
 * usage errors buildPlan raises that the route can tell are raised here too, in the same order,
 * before any probe: a --databases name that does not exist, and a release without upstream
 * files when the operator step will read them. Whether the other steps read release files
 * depends on what every step plans (a run with nothing else to do ends before any step), so
 * buildPlan alone judges those (src/planning/bundle-source.ts).
 */

import { assertReleaseFilesLocatable, operatorReleaseFiles } from './bundle-source.js';
import { choosePath, DEFAULT_MAX_HOPS, type HopPlan } from './hops.js';
import { operatorStepIsDone } from './operator-current.js';
import type { PlanTarget } from './plan.js';
import { runsStep } from './step-selection.js';
import { assertSelectedDatabasesExist, type ResolvedVersions, resolveVersions } from './resolve.js';
import type { Snapshot } from './snapshot.js';
import type { Target } from './target.js';

/** The route: the plan's target, and each hop's when the upgrade takes two hops or more. */
export interface PathRoute extends HopPlan {
  /** Every hop's target in order (the final one last); absent for a single-target plan. */
  hops?: PlanTarget[] | undefined;
}

function routeTarget(target: Target, versions: ResolvedVersions): PlanTarget {
  return {
    operator: target.operator,
    clusterVersion: versions.clusterTag.target ?? null,
    databaseVersion: versions.databaseVersion ?? null,
    method: versions.method,
  };
}

/** One hop's route: buildPlan's checks on the input, then its target; no checks, no steps. */
function routeOne(snapshot: Snapshot, target: Target): PathRoute {
  assertSelectedDatabasesExist(snapshot, target);
  const versions = resolveVersions(snapshot, target);
  // The operator step acts unless the operator is ready at the target (as its plan decides).
  const operatorActs = runsStep(target.steps, 'operator') && !operatorStepIsDone(snapshot.operator, versions);
  assertReleaseFilesLocatable(snapshot, target, operatorActs ? operatorReleaseFiles(snapshot, versions) : []);
  return { target: routeTarget(target, versions), steps: [] };
}

/** The route planPath(snapshot, target, maxHops, ...) plans: the same hops, the same method. */
export function planRoute(snapshot: Snapshot, target: Target, maxHops = DEFAULT_MAX_HOPS): PathRoute {
  return choosePath<PathRoute>(snapshot, target, maxHops, {
    one: routeOne,
    // As multiHopPlan: the final hop's target on top, every hop's in `hops`.
    multi: (_live, hops) => ({
      target: hops.at(-1)!.plan.target,
      steps: [],
      hops: hops.map((hop) => hop.plan.target),
    }),
    refuse: (plan) => plan,
  });
}
