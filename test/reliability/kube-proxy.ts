/**
 * An https proxy in front of a bed's simulated Kubernetes API (https, since ctl sends the
 * kubeconfig's token over TLS only, as kubectl: src/kube/plain-http.ts), for tests of answers the
 * simulator does not give: `answer` may answer a request itself (returns true), everything else
 * goes through to the simulator. Returns a kubeconfig that points at the proxy (same context
 * name, user and token as the bed's).
 */

import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { listenTls } from '../helpers/tls-server.js';
import type { Bed } from './support.js';

export interface KubeProxy {
  kubeconfig: string;
  /** The bearer token the kubeconfig sends. */
  token: string;
  close(): Promise<void>;
}

interface Kubeconfig {
  clusters: { cluster: Record<string, unknown> }[];
  users: { user: { token?: string } }[];
}

export async function startKubeProxy(
  bed: Bed,
  answer: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<KubeProxy> {
  const kubeconfig = parse(readFileSync(bed.env.KUBECONFIG!, 'utf8')) as Kubeconfig;
  const cluster = kubeconfig.clusters[0]!.cluster;
  const upstream = new URL(String(cluster.server));
  const ca = Buffer.from(String(cluster['certificate-authority-data']), 'base64');
  const { server: proxy, url } = await listenTls((req, res) => {
    if (answer(req, res)) return;
    const forward = httpsRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
        ca,
      },
      (upstreamAnswer) => {
        res.writeHead(upstreamAnswer.statusCode ?? 502, upstreamAnswer.headers);
        upstreamAnswer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  delete cluster['certificate-authority-data'];
  cluster.server = url;
  cluster['insecure-skip-tls-verify'] = true;
  const file = path.join(bed.dir, 'kubeconfig-proxied');
  writeFileSync(file, stringify(kubeconfig), { mode: 0o600 });
  return {
    kubeconfig: file,
    token: kubeconfig.users[0]?.user.token ?? '',
    close: async () => {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

/**
 * A kubeconfig beside `proxy`'s (in `dir`) whose user takes its credential from an exec plugin:
 * a shell script that runs `before` first (lines that may fail, hang or count its runs), then
 * prints the proxy's token as an ExecCredential. `env` is the plugin's `env` in the kubeconfig.
 */
export function kubeconfigWithPlugin(
  dir: string,
  proxy: Pick<KubeProxy, 'kubeconfig' | 'token'>,
  before: string[],
  env?: { name: string; value: string }[],
): string {
  const config = parse(readFileSync(proxy.kubeconfig, 'utf8')) as { users: { user: object }[] };
  const plugin = path.join(dir, 'plugin');
  writeFileSync(
    plugin,
    [
      '#!/bin/sh',
      ...before,
      `printf '%s' '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"${proxy.token}"}}'`,
      '',
    ].join('\n'),
    { mode: 0o700 },
  );
  config.users[0]!.user = {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      command: plugin,
      interactiveMode: 'Never',
      ...(env ? { env } : {}),
    },
  };
  const kubeconfig = path.join(dir, 'kubeconfig-plugin');
  writeFileSync(kubeconfig, stringify(config), { mode: 0o600 });
  return kubeconfig;
}
