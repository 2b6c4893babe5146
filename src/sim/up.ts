import path from 'node:path';
import { startSimulatedCluster } from './cluster.js';
import { listScenarios, loadScenario, type ReadScenarioFile } from './scenario.js';

export interface SimUpOptions {
  /** Built-in scenario name or a path to a scenario file. */
  scenario: string;
  dir: string;
  kubePort?: number;
  apiPort?: number;
  fast: boolean;
}

/**
 * What `ctl sim up` and `ctl sim scenarios` print through: ctl's Io has these members, and the
 * simulator needs nothing else from it (so it imports nothing from ctl).
 */
export interface SimOutput {
  /** `text` or `json` (`-o json`); any other format prints as text. */
  readonly output: string;
  /** A line for people, on stderr. */
  info(message: string): void;
  /** A line of the command's result, on stdout. */
  data(text: string): void;
  /** The command's result as JSON, on stdout. */
  json(value: unknown): void;
}

export interface SimUpContext {
  io: SimOutput;
  cwd: string;
  /** Resolves when the simulator should stop; default: the first SIGINT or SIGTERM. */
  until?: Promise<unknown>;
  /** Reads a scenario file given by path (ctl's bounded reader); default: the whole file. */
  readScenarioFile?: ReadScenarioFile;
}

/**
 * `ctl sim up`: start everything, announce it with one `ready {...}` line on stdout (what
 * scripts and tests wait for), run until told to stop, then stop everything.
 */
export async function runSimUp(options: SimUpOptions, context: SimUpContext): Promise<void> {
  const { io } = context;
  // Listen before starting: a Ctrl+C during the start must still stop what was started.
  const stopRequested = context.until ?? firstStopSignal();
  const scenario = loadScenario(options.scenario, context.readScenarioFile);
  const dir = path.resolve(context.cwd, options.dir);
  const cluster = await startSimulatedCluster({
    scenario,
    dir,
    kubePort: options.kubePort,
    apiPort: options.apiPort,
    fast: options.fast,
  });
  try {
    io.info(
      [
        `Simulated cluster "${scenario.name}" is up: ${scenario.description}`,
        `  Kubernetes API   ${cluster.kubeUrl}   (namespace ${scenario.namespace}, cluster ${scenario.cluster.name})`,
        `  Management API   ${cluster.apiUrl}`,
        `  Artifacts        ${cluster.artifactsUrl}   (helm repository and operator bundles)`,
        `  Files            ${dir}`,
        '',
        // ctl alone is enough to rehearse (kubectl is optional), and the quick start runs this
        // with `&` in the shell it then uses, where Ctrl+C does not reach it.
        'In another shell (or this one, if you started it with &):',
        `  source ${path.join(dir, 'env')}`,
        '  ctl upgrade plan          # the targets; then ctl upgrade plan --to VERSION',
        '  kubectl get rec           # kubectl, if you have it, reads the same settings',
        '',
        'Press Ctrl+C to stop (started with &: kill %1, or fg then Ctrl+C).',
      ].join('\n'),
    );
    // Last, so whoever waits for it finds everything above already in place.
    io.data(
      `ready ${JSON.stringify({ dir, kubeUrl: cluster.kubeUrl, apiUrl: cluster.apiUrl, artifactsUrl: cluster.artifactsUrl })}`,
    );
    const signal = await stopRequested;
    if (typeof signal === 'string') io.info(`${signal}: stopping the simulated cluster`);
  } finally {
    await cluster.stop();
  }
}

/** The first SIGINT or SIGTERM; stopping cleanly is the point, so the exit code stays 0. */
function firstStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** `ctl sim scenarios`: one line each (name, description), or a JSON array with -o json. */
export function printScenarios(io: SimOutput): void {
  const scenarios = listScenarios();
  if (io.output === 'json') {
    io.json(scenarios);
    return;
  }
  const width = Math.max(0, ...scenarios.map((s) => s.name.length));
  for (const { name, description } of scenarios) io.data(`${name.padEnd(width)}  ${description}`);
}
