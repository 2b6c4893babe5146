import { systemClock } from '../api/clock.js';
import { OperationError } from '../errors.js';
import { createReporter, type ProgressReporter, terminalDisplay } from '../io/progress.js';
import type { Plan } from '../planning/plan.js';
import type { Target } from '../planning/target.js';
import type { UpgradeDeps } from '../steps/deps.js';
import type { RunCommandInput } from './run-input.js';
import type { UpgradeSession } from './session.js';

// What the steps are given: their clients and settings, and where their progress goes.

/**
 * The steps' clients and inputs. `target` is the one the plan was made for (the flags, or the
 * saved plan's selection with --plan), settled against the snapshot once, by the planner's own
 * function, so the steps do what the plan showed.
 */
export async function buildDeps(
  input: RunCommandInput,
  session: UpgradeSession,
  planned: { snapshot: import('../planning/snapshot.js').Snapshot; plan: Plan; target: Target },
  signal: AbortSignal,
  server?: import('../io/server-dry-run.js').ServerDryRun,
): Promise<UpgradeDeps> {
  const { snapshot, plan, target } = planned;
  const api = session.api();
  if (!api) {
    throw new OperationError(
      `the management API could not be reached: ${snapshot.api.error ?? 'it was never asked'}`,
      {
        hint:
          snapshot.api.failure?.hint ??
          'Check --api-url, the credentials and the CA (ctl upgrade plan shows the api-reachable check), then run again.',
      },
    );
  }
  const { Helm } = await import('../exec/helm.js');
  const helm = new Helm({
    io: input.io,
    binary: input.helmBin,
    env: session.env,
    dryRun: input.dryRun,
    server,
    // helm gets SIGTERM when the run is interrupted (never SIGKILL: see src/exec/helm.ts).
    signal,
    // The kubeconfig and context the session read, as the plan's helm command names them.
    kube: session.loaded.selection,
  });
  const { resolveUpgrade } = await import('../planning/resolve.js');
  const { KubeWriter } = await import('../kube/write.js');
  const { ApiWriter } = await import('../api/writer.js');
  const writes = { dryRun: input.dryRun, io: input.io, server };
  return {
    kube: session.kube,
    kubeWriter: new KubeWriter(session.kube, writes),
    api,
    apiWriter: new ApiWriter(api, writes),
    helm,
    settings: {
      remediate: input.remediate,
      moduleFiles: input.moduleFiles,
      maxParallel: input.maxParallel,
      keepScc: input.keepScc,
      timeoutMs: input.timeoutMs,
      stallTimeoutMs: input.stallTimeoutMs,
    },
    clock: systemClock,
    snapshot,
    plan,
    target,
    resolved: resolveUpgrade(snapshot, target),
  };
}

/** Progress for a terminal, CI lines or NDJSON (src/io/progress.ts); GitHub Actions groups on top. */
export async function createRunReporter(input: RunCommandInput): Promise<ProgressReporter> {
  const display = input.liveDisplay ?? (input.io.canAnimate ? terminalDisplay(input.io) : undefined);
  const reporter = createReporter(input.io, display);
  if (!input.io.isGitHubActions) return reporter;
  const { GitHubActionsReporter } = await import('../io/github.js');
  return new GitHubActionsReporter(reporter, input.io);
}
