import { join } from 'node:path';
import { CtlError, type ExitCodeValue, InterruptedError, OperationError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import { shellQuote } from '../io/shell-words.js';
import { stopSubject } from '../run/signals.js';
import type { GlobalOptions } from './options.js';
import type { Io } from '../io/io.js';
import type { Scenario } from '../sim/scenario.js';
import type { LiveDisplayFactory } from '../io/progress.js';

export interface DemoInput {
  globals: GlobalOptions;
  io: Io;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  scenario: string;
  /** `--to`; undefined: the target ctl recommends for the scenario (its target list's `*`). */
  to: string | undefined;
  /** No simulated waits at all (tests); the default keeps short waits so progress is visible. */
  instant: boolean;
  liveDisplay?: LiveDisplayFactory;
}

/** Short, visible waits: the upgrade takes seconds, yet every step shows its progress. */
const DEMO_TIMING = { operatorStart: 0.6, podRestart: 0.8, databaseUpgrade: 0.4 };

/**
 * `ctl demo`: start a simulated cluster in-process, then do exactly what a user does against a
 * real one: `ctl upgrade plan`, then `ctl upgrade run --yes`, with the same code paths, and show
 * where the cluster ended.
 */
export async function runDemo(input: DemoInput): Promise<void> {
  try {
    await demo(input);
  } catch (error) {
    throw asDemoEnding(await asCtlError(error));
  }
}

/**
 * The run's advice names a cluster and a state that lived only as long as the demo: interrupted,
 * `resume with: ctl upgrade run ... --yes` would go to whatever the person's kubeconfig names (or
 * find none). So an interrupted demo says what it was, and no error of it offers to resume.
 */
export function asDemoEnding(error: unknown): unknown {
  if (error instanceof InterruptedError)
    return new InterruptedError(
      error.signal,
      `the demo was interrupted by ${stopSubject(error.signal)}; its simulated cluster stopped with it`,
      { hint: DEMO_AGAIN, cause: error },
    );
  if (error instanceof CtlError && error.hint?.includes('resume with: ')) {
    const advice = error.hint.split('\n').filter((line) => !line.startsWith('resume with: '));
    error.hint = [...advice, DEMO_AGAIN].join('\n');
  }
  return error;
}

const DEMO_AGAIN =
  'Nothing outside the simulated cluster was touched, and nothing is left to resume: run ctl demo again (--instant: about a second).';

/**
 * The simulator's own errors (it imports nothing from ctl, src/sim/world/errors.ts) as ctl's, so
 * main reports them with their exit code and hint: a wrong scenario exits 2, a port in use 1.
 * For the two commands that start the simulator: this one and `ctl sim` (src/cli/sim.ts).
 */
export async function asCtlError(error: unknown): Promise<unknown> {
  const { SimError } = await import('../sim/world/errors.js');
  if (!(error instanceof SimError)) return error;
  return new CtlError(error.exitCode as ExitCodeValue, error.message, { hint: error.hint, cause: error });
}

async function demo(input: DemoInput): Promise<void> {
  const { io } = input;
  const { loadScenario } = await import('../sim/scenario.js');
  const { startSimulatedCluster } = await import('../sim/cluster.js');
  // A scenario file, as `ctl sim up --scenario`'s: a regular file within its bound (src/io/paths.ts).
  const { INPUT_FILE_LIMITS, readInputFileSync } = await import('../io/paths.js');
  const scenario = demoScenario(
    loadScenario(input.scenario, (file) => readInputFileSync('--scenario', file, INPUT_FILE_LIMITS.scenario)),
    input.instant,
  );
  io.info(
    // A scenario file is anyone's text: its name and description stay on this one line.
    io.color.bold(`Starting a simulated cluster: ${oneLine(scenario.name)}`) +
      io.color.dim(` (${oneLine(scenario.description)})`),
  );
  const cluster = await startSimulatedCluster({ scenario, fast: input.instant });
  try {
    // Everything below talks to the simulator only through its kubeconfig and API URL, like a user.
    const env: NodeJS.ProcessEnv = {
      ...input.env,
      ...cluster.env,
      XDG_STATE_HOME: join(cluster.dir, 'state'),
    };
    const globals: GlobalOptions = {
      ...input.globals,
      kubeconfig: cluster.kubeconfigPath,
      context: undefined,
    };
    const connection = {
      apiUrl: cluster.env.CTL_API_URL,
      username: undefined,
      passwordStdin: false,
      passwordFile: undefined,
      caFile: cluster.env.CTL_CA_FILE,
      insecure: false,
      authForm: 'auto' as const,
    };
    const { resolveTarget } = await import('../planning/target.js');
    const common = { globals, io, env, stdin: input.stdin, connection };
    const { runPlanCommand } = await import('./plan.js');
    // As a newcomer starts: the targets first, then the plan of the one ctl recommends.
    const to = input.to ?? (await recommendedTarget(common, runPlanCommand));
    const target = resolveTarget({ to, bundle: env.CTL_BUNDLE, helmRepo: env.CTL_HELM_REPO });

    io.info(io.color.bold(`\n$ ctl upgrade plan --to ${to}`));
    await runPlanCommand({ ...common, target });

    io.info(io.color.bold(`\n$ ctl upgrade run --to ${to} --yes`));
    const { runUpgradeCommand } = await import('./run.js');
    await runUpgradeCommand({
      ...common,
      target,
      planFile: undefined,
      statePath: undefined,
      yes: true,
      dryRun: false,
      only: [],
      skip: [],
      timeoutMs: 10 * 60_000,
      stallTimeoutMs: 2 * 60_000,
      remediate: false,
      moduleFiles: [],
      maxParallel: 1,
      keepScc: false,
      helmBin: env.CTL_HELM || 'helm',
      liveDisplay: input.liveDisplay,
    });

    await showEndState(common, cluster.env.KUBECONFIG ?? cluster.kubeconfigPath);
    io.info(
      // The quick start's rehearsal, step 3 of docs/quickstart.md, as one could type it now: the
      // files in ctl sim up's default --dir, .ctl-sim of the working folder.
      `\nRehearse by hand (docs/quickstart.md): ctl sim up --scenario ${shellQuote(input.scenario)} --fast & then, once it prints ready, source .ctl-sim/env and ctl upgrade plan.`,
    );
  } finally {
    await cluster.stop();
  }
}

/**
 * `ctl upgrade plan` without --to, shown, and the target it recommends. A scenario where every
 * target is blocked (license-invalid) has none: the newest, so the plan shows why.
 */
async function recommendedTarget(
  common: Omit<import('./plan.js').PlanCommandInput, 'target'>,
  runPlanCommand: typeof import('./plan.js').runPlanCommand,
): Promise<string> {
  common.io.info(common.io.color.bold('\n$ ctl upgrade plan'));
  const list = await runPlanCommand({ ...common, target: undefined });
  const to = list?.recommended ?? list?.targets[0]?.operator;
  if (!to) {
    throw new OperationError('the scenario has no target to upgrade to', {
      hint: 'Pass one: ctl demo --to VERSION (ctl upgrade plan lists them).',
    });
  }
  return to;
}

function demoScenario(scenario: Scenario, instant: boolean): Scenario {
  if (instant) return scenario;
  const timing = Object.fromEntries(
    Object.entries(scenario.timing).map(([key, seconds]) => [
      key,
      Math.min(seconds, DEMO_TIMING[key as keyof typeof DEMO_TIMING] ?? seconds),
    ]),
  ) as Scenario['timing'];
  return { ...scenario, timing };
}

/** Reads the cluster again, as `kubectl get rec,redb` would show it. */
async function showEndState(
  common: Pick<DemoInput, 'globals' | 'io' | 'env' | 'stdin'> & {
    connection: import('../api/connect.js').ConnectionFlags;
  },
  _kubeconfig: string,
): Promise<void> {
  const { openSession } = await import('./session.js');
  const { readSnapshot } = await import('../planning/snapshot.js');
  const session = await openSession(common);
  try {
    // Where the cluster ended, not whether an upgrade may start: no permission to review.
    const snapshot = await readSnapshot({
      kube: session.reads,
      context: session.context,
      namespace: session.namespace,
      requiredPermissions: [],
    });
    const { io } = common;
    const cluster = snapshot.cluster;
    io.info(io.color.bold('\nWhere the cluster ended'));
    if (cluster) {
      io.info(
        `  cluster   ${cluster.name}: ${cluster.state ?? 'unknown'} at ${cluster.image.versionTag ?? '?'}`,
      );
    }
    io.info(
      `  operator  ${snapshot.operator?.version ?? '?'} (${snapshot.operator?.readyReplicas ?? 0}/${snapshot.operator?.replicas ?? 0} ready)`,
    );
    for (const db of snapshot.databases) {
      io.info(
        `  database  ${db.namespace}/${db.name}: ${db.status ?? '?'} at ${db.statusVersion ?? db.versionSpec ?? '?'}`,
      );
    }
  } finally {
    await session.close();
  }
}
