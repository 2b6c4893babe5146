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

import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { OperationError } from '../errors.js';
import { oneLine, quotedLines } from '../io/safe-text.js';
import { currentWaiter } from './credential-waiter.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand, type KubeTarget } from './kube-target.js';

export const EXEC_PLUGIN_LIMITS = {
  /** The plugin's whole run: time enough to sign in where a plugin asks, not for ever. */
  deadlineMs: 60_000,
  /** Its stdout: an ExecCredential is a token or a certificate and key, a few KiB. */
  maxBytes: 1024 * 1024,
} as const;

/**
 * What of a failed plugin's stderr goes into ctl's error: its first lines, enough to say why
 * (`token expired, run aws sso login`). client-node kept all of it, and put all of it in the
 * error: a plugin that printed to stderr without end crashed ctl (`Invalid string length`).
 */
const STDERR_QUOTED = { lines: 5, chars: 1000 } as const;

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
export function boundExecPlugin(config: object, target: KubeTarget = DEFAULT_KUBE_TARGET): void {
  const authenticators = (config as { authenticators?: unknown }).authenticators;
  if (!Array.isArray(authenticators)) return;
  for (const authenticator of authenticators) {
    if (isPluginRunner(authenticator))
      authenticator.execFn = (command, args, options) =>
        runBounded(command, args, options, EXEC_PLUGIN_LIMITS, target);
  }
}

/**
 * Starts the plugin as client-node would, and kills it past the deadline or the output limit,
 * or as soon as nobody waits for its answer: the request it was started for was aborted (Ctrl-C,
 * SIGTERM, a caller's signal) or stopped waiting for its credential (credential-waiter.ts). Such
 * a plugin ran to its deadline, and kept a program that used kubeRequest as a library alive that
 * long. The error is emitted on the child first: client-node keeps the child's 'error' and
 * rejects with it when the process closes, so the request fails with this message.
 */
export function runBounded(
  command: string,
  args: string[] | undefined,
  options: SpawnOptions,
  limits: { deadlineMs: number; maxBytes: number } = EXEC_PLUGIN_LIMITS,
  /** The kubeconfig and context ctl was given: the kubectl of a hint runs the same plugin. */
  target: KubeTarget = DEFAULT_KUBE_TARGET,
): ChildProcess {
  const tryIt = kubectlCommand(target, 'get', 'namespaces');
  // Read before anything else: it is the caller's only while the spawn is synchronous.
  const waiter = currentWaiter();
  // child_process on first use, as the bundle gives it to commander and client-node
  // (scripts/bundle.mjs, builtinsOnFirstCall): a plan without a plugin never loads it (nor dgram).
  const { spawn } = process.getBuiltinModule('node:child_process');
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
    waiter?.removeEventListener('abort', abandoned);
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
            hint: `Run it where it can ask you to sign in (${tryIt} runs it too), or check what it waits for; then run ctl again.`,
          },
        ),
      ),
    limits.deadlineMs,
  );
  const tooMuch = (stream: string): OperationError =>
    new OperationError(
      `the kubeconfig's credential plugin ${name} printed more than ${limits.maxBytes / 1024} KiB${stream}; ctl stopped it`,
      {
        hint: 'A credential plugin prints one ExecCredential (a token, or a certificate and key): check the command in the kubeconfig.',
      },
    );
  // Each stream bounded: client-node keeps every byte of both (and a plugin may log without end).
  const collect = (stream: NodeJS.ReadableStream | null, which: string): Buffer[] => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream?.on('data', (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > limits.maxBytes) stop(tooMuch(which));
      else chunks.push(bytes);
    });
    return chunks;
  };
  const stdout = collect(child.stdout, '');
  const stderr = collect(child.stderr, ' on stderr');
  // This listener runs before client-node's (it listens once execFn has returned): an error
  // emitted here is the one client-node rejects with, in place of its own, which was the whole
  // of stderr, or JSON.parse's message quoting the start of stdout (a bare token, say).
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
    if (stopped) return;
    const failure = pluginFailure(name, code, signal, Buffer.concat(stdout), Buffer.concat(stderr), tryIt);
    if (failure) {
      stopped = true;
      child.emit('error', failure);
    }
  });
  // Nobody waits any more: stopped at once. Its answer would be thrown away (the request's wait
  // has ended, request.ts builtWithin), and nothing of it may keep the event loop alive: the
  // timer is cleared, the streams destroyed, the listener removed, the process killed.
  function abandoned(): void {
    stop(
      new OperationError(
        `the kubeconfig's credential plugin ${name} was stopped: the request it was started for no longer waits for it`,
      ),
    );
  }
  const ended = (): void => {
    clearTimeout(timer);
    waiter?.removeEventListener('abort', abandoned);
  };
  child.once('exit', ended);
  child.once('error', ended);
  // Aborted already (kubeRequest asks for no credential then, but another caller may): stopped
  // once client-node, which listens once execFn has returned, hears the error.
  if (waiter?.aborted) queueMicrotask(abandoned);
  else waiter?.addEventListener('abort', abandoned, { once: true });
  return child;
}

/**
 * Why the plugin's run gave no credential, if it did not: it failed (its exit code and the
 * first lines of its stderr), or what it printed is not JSON (never quoted: it may be a token).
 */
function pluginFailure(
  name: string,
  code: number | null,
  signal: NodeJS.Signals | null,
  stdout: Buffer,
  stderr: Buffer,
  tryIt: string,
): OperationError | undefined {
  if (code !== 0) {
    const lines = stderr.toString('utf8').trim().split(/\r?\n/).slice(0, STDERR_QUOTED.lines).join('\n');
    const said = lines.length > STDERR_QUOTED.chars ? `${lines.slice(0, STDERR_QUOTED.chars)}…` : lines;
    const how = code === null ? `was stopped by ${signal ?? 'a signal'}` : `failed (exit ${code})`;
    return new OperationError(
      `the kubeconfig's credential plugin ${name} ${how}${said ? `: ${quotedLines(said)}` : ''}`,
      {
        hint: `Run the same command as the kubeconfig (${tryIt} runs it too) and fix what it reports; then run ctl again.`,
      },
    );
  }
  try {
    JSON.parse(stdout.toString('utf8'));
    return undefined;
  } catch {
    return new OperationError(
      `the kubeconfig's credential plugin ${name} printed no ExecCredential: its output (${stdout.length} bytes) is not JSON`,
      {
        hint: 'A credential plugin prints one ExecCredential object as JSON (client.authentication.k8s.io): check the command in the kubeconfig.',
      },
    );
  }
}

/** Names of a plugin's settings (environment variables, flags, auth-provider keys) that hold a secret. */
const SECRET_NAME = /secret|token|passw|pwd|key|credential/i;

/**
 * The secrets the kubeconfig gives its credential plugin or auth provider, for the redactor: the
 * values of its environment variables and auth-provider settings whose names say they are
 * secret (`CLIENT_SECRET`, `client-secret`, `refresh-token`), and the value of each such flag in
 * its arguments (`--client-secret=...`, `--token ...`). A plugin that fails often prints what it
 * was given (`invalid client secret <value>`), and its stderr goes into ctl's error.
 */
export function pluginSecrets(user: unknown): string[] {
  const found: string[] = [];
  const { exec, authProvider } = (user ?? {}) as {
    exec?: { args?: unknown; env?: unknown };
    authProvider?: { config?: unknown };
  };
  if (Array.isArray(exec?.env)) {
    for (const entry of exec.env as { name?: unknown; value?: unknown }[]) {
      if (typeof entry?.name === 'string' && SECRET_NAME.test(entry.name) && typeof entry.value === 'string')
        found.push(entry.value);
    }
  }
  if (Array.isArray(exec?.args)) {
    const args = exec.args.filter((arg): arg is string => typeof arg === 'string');
    args.forEach((arg, index) => {
      const flag = /^--?([^=]+)(?:=(.*))?$/s.exec(arg);
      if (!flag?.[1] || !SECRET_NAME.test(flag[1])) return;
      const value = flag[2] ?? args[index + 1];
      if (value !== undefined && !value.startsWith('-')) found.push(value);
    });
  }
  const config = authProvider?.config;
  if (config && typeof config === 'object') {
    for (const [key, value] of Object.entries(config as Record<string, unknown>)) {
      if (SECRET_NAME.test(key) && typeof value === 'string') found.push(value);
    }
  }
  return found;
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
