import { type MainRuntime, runAction, runProcess } from './cli/run-cli.js';
import { runAuthTokenValues } from './cli/auth-action.js';
import { parseTokenArgs } from './cli/token-args.js';
import { talksToTheApiAlone } from './cli/token-scope.js';

/**
 * `ctl auth token`'s own entry (dist/bundle/token-main.js, one file): the token without
 * commander, the command tree and the Kubernetes client, whose loading was most of what ctl
 * added to a bare HTTPS request (docs/performance.md, "The token against its floor").
 * bin/ctl.js runs it only when `isAuthTokenCommand` says so: when src/cli/token-args.ts reads the
 * arguments exactly as commander would, and the run needs the management API alone
 * (src/cli/token-scope.ts). Everything else (--help, every bad flag, a URL or credentials from
 * Kubernetes, a proxy, -o yaml) goes to the whole tree (src/main.ts), as before.
 */
export function isAuthTokenCommand(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  const values = parseTokenArgs(argv);
  return values !== undefined && talksToTheApiAlone(values, env);
}

/** argv -> `ctl auth token` -> exit code, as src/main.ts's `main` gives for the same argv. */
export async function main(argv: string[], runtime: MainRuntime): Promise<number> {
  const values = parseTokenArgs(argv);
  if (!values) throw new Error('token-main: not arguments of ctl auth token (ask isAuthTokenCommand)');
  return runAction(argv, runtime, (full) => runAuthTokenValues(values, full));
}

/** Entry point for bin/ctl.js: run, flush, exit. */
export async function run(): Promise<void> {
  await runProcess(main);
}
