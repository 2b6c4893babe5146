import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { OperationError } from '../errors.js';
import { EXEC_PLUGIN_LIMITS } from './exec-plugin.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand, type KubeTarget } from './kube-target.js';

/**
 * How long ctl waits for the Kubernetes API server, as the management API's calls do
 * (src/api/http.ts DEFAULT_TIMEOUTS): a server that accepts a connection and never answers
 * (a stalled API server, a dead VPN, a half-open load balancer) ends the command with exit 1
 * and a hint instead of hanging it (issue 28). The figures are in docs/reliability.md.
 */
export const KUBE_DEADLINES = {
  /**
   * Building the request, before anything is sent: the kubeconfig's credential (exec plugin, auth
   * provider). An exec plugin is stopped sooner, at its own limit, by an error that names it
   * (exec-plugin.ts, 60 s); this bounds what has no limit of its own (an auth provider's refresh).
   */
  credentialMs: EXEC_PLUGIN_LIMITS.deadlineMs + 10_000,
  /** The TCP connection. */
  connectMs: 10_000,
  /** From the connection to the answer's status line and headers (the TLS handshake included). */
  responseMs: 30_000,
  /** The whole call, body included (a LIST of thousands of objects is well under this). */
  totalMs: 120_000,
  /** A watch connection with no event and no end for this long is dropped and opened again. */
  watchIdleMs: 60_000,
} as const;

/** A Kubernetes call that got no answer in time (kubeDeadlineError). */
export class KubeDeadlineError extends OperationError {}

export function isKubeDeadlineError(error: unknown): error is KubeDeadlineError {
  return error instanceof KubeDeadlineError;
}

/**
 * The kubeconfig and context ctl was given for each API server it talks to, so that the kubectl
 * of a deadline's hint reaches the same server (src/kube/kube-target.ts). Deadlines are armed on
 * the shared connection pools (src/kube/agent.ts), which know the server but not the kubeconfig;
 * the clients of each kubeconfig register theirs here (src/kube/client.ts). Two contexts of one
 * server (a fleet) may name either: `get --raw /version` asks the server only.
 */
const serverTargets = new Map<string, KubeTarget>();

export function registerServerTarget(server: string, target: KubeTarget | undefined): void {
  if (server && target) serverTargets.set(serverKey(server), target);
}

/** `https://host:port`, the port spelled out, as a request's URL and an agent's options both give it. */
function serverKey(server: string): string {
  try {
    const url = new URL(server);
    const port = url.port || (url.protocol === 'http:' ? '80' : '443');
    return `${url.protocol}//${url.hostname}:${port}`;
  } catch {
    return server;
  }
}

/** The error of a Kubernetes call that got no answer in time: exit 1, with what to check. */
export function kubeDeadlineError(
  what: string,
  server: string,
  phase: 'connect' | 'response' | 'total',
): KubeDeadlineError {
  const limit =
    phase === 'connect'
      ? `could not be reached within ${KUBE_DEADLINES.connectMs / 1000} s`
      : phase === 'response'
        ? `gave no answer within ${KUBE_DEADLINES.responseMs / 1000} s`
        : `did not finish its answer within ${KUBE_DEADLINES.totalMs / 1000} s`;
  return new KubeDeadlineError(`the Kubernetes API server ${server} ${limit} (${what})`, {
    hint: `Check that it answers (${kubectlCommand(serverTargets.get(serverKey(server)) ?? DEFAULT_KUBE_TARGET, 'get', '--raw', '/version', '--request-timeout', '10s')}), and the VPN, proxy or load balancer in between; then run the command again.`,
  });
}

/**
 * Why a request was not built within `ms` (KUBE_DEADLINES.credentialMs, or a watch's shorter one
 * in tests): the kubeconfig's credential did not come. The API server never saw the request: not
 * its silence, so the hint points at the kubeconfig's user, and `kubectl get namespaces` with
 * the same kubeconfig and context gets the same credential where it can ask to sign in.
 */
export function credentialNotReady(ms: number, server?: string): OperationError {
  const target =
    (server === undefined ? undefined : serverTargets.get(serverKey(server))) ?? DEFAULT_KUBE_TARGET;
  return new OperationError(
    `the kubeconfig's credential (its exec plugin or auth provider) was not ready within ${ms / 1000} s`,
    {
      hint: `ctl sent nothing to the API server. Check what the kubeconfig's user waits for: ${kubectlCommand(target, 'get', 'namespaces')} gets the same credential; then run ctl again.`,
    },
  );
}

const ARMED = Symbol('kube deadlines armed');

/**
 * Arms the three deadlines on one request; each one destroys it with kubeDeadlineError. The
 * timers are cleared when the request ends either way.
 */
export function armDeadlines(
  req: ClientRequest,
  what: string,
  server: string,
  options: { total?: boolean } = {},
): void {
  const marked = req as ClientRequest & { [ARMED]?: boolean };
  if (marked[ARMED]) return;
  marked[ARMED] = true;
  const timers: NodeJS.Timeout[] = [];
  const fail = (phase: 'connect' | 'response' | 'total') => () => {
    // The request's 'error' is this error itself (Node's destroy(error)): kubeRequest and the
    // watch stream hand it on as it is, so a wait knows it by its class (src/kube/watch.ts).
    req.destroy(kubeDeadlineError(what, server, phase));
  };
  const clear = (): void => timers.forEach((t) => clearTimeout(t));
  // A watch streams for as long as the server keeps it (watchTimeoutSeconds): no total limit;
  // its idle limit is in src/kube/watch.ts.
  timers.push(setTimeout(options.total === false ? () => undefined : fail('total'), KUBE_DEADLINES.totalMs));
  const connectTimer = setTimeout(fail('connect'), KUBE_DEADLINES.connectMs);
  timers.push(connectTimer);
  const connected = (): void => {
    clearTimeout(connectTimer);
    timers.push(setTimeout(fail('response'), KUBE_DEADLINES.responseMs));
  };
  req.once('socket', (socket: Socket) => {
    // A kept-alive socket is connected already.
    if (req.reusedSocket || !socket.connecting) connected();
    else socket.once('connect', connected);
  });
  req.once('response', (response) => {
    // Headers are in: the response deadline is met; the total one still bounds the body.
    for (const t of timers.slice(1)) clearTimeout(t);
    response.once('end', clear);
    response.once('close', clear);
  });
  req.once('error', clear);
  let answered = false;
  req.once('response', () => {
    answered = true;
  });
  // Closed before an answer (aborted by the caller's signal): nothing more to time.
  req.once('close', () => {
    if (!answered) clear();
  });
}
