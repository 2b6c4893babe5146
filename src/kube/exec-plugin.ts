/**
 * The kubeconfig's exec credential plugin (`users[].user.exec`: aws eks get-token,
 * gke-gcloud-auth-plugin, kubelogin, a script of the user's), bounded in time and in output.
 *
 * client-node runs the plugin before every request it has no cached credential for, and waits
 * for it without a limit (its ExecAuth: `spawn`, then the whole of stdout kept until the
 * process ends). A plugin that waits for a sign-in nobody gives, or a network that never
 * answers, hung ctl for good, and a plugin printing without end filled its memory. Here the
 * plugin gets EXEC_PLUGIN_LIMITS.deadlineMs and maxBytes of stdout: past either it is killed, and
 * the request fails with an error that names the plugin and says what to do.
 *
 * kubectl's own exec plugin runner (client-go) likewise runs the command from the kubeconfig;
 * how the plugin is found and what it prints are the Kubernetes "client-go credential plugins"
 * contract (https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins).
 */

import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { OperationError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';

export const EXEC_PLUGIN_LIMITS = {
  /** The plugin's whole run: time enough to sign in where a plugin asks, not for ever. */
  deadlineMs: 60_000,
  /** Its stdout: an ExecCredential is a token or a certificate and key, a few KiB. */
  maxBytes: 1024 * 1024,
} as const;

/** The part of client-node's ExecAuth (exec_auth.js) that starts the plugin. */
interface PluginRunner {
  execFn: (command: string, args: string[] | undefined, options: SpawnOptions) => ChildProcess;
}

function isPluginRunner(value: unknown): value is PluginRunner {
  return typeof (value as { execFn?: unknown } | null)?.execFn === 'function';
}

/**
 * Makes `config`'s exec plugin runs bounded. client-node keeps its authenticators on the
 * KubeConfig (`authenticators`, the ExecAuth among them); should that change, nothing is
 * patched and the request's own deadlines still apply once the plugin has answered.
 */
export function boundExecPlugin(config: object): void {
  const authenticators = (config as { authenticators?: unknown }).authenticators;
  if (!Array.isArray(authenticators)) return;
  for (const authenticator of authenticators) {
    if (isPluginRunner(authenticator)) authenticator.execFn = runBounded;
  }
}

/**
 * Starts the plugin as client-node would, and kills it past the deadline or the output limit.
 * The error is emitted on the child first: client-node keeps the child's 'error' and rejects
 * with it when the process closes, so the request fails with this message.
 */
export function runBounded(
  command: string,
  args: string[] | undefined,
  options: SpawnOptions,
  limits: { deadlineMs: number; maxBytes: number } = EXEC_PLUGIN_LIMITS,
): ChildProcess {
  const child = spawn(command, args ?? [], {
    ...options,
    // The plugin is the kubeconfig's (a cloud's, or whoever wrote the file): it gets no ctl
    // credential (CTL_PASSWORD, CTL_USERNAME, ...), as helm gets none (src/exec/helm.ts).
    env: withoutCtlVariables(options.env ?? process.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killedAtExit(child);
  const name = oneLine(command);
  let stopped = false;
  const stop = (error: OperationError): void => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    child.emit('error', error);
    child.kill('SIGKILL');
    // Its streams too: a process the plugin started may hold them open, and client-node
    // answers only once they close.
    child.stdout?.destroy();
    child.stderr?.destroy();
  };
  const timer = setTimeout(
    () =>
      stop(
        new OperationError(
          `the kubeconfig's credential plugin ${name} gave no credential within ${limits.deadlineMs / 1000} s; ctl stopped it`,
          {
            hint: `Run it where it can ask you to sign in (kubectl get namespaces runs it too), or check what it waits for; then run ctl again.`,
          },
        ),
      ),
    limits.deadlineMs,
  );
  let size = 0;
  child.stdout?.on('data', (chunk: Buffer | string) => {
    size += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (size > limits.maxBytes)
      stop(
        new OperationError(
          `the kubeconfig's credential plugin ${name} printed more than ${limits.maxBytes / 1024} KiB; ctl stopped it`,
          {
            hint: 'A credential plugin prints one ExecCredential (a token, or a certificate and key): check the command in the kubeconfig.',
          },
        ),
      );
  });
  child.once('exit', () => clearTimeout(timer));
  child.once('error', () => clearTimeout(timer));
  return child;
}

/** Plugins still running. */
const running = new Set<ChildProcess>();

/**
 * ctl ends with process.exit as soon as its answer is out (src/cli/run-cli.ts): a plugin that
 * was started for a request nobody waits for any more would outlive it. Each is killed at exit.
 */
function killedAtExit(child: ChildProcess): void {
  if (running.size === 0 && !exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const plugin of running) plugin.kill('SIGKILL');
    });
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.once('error', () => running.delete(child));
}

let exitHooked = false;

/** The environment less ctl's own variables: the plugin needs none of them. */
function withoutCtlVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('CTL_')));
}
