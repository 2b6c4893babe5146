import { Readable } from 'node:stream';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { BOUNDS_YOUNG_GENERATION, GROWTH_FACTOR_FLAG } from '../../src/io/young-generation.js';
import { type CtlResult, ctlEnv, repoRoot, runCtl, type SpawnCtlOptions } from './run-ctl.js';
import { testProcessEnv } from './test-env.js';

/**
 * The built ctl run inside the test's own process, for tests of what ctl decides and does (a
 * plan, a run, its state and output), not of how a process of it behaves. A ctl process costs
 * about 0.3 s of CPU before it does anything (Node's start-up, reading and deserializing the
 * bundle); a suite that starts 1,500 of them spends minutes on that (docs/reliability.md).
 *
 * Each run loads the bundle anew (bin/load-bundle.js with its `compiled` scripts): its modules and
 * whatever they hold (kept connection pools, the loaded catalog, the plain-http warning) are its
 * own, as in a process of its own; only V8's compiled code is shared between runs. It gets the
 * environment a spawned ctl gets (ctlEnv), its own stdin, stdout and stderr, and runs
 * `main(argv, runtime)`, the whole tree's entry, whose exit code it returns.
 *
 * What a spawned ctl has and this does not, so those tests spawn (runCtl, spawnCtl):
 * - bin/ctl.js's own work: the Node version check, `--version`, `--help` from the build, the
 *   code cache (`auth token` runs with its own entry here too, where bin/ctl.js would take it);
 *   and src/cli/run-cli.ts runProcess: the exit, the terminal's non-blocking writes, errors
 *   nothing awaited;
 * - signals and kills, and a process's end: a crash, a lock's owner gone;
 * - what Node reads when a process starts: NODE_OPTIONS, NODE_EXTRA_CA_CERTS (such runs spawn);
 * - a working folder and an environment of its own: the test process's folder and `process.env`
 *   are the run's while it lasts (enter, below), and runs with others take turns.
 */

interface Bundle {
  main(
    argv: string[],
    runtime: {
      env: NodeJS.ProcessEnv;
      stdin: NodeJS.ReadableStream & { isTTY?: boolean };
      stdout: { write(chunk: string): unknown; isTTY?: boolean };
      stderr: { write(chunk: string): unknown; isTTY?: boolean };
      programName?: string;
    },
  ): Promise<number>;
}

/** bin/load-bundle.js's loadBundle, as a process that runs ctl more than once calls it. */
export type LoadBundle = (
  main: string,
  words: string[],
  env: NodeJS.ProcessEnv,
  compiled: Map<string, unknown>,
) => Bundle;

const mainScript = resolve(repoRoot, 'dist', 'bundle', 'main.js');
const compiled = new Map<string, unknown>();
let loader: Promise<LoadBundle> | undefined;

/**
 * The working folder and environment the runs now use, and how many of them run: the test
 * process's folder is changed to the runs' and `process.env` is theirs while they run, since
 * parts of ctl read the process's own (a download's proxy variables, Node's TLS settings) where
 * a ctl process would read its environment. Runs with another folder or environment take turns.
 */
let current: { key: string; running: number } | undefined;
const waiting: (() => void)[] = [];
const testFolder = process.cwd();

/**
 * Whether `args` and `env` need a process of ctl: bin/ctl.js's own handling (its version, its
 * help texts), or a variable Node reads when a process starts (NODE_OPTIONS,
 * NODE_EXTRA_CA_CERTS, ...; the suite's compile cache aside).
 */
function needsTheProcess(args: readonly string[], env: Record<string, string>): boolean {
  const last = args[args.length - 1];
  const startVariable = Object.keys(env).some(
    (name) => name.startsWith('NODE_') && name !== 'NODE_COMPILE_CACHE',
  );
  return startVariable || args.includes('--version') || last === '--help' || last === '-h';
}

/**
 * Runs the built ctl to its end in this process (see above); arguments only bin/ctl.js handles,
 * a preload or another entry run it as a process instead (runCtl).
 */
export async function runCtlInProcess(args: string[], options: SpawnCtlOptions = {}): Promise<CtlResult> {
  const env = ctlEnv(options.env);
  if (options.preload || options.entry || needsTheProcess(args, env)) return runCtl(args, options);
  loader ??= import(pathToFileURL(resolve(repoRoot, 'bin', 'load-bundle.js')).href).then(
    (module: { loadBundle: LoadBundle }) => module.loadBundle,
  );
  const loadBundle = await loader;
  await enter(resolve(options.cwd ?? repoRoot), env);
  const started = Date.now();
  let stdout = '';
  let stderr = '';
  const timeoutMs = options.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  let run: Promise<number>;
  try {
    const entry = (await isTokenEntry(args, env))
      ? await freshTokenEntry()
      : loadBundle(mainScript, args, env, compiled);
    run = entry.main(args, {
      env,
      stdin: Readable.from(options.stdin === undefined || options.stdin === '' ? [] : [options.stdin]),
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      programName: 'ctl',
    });
  } catch (error) {
    leave();
    throw error;
  }
  // The folder and environment are the run's until it has ended, even past its deadline: a run
  // the test stopped waiting for cannot be killed, and must not write into the test's folder.
  void run.then(leave, leave);
  try {
    // A run that never ends fails its test with what it printed; the test file's own timeout
    // and watchdog (scripts/run-tests.mjs) end the rest.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(`ctl ${args.join(' ')} (in-process) did not end within ${timeoutMs} ms\n${stderr}`),
          ),
        timeoutMs,
      );
    });
    const code = await Promise.race([run, deadline]);
    return { code, signal: null, stdout, stderr, durationMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

const tokenMain = pathToFileURL(resolve(repoRoot, 'dist', 'bundle', 'token-main.js')).href;
interface TokenEntry extends Bundle {
  isAuthTokenCommand(argv: readonly string[], env: NodeJS.ProcessEnv): boolean;
}
let tokenProbe: Promise<TokenEntry> | undefined;
let tokenLoads = 0;

/**
 * Whether bin/ctl.js would run `args` with `ctl auth token`'s own entry (dist/bundle/token-main.js),
 * as it asks that entry (src/token-main.ts isAuthTokenCommand, a function of the words and the
 * environment alone).
 */
async function isTokenEntry(args: string[], env: Record<string, string>): Promise<boolean> {
  if (!args.includes('token')) return false;
  tokenProbe ??= import(tokenMain) as Promise<TokenEntry>;
  return (await tokenProbe).isAuthTokenCommand(args, env);
}

/** How many runs took the token's own entry so far (its test checks that they do). */
export function tokenEntryRuns(): number {
  return tokenLoads;
}

/**
 * The token's entry, an ES module, loaded anew for each run (a query makes it another module):
 * its state is the run's own, as the whole tree's is (loadBundle).
 */
async function freshTokenEntry(): Promise<Bundle> {
  tokenLoads += 1;
  return (await import(`${tokenMain}?run=${tokenLoads}`)) as Bundle;
}

async function enter(cwd: string, env: Record<string, string>): Promise<void> {
  const key = JSON.stringify([cwd, Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1))]);
  for (;;) {
    if (current === undefined) {
      current = { key, running: 0 };
      process.chdir(cwd);
      process.env = { ...env };
    }
    if (current.key === key) {
      current.running += 1;
      return;
    }
    await new Promise<void>((resolveTurn) => waiting.push(resolveTurn));
  }
}

/**
 * On Node.js 24, ctl stops the young generation's growth once an answer passes 1 MiB
 * (src/io/young-generation.ts): a V8 flag of the whole process. In a process of its own that is
 * the run's; here it stayed the test's until the file ended, and the simulators and later runs
 * collected garbage in a young generation stopped at that size (e2e/sim-capture-4 and
 * e2e/sim-scenarios on Node 24: 57-58 s of CPU, 45-47 s with the flag left at its default, two
 * runs each). When the last run leaves, V8's default (2) comes back.
 */
const YOUNG_GENERATION_DEFAULT = `${GROWTH_FACTOR_FLAG}=2`;

function leave(): void {
  if (current === undefined) return;
  current.running -= 1;
  if (current.running > 0) return;
  current = undefined;
  process.chdir(testFolder);
  process.env = testProcessEnv;
  if (BOUNDS_YOUNG_GENERATION) setFlagsFromString(YOUNG_GENERATION_DEFAULT);
  for (const next of waiting.splice(0)) next();
}
