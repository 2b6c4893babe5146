import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { importPortForward, importWatch, type KubeClients } from '../../src/kube/client.js';

/** The paths everyKindOfRequest asks for, in order (a list, a watch, the port-forward's upgrade). */
export const EVERY_KIND_PATHS = [
  '/api/v1/namespaces',
  '/api/v1/namespaces',
  '/api/v1/namespaces/ns/pods/pod-0/portforward',
];

/**
 * A request, a watch and a port-forward's upgrade from `kube`: the three ways ctl builds a
 * request to the Kubernetes API (src/kube/request.ts, bounded-watch.ts, client-node's
 * PortForward). The watch ends with the answer; the port-forward's failure (a test server drops
 * the upgrade) is no concern here, only the headers it sent.
 */
export async function everyKindOfRequest(kube: KubeClients): Promise<void> {
  await kube.rest.get('/api/v1/namespaces');
  const { BoundedWatch } = await importWatch();
  await new Promise<void>((resolve, reject) => {
    void new BoundedWatch(kube.config)
      .watch(
        '/api/v1/namespaces',
        {},
        () => {},
        (error) => (error ? reject(error as Error) : resolve()),
      )
      .catch(reject);
  });
  const { PortForward } = await importPortForward();
  await new PortForward(kube.config)
    .portForward('ns', 'pod-0', [9443], new PassThrough(), null, new PassThrough())
    .then(
      () => undefined,
      () => undefined,
    );
}

/** An exec credential plugin in `dir` that writes `mark` when it runs and gives the token `from-plugin`. */
export interface MarkingPlugin {
  plugin: string;
  mark: string;
  /** The kubeconfig user's `exec` that runs it. */
  exec: { apiVersion: string; command: string; interactiveMode: string };
}

export function markingPlugin(dir: string): MarkingPlugin {
  const mark = join(dir, 'plugin-ran');
  const plugin = join(dir, 'plugin');
  writeFileSync(
    plugin,
    `#!/bin/sh\n: > "${mark}"\nprintf '%s' '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}'\n`,
    { mode: 0o700 },
  );
  return {
    plugin,
    mark,
    exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' },
  };
}
