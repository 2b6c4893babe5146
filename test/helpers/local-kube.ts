import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';

/**
 * A plain-HTTP stand-in API server for the tests of src/kube/request.ts: `server` listens on a
 * free loopback port, and a kubeconfig in `dir` points at it with a token user. Returns the
 * kubeconfig's path. Its token is never sent (a plain-http server gets no credential of the
 * user, as from kubectl: src/kube/plain-http.ts): the tests using it are about the answers; a
 * test of what credentials arrive uses an https server (./tls-server.ts).
 */
export async function kubeconfigForLocalServer(server: Server, dir: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      '',
    ].join('\n'),
  );
  return kubeconfig;
}
