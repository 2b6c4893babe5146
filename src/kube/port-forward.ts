import { createServer, type Server, type Socket } from 'node:net';
import { OperationError } from '../errors.js';
import { importPortForward, type KubeClients } from './client.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand } from './kube-target.js';
import { isPodReady } from './pod-ready.js';

export interface PortForward {
  /** `https://127.0.0.1:<local port>` */
  url: string;
  close(): Promise<void>;
}

/**
 * A local port that reaches port `remotePort` of a ready pod of the cluster, through the
 * Kubernetes API (client-node's WebSocket port-forward), so nobody has to keep
 * `kubectl port-forward` running in another terminal. The pod is chosen per connection: during a
 * rolling upgrade pods come and go, and a new connection goes to one that is ready now.
 */
export async function openPortForward(
  kube: KubeClients,
  namespace: string,
  cluster: string,
  remotePort = 9443,
  /** Told why a connection could not be forwarded (no ready pod, pods/portforward forbidden). */
  onError: (error: Error) => void = () => {},
): Promise<PortForward> {
  const { PortForward } = await importPortForward();
  const forward = new PortForward(kube.config);
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    pickReadyPod(kube, namespace, cluster)
      .then((pod) => forward.portForward(namespace, pod, [remotePort], socket, null, socket))
      .catch((error: unknown) => {
        // Without this the HTTP client would only see a reset connection.
        onError(error instanceof Error ? error : new Error(String(error)));
        socket.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `https://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The fields of a pod read here (its readiness: ./pod-ready.ts). */
interface PodView {
  metadata?: { name?: string; deletionTimestamp?: string };
}

/** The ready pod with the lowest ordinal: a rolling upgrade replaces pods in reverse ordinal order, so it goes last. */
async function pickReadyPod(kube: KubeClients, namespace: string, cluster: string): Promise<string> {
  // Through kubeRequest (src/kube/request.ts): with its deadlines, so a silent API server ends here.
  const pods = (await kube.objects.list('v1', 'Pod', namespace)) as PodView[];
  const pattern = new RegExp(`^${cluster.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d+)$`);
  const ready = pods
    .filter((pod) => pattern.test(pod.metadata?.name ?? ''))
    .filter((pod) => !pod.metadata?.deletionTimestamp)
    .filter(isPodReady)
    .map((pod) => pod.metadata!.name!)
    .sort((a, b) => Number(pattern.exec(a)![1]) - Number(pattern.exec(b)![1]));
  const pod = ready.at(0);
  if (!pod) {
    throw new OperationError(
      `no ready pod of cluster ${cluster} in namespace ${namespace} to reach port 9443`,
      {
        hint: `Pass --api-url (e.g. https://localhost:9443 after ${kubectlCommand(kube.selection ?? DEFAULT_KUBE_TARGET, 'port-forward', `svc/${cluster}`, '9443:9443', '-n', namespace)}) when the pods are not ready.`,
      },
    );
  }
  return pod;
}
