import type { ApiClient } from '../api/client.js';
import type { ApiConnection } from '../api/connect.js';
import type { ConnectionFlags } from '../cli/connection.js';
import type { GlobalOptions } from '../cli/globals.js';
import type { Io } from '../io/io.js';
import type { KubeClients, LoadedKubeConfig } from '../kube/client.js';
import type { PortForward } from '../kube/port-forward.js';
import type { ClusterReads } from '../kube/reads.js';
import type { ApiCredentials, ClusterSnapshot, ManagementReaderFactory } from './snapshot.js';

/** What `ctl upgrade` commands share: Kubernetes access, and a lazily opened management API. */
export interface UpgradeSession {
  loaded: LoadedKubeConfig;
  kube: KubeClients;
  reads: ClusterReads;
  context: string;
  namespace: string;
  clusterName: string | undefined;
  /** For readSnapshot: opens the management API once the cluster and its Secret are known. */
  management: ManagementReaderFactory;
  /** The API client opened by `management`, if it was opened. */
  api(): ApiClient | undefined;
  close(): Promise<void>;
}

export interface SessionInput {
  globals: GlobalOptions;
  connection: ConnectionFlags;
  io: Io;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Token lifetime for a long run; the client renews it anyway. */
  ttl?: number;
}

export async function openSession(input: SessionInput): Promise<UpgradeSession> {
  const { loadKubeConfig, createKubeClients, resolveNamespace } = await import('../kube/client.js');
  const { createClusterReads } = await import('../kube/reads.js');
  const loaded = await loadKubeConfig({
    kubeconfig: input.globals.kubeconfig,
    context: input.globals.context,
    env: input.env,
  });
  const kube = await createKubeClients(loaded);
  const namespace = resolveNamespace(input.globals.namespace, loaded);
  input.io.debug(
    1,
    `kubernetes: context ${loaded.contextName}, namespace ${namespace}, server ${loaded.server}`,
  );

  let connection: ApiConnection | undefined;
  let client: ApiClient | undefined;
  let forward: PortForward | undefined;

  const management: ManagementReaderFactory = async ({ cluster, credentials }) => {
    const apiUrl = await resolveApiUrl(input, loaded, kube, namespace, cluster, (f) => {
      forward = f;
    });
    const { connectApi } = await import('../api/connect.js');
    const { valueSource } = await import('../api/credentials.js');
    connection = await connectApi(
      { ...input.connection, apiUrl },
      {
        io: input.io,
        // The local end of ctl's own port-forward must never go through an HTTPS_PROXY.
        env: forward ? withLoopbackNoProxy(input.env) : input.env,
        stdin: input.stdin,
        fallbackSources: credentials ? [secretSource(credentials, valueSource)] : [],
      },
    );
    client = connection.client(input.ttl ?? 3600);
    return client;
  };

  return {
    loaded,
    kube,
    reads: createClusterReads(kube),
    context: loaded.contextName,
    namespace,
    clusterName: input.globals.cluster,
    management,
    api: () => client,
    close: async () => {
      await connection?.close();
      await forward?.close();
    },
  };
}

/**
 * NO_PROXY plus 127.0.0.1: CI machines often set HTTPS_PROXY, and the proxy cannot reach this
 * machine's loopback port where the port-forward listens. The Kubernetes API itself is reached
 * as the kubeconfig says (client-node ignores these variables).
 */
export function withLoopbackNoProxy(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const current = env.no_proxy ?? env.NO_PROXY ?? '';
  const entries = current
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.includes('127.0.0.1') || entries.includes('*')) return env;
  const value = [...entries, '127.0.0.1'].join(',');
  return { ...env, no_proxy: value, NO_PROXY: value };
}

function secretSource(
  credentials: ApiCredentials,
  valueSource: typeof import('../api/credentials.js').valueSource,
): ReturnType<typeof valueSource> {
  return valueSource(`Secret ${credentials.secretName}`, {
    username: credentials.username,
    password: credentials.password,
  });
}

/**
 * `--api-url`/CTL_API_URL; else, in a pod, the cluster's service DNS name; else a port-forward
 * through the Kubernetes API to a ready pod's port 9443 (CLI.md).
 */
async function resolveApiUrl(
  input: SessionInput,
  loaded: LoadedKubeConfig,
  kube: KubeClients,
  namespace: string,
  cluster: ClusterSnapshot,
  keep: (forward: PortForward) => void,
): Promise<string> {
  if (input.connection.apiUrl) return input.connection.apiUrl;
  if (loaded.inCluster) return `https://${cluster.name}.${namespace}.svc:9443`;
  const { openPortForward } = await import('../kube/port-forward.js');
  const kubeErrors = await import('../kube/errors.js');
  let warned = false;
  const forward = await openPortForward(kube, namespace, cluster.name, 9443, (error) => {
    const { describeKubeError } = kubeErrors;
    const message = `port-forward to ${namespace}/${cluster.name} pod port 9443 failed: ${describeKubeError(error).message}`;
    if (warned) input.io.debug(1, message);
    else input.io.warn(`${message} (pass --api-url to reach the management API another way)`);
    warned = true;
  });
  keep(forward);
  input.io.debug(
    1,
    `management API: port-forward ${forward.url} -> ${namespace}/${cluster.name} pod port 9443`,
  );
  return forward.url;
}
