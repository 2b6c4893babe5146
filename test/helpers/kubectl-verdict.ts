/**
 * What the real kubectl does with a kubeconfig, for the tests that hold ctl's reading of a
 * kubeconfig to kubectl's: each proven kubectl (1.28, 1.32, 1.35, test/helpers/tools.ts; a
 * missing one fails the test with its install hint, never skips it) runs `kubectl get pods`
 * against a loopback listener that the kubeconfig names (plain HTTP), which counts the
 * connections it gets and answers each `404 Not Found` at once: kubectl gives up at once (a
 * connection closed without an answer it would try again for as long as its timeout allows). A
 * kubectl that connected went on to its requests: it did not refuse the kubeconfig. stdin is
 * /dev/null, as in CI: a prompt reads end of file.
 */

import { createServer, type Server, type Socket } from 'node:net';
import { KUBECTL_MINORS, type KubectlMinor, kubectlPath, makeToolSandbox, runTool } from './tools.js';

export interface KubectlVerdict {
  minor: KubectlMinor;
  code: number;
  /** stdout then stderr: a prompt goes to stdout, the error to stderr. */
  output: string;
  /** Connections the listener got while this kubectl ran. */
  connections: number;
}

/** A loopback port that counts connections and answers each 404; `url` is its http URL. */
export interface Listener {
  url: string;
  connections(): number;
  close(): Promise<void>;
}

export async function listen(): Promise<Listener> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface VerdictOptions {
  /** `--context`; default: the kubeconfig's current context. */
  context?: string;
  /** Words before kubectl's path (test/e2e/kubeconfig-unreadable.test.ts: setpriv ...). */
  wrapper?: string[];
}

/**
 * Each kubectl's verdict on `kubeconfig`, one after another so that each one's connections are
 * its own.
 */
export async function kubectlVerdicts(
  kubeconfig: string,
  listener: Listener,
  { context, wrapper = [] }: VerdictOptions = {},
): Promise<KubectlVerdict[]> {
  const sandbox = makeToolSandbox('ctl-kubectl-verdict-');
  try {
    const verdicts: KubectlVerdict[] = [];
    for (const minor of KUBECTL_MINORS) {
      const before = listener.connections();
      const [bin, ...words] = [...wrapper, kubectlPath(minor)];
      const result = await runTool(
        bin as string,
        [
          ...words,
          '--kubeconfig',
          kubeconfig,
          ...(context ? ['--context', context] : []),
          'get',
          'pods',
          '--request-timeout=10s',
        ],
        { env: sandbox.env, timeoutMs: 60_000 },
      );
      verdicts.push({
        minor,
        code: result.code,
        output: `${result.stdout}${result.stderr}`,
        connections: listener.connections() - before,
      });
    }
    return verdicts;
  } finally {
    sandbox.cleanup();
  }
}

/** `kubectl 1.<minor>` and its output, for an assertion's message. */
export function described(verdict: KubectlVerdict): string {
  return `kubectl 1.${verdict.minor} exited ${verdict.code} after ${verdict.connections} connection(s):\n${verdict.output}`;
}

/**
 * kubectl's `error: <a>`, or `Error in configuration:` then `* <a>` lines, as ctl quotes it after
 * `kubectl says: `: what follows `error: `, no white space at a line's end.
 */
export function kubectlSays(verdict: KubectlVerdict): string {
  return verdict.output
    .trimEnd()
    .replace(/^error: /, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}
