import type { ApiClient } from '../api/client.js';
import type { ApiConnection, ConnectionFlags, ConnectDependencies } from '../api/connect.js';
import type { GlobalOptions } from './options.js';
import type { Io } from '../io/io.js';
import type { KubeClients, LoadedKubeConfig } from '../kube/client.js';
import type { PortForward } from '../kube/port-forward.js';
import type { ClusterReads } from '../kube/reads.js';
import type { ManagementReaderFactory } from '../planning/snapshot.js';
import type { RemoteClusterReader } from '../planning/participants.js';

/** What `ctl upgrade` commands share: Kubernetes access, and a lazily opened management API. */
export interface UpgradeSession {
  loaded: LoadedKubeConfig;
  kube: KubeClients;
  reads: ClusterReads;
  context: string;
  namespace: string;
  /** `-n` as given (undefined: the context's namespace, else `default`, is `namespace`). */
  requestedNamespace: string | undefined;
  clusterName: string | undefined;
  /** The environment the command was given (the runtime's: src/main.ts), for what ctl starts. */
  env: NodeJS.ProcessEnv;
  /** For readSnapshot: opens the management API once the cluster and its Secret are known. */
  management: ManagementReaderFactory;
  /** For readSnapshot: reads an Active-Active participant's RS version through its own API. */
  remoteClusters: RemoteClusterReader;
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
  /**
   * What carries the management API's requests (src/api/http.ts): undici by default; `node-https`
   * for a command that makes a handful of requests, where loading undici costs more than they do.
   */
  transport?: ConnectDependencies['transport'];
}

export async function openSession(input: SessionInput): Promise<UpgradeSession> {
  const access = await import('../kube/management-access.js');
  const { loaded, kube, reads, namespace } = await access.openKubeAccess(input);

  let connection: ApiConnection | undefined;
  let client: ApiClient | undefined;
  let forward: PortForward | undefined;

  // Called once the snapshot has found the cluster, while its Secret is still being read: the
  // Secret's credentials are asked for only when flags and env leave one of them unknown.
  const management: ManagementReaderFactory = async ({ cluster, credentials }) => {
    const resolved = await access.resolveApiUrl({
      explicit: input.connection.apiUrl,
      access: { loaded, kube, namespace },
      clusterName: cluster.name,
      io: input.io,
    });
    forward = resolved.forward;
    const { connectApi } = await import('../api/connect.js');
    const { pinnedCaFile } = await import('../io/trusted-ca.js');
    // No --ca-file: the certificate `ctl auth trust` pinned for this cluster, if any.
    const caFile = pinnedCaFile(
      input.connection,
      { context: loaded.contextName, namespace: cluster.namespace, cluster: cluster.name },
      input.env,
    );
    if (caFile !== input.connection.caFile)
      input.io.debug(1, `TLS: trusting the certificate ctl auth trust pinned: ${caFile}`);
    connection = await connectApi(
      {
        ...input.connection,
        caFile,
        caFilePinned: caFile !== input.connection.caFile,
        apiUrl: resolved.url,
        servername: resolved.servername,
        portForwardCommand: resolved.portForwardCommand,
      },
      {
        io: input.io,
        // The local end of ctl's own port-forward must never go through an HTTPS_PROXY.
        env: forward ? access.withLoopbackNoProxy(input.env) : input.env,
        stdin: input.stdin,
        fallbackSources: [access.clusterSecretSource(credentials)],
        transport: input.transport,
      },
    );
    client = connection.client(input.ttl ?? 3600);
    return client;
  };

  const { remoteClusterReader } = await import('./remote-clusters.js');
  return {
    loaded,
    kube,
    reads,
    context: loaded.contextName,
    namespace,
    requestedNamespace: input.globals.namespace,
    clusterName: input.globals.cluster,
    env: input.env,
    management,
    remoteClusters: remoteClusterReader(input),
    api: () => client,
    close: async () => {
      await connection?.close();
      await forward?.close();
    },
  };
}
