/**
 * How a command reaches a cluster's management API through Kubernetes, shared by `ctl auth token`
 * and `ctl upgrade` (CLI.md "Management API connection"): the kubeconfig and namespace, the
 * cluster resource (`--cluster`, else the only one in the namespace), the credentials in its
 * Secret, and the API URL (`--api-url`, else the service DNS name in a pod, else ctl's own
 * port-forward to pod port 9443).
 *
 * Only types are imported at the top: client-node is loaded on first use, so a command given
 * the URL and the credentials by flags or env never pays for it, and never touches Kubernetes.
 */

import type { CredentialSource } from '../api/credentials.js';
import { AuthError, CtlError, OperationError, UsageError } from '../errors.js';
import type { Io } from '../io/io.js';
import type { KubeClients, LoadedKubeConfig } from './client.js';
import type { PortForward } from './port-forward.js';
import type { ClusterReads, KubeObject } from './reads.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand } from './kube-target.js';

/** The management API's port inside the cluster's pods and behind its service. */
export const MANAGEMENT_API_PORT = 9443;

/** Where the cluster resource is: `--kubeconfig`, `--context`, `-n` and `--cluster`. */
export interface ClusterLocation {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  namespace?: string | undefined;
  cluster?: string | undefined;
}

export interface KubeAccessOptions {
  globals: Pick<ClusterLocation, 'kubeconfig' | 'context' | 'namespace'>;
  env: NodeJS.ProcessEnv;
  io: Io;
}

/** Kubernetes access for one command: the kubeconfig and context in use, clients, the namespace. */
export interface KubeAccess {
  loaded: LoadedKubeConfig;
  kube: KubeClients;
  reads: ClusterReads;
  /** `-n`, else the context's namespace, else `default`. */
  namespace: string;
}

/** Loads the kubeconfig (`--kubeconfig`, `--context`, KUBECONFIG, in-cluster) and builds the clients. */
export async function openKubeAccess(options: KubeAccessOptions): Promise<KubeAccess> {
  const { loadKubeConfig, createKubeClients, resolveNamespace } = await import('./client.js');
  const { createClusterReads } = await import('./reads.js');
  const loaded = await loadKubeConfig({
    kubeconfig: options.globals.kubeconfig,
    context: options.globals.context,
    env: options.env,
  });
  // The kubeconfig's credentials are secrets like the management API's: redacted wherever printed.
  const kube = await createKubeClients(loaded, (secret) => options.io.redactor.add(secret), options.io);
  const namespace = resolveNamespace(options.globals.namespace, loaded);
  options.io.debug(
    1,
    `kubernetes: context ${loaded.contextName}, namespace ${namespace}, server ${loaded.server}`,
  );
  return { loaded, kube, reads: createClusterReads(kube), namespace };
}

/** The cluster resource (RedisEnterpriseCluster) whose management API is wanted. */
export interface ManagedCluster {
  name: string;
  namespace: string;
  /** `spec.clusterCredentialSecretName`, else the cluster's name. */
  credentialSecretName: string;
  /** `spec.clusterCredentialSecretType`: `vault` keeps the credentials outside Kubernetes. */
  credentialSecretType: string | undefined;
}

/**
 * `--cluster <name>`, else the only cluster resource in the namespace. None, several, or not
 * the named one: a usage error (exit 2) that names the namespace and lists what is there.
 */
export async function findManagedCluster(
  access: Pick<KubeAccess, 'reads' | 'namespace'>,
  requested: string | undefined,
): Promise<ManagedCluster> {
  const { namespace } = access;
  const clusters = await listClusterResources(access.reads, namespace);
  const names = clusters.map((c) => c.metadata?.name ?? '').filter(Boolean);
  const listed = names.length > 0 ? `: ${names.join(', ')}` : '';
  let found: KubeObject | undefined;
  if (requested !== undefined) {
    found = clusters.find((c) => c.metadata?.name === requested);
    if (!found) {
      throw new UsageError(
        `--cluster ${requested}: no such cluster resource in namespace ${namespace}` +
          (names.length > 0 ? ` (found${listed})` : ''),
        {
          hint:
            names.length > 0
              ? `Pass --cluster with one of: ${names.join(', ')}; or -n NAMESPACE of ${requested}.`
              : `Pass -n NAMESPACE of ${requested} (${kubectlCommand(access.reads.selection ?? DEFAULT_KUBE_TARGET, 'get', 'rec', '-A')} lists them).`,
        },
      );
    }
  } else if (clusters.length === 1) {
    found = clusters[0];
  } else if (clusters.length === 0) {
    throw new UsageError(`no cluster resource (RedisEnterpriseCluster) in namespace ${namespace}`, {
      hint: `Pass -n NAMESPACE where the cluster runs (${kubectlCommand(access.reads.selection ?? DEFAULT_KUBE_TARGET, 'get', 'rec', '-A')} lists them).`,
    });
  } else {
    throw new UsageError(`${clusters.length} cluster resources in namespace ${namespace}${listed}`, {
      hint: `Pass --cluster with one of: ${names.join(', ')}.`,
    });
  }
  const object = found as KubeObject;
  const name = object.metadata?.name ?? '';
  const spec = asRecord(object.spec);
  const status = asRecord(object.status);
  return {
    name,
    namespace,
    credentialSecretName: credentialSecretNameOf(spec, status, name),
    credentialSecretType: asString(spec.clusterCredentialSecretType),
  };
}

async function listClusterResources(reads: ClusterReads, namespace: string): Promise<KubeObject[]> {
  const { CLUSTER_RESOURCE } = await import('./reads.js');
  const { describeKubeError } = await import('./errors.js');
  try {
    return await reads.listCustomObjects(CLUSTER_RESOURCE, namespace);
  } catch (error) {
    const info = describeKubeError(error);
    // No CRD: no operator, so no cluster resource either.
    if (info.code === 404) return [];
    if (info.code === 401) {
      throw new AuthError(`the Kubernetes API refused the credentials: ${info.message}`, {
        hint: 'Refresh the kubeconfig credentials (log in again), or pass --kubeconfig/--context.',
        cause: error,
      });
    }
    if (info.code === 403) {
      throw new AuthError(
        `not allowed to list the cluster resources in namespace ${namespace}: ${info.message}`,
        {
          hint: `Ask for read access (${kubectlCommand(reads.selection ?? DEFAULT_KUBE_TARGET, 'auth', 'can-i', 'list', 'redisenterpriseclusters.app.redislabs.com', '-n', namespace)}), or pass --cluster and --api-url.`,
          cause: error,
        },
      );
    }
    // A failure that says what to do itself (a credential plugin's, a deadline's) keeps its hint.
    const own = error instanceof CtlError ? error.hint : undefined;
    throw new OperationError(`cannot list the cluster resources in namespace ${namespace}: ${info.message}`, {
      hint:
        own ??
        `Check that the Kubernetes API is reachable: ${kubectlCommand(reads.selection ?? DEFAULT_KUBE_TARGET, 'get', 'rec', '-n', namespace)}.`,
      cause: error,
    });
  }
}

/** The keys `username` and `password` of the cluster's credentials Secret, decoded. */
export interface ClusterCredentials {
  /** `<namespace>/<name>` of the Secret, for messages. */
  secretName: string;
  username?: string | undefined;
  password?: string | undefined;
}

/**
 * Reads the cluster's credentials Secret. Not there, not readable, or missing a key: a usage
 * error (exit 2) or, when Kubernetes refuses, an auth error (exit 4); both say which Secret.
 */
export async function readClusterCredentials(
  access: Pick<KubeAccess, 'reads'>,
  cluster: ManagedCluster,
): Promise<ClusterCredentials> {
  const secretName = `${cluster.namespace}/${cluster.credentialSecretName}`;
  if (cluster.credentialSecretType === 'vault') {
    throw new UsageError(
      `cluster ${cluster.name} keeps its credentials in Vault, not in a Kubernetes Secret`,
      {
        hint: 'Give them to ctl: --username or CTL_USERNAME, and --password-stdin, --password-file or CTL_PASSWORD.',
      },
    );
  }
  const { describeKubeError } = await import('./errors.js');
  let secret: KubeObject | undefined;
  try {
    secret = await access.reads.getSecret(cluster.namespace, cluster.credentialSecretName);
  } catch (error) {
    const info = describeKubeError(error);
    const message = `cannot read Secret ${secretName}: ${info.message}`;
    if (info.code === 401 || info.code === 403) {
      throw new AuthError(message, {
        hint: `Ask for read access (${kubectlCommand(access.reads.selection ?? DEFAULT_KUBE_TARGET, 'auth', 'can-i', 'get', `secret/${cluster.credentialSecretName}`, '-n', cluster.namespace)}), or give ctl the credentials by flags or env.`,
        cause: error,
      });
    }
    throw new OperationError(message, {
      hint: 'Check that the Kubernetes API is reachable, or give ctl the credentials by flags or env.',
      cause: error,
    });
  }
  if (!secret) {
    throw new UsageError(`Secret ${secretName} (the credentials of cluster ${cluster.name}) does not exist`, {
      hint: `Check it with ${kubectlCommand(access.reads.selection ?? DEFAULT_KUBE_TARGET, 'get', 'secret', cluster.credentialSecretName, '-n', cluster.namespace)}.`,
    });
  }
  const decode = (value: string | undefined): string | undefined =>
    value === undefined || value === '' ? undefined : Buffer.from(value, 'base64').toString('utf8');
  return {
    secretName,
    username: decode(secret.data?.username),
    password: decode(secret.data?.password),
  };
}

/**
 * The cluster's Secret as the last credential source: `read` runs at most once, and only when
 * flags and env left the username or the password unknown (resolveCredentials asks in order).
 */
export function clusterSecretSource(read: () => Promise<ClusterCredentials | undefined>): CredentialSource {
  let name = "the cluster's Secret";
  let pending: Promise<ClusterCredentials | undefined> | undefined;
  const load = () =>
    (pending ??= read().then((credentials) => {
      if (credentials) name = `Secret ${credentials.secretName}`;
      return credentials;
    }));
  return {
    get name() {
      return name;
    },
    username: async () => (await load())?.username,
    password: async () => (await load())?.password,
  };
}

export interface ResolvedApiUrl {
  url: string;
  /** ctl's own port-forward, when it opened one: close it when done. */
  forward?: PortForward | undefined;
  /**
   * The name to verify the certificate against when the URL is not the name it was issued for:
   * through the port-forward the URL says 127.0.0.1, while the certificate names the service.
   */
  servername?: string | undefined;
  /**
   * The port-forward a person would run to reach the API the same way (`kubectl port-forward
   * svc/<cluster> 9443:9443 -n <ns>`, naming the kubeconfig and context ctl was given): for the
   * hint of a certificate that names none of the service's names.
   */
  portForwardCommand?: string | undefined;
}

/**
 * `--api-url`/CTL_API_URL (given here as `explicit`); else, in a pod, the cluster's service DNS
 * name; else a port-forward through the Kubernetes API to a ready pod's port 9443 (CLI.md).
 */
export async function resolveApiUrl(input: {
  explicit: string | undefined;
  access: Pick<KubeAccess, 'loaded' | 'kube' | 'namespace'>;
  clusterName: string;
  io: Io;
}): Promise<ResolvedApiUrl> {
  const { access, clusterName, io } = input;
  const { namespace } = access;
  if (input.explicit) return { url: input.explicit };
  if (access.loaded.inCluster) {
    const url = `https://${clusterName}.${namespace}.svc:${MANAGEMENT_API_PORT}`;
    io.debug(1, `management API: ${url} (the cluster's service, from inside a pod)`);
    return { url };
  }
  const { openPortForward } = await import('./port-forward.js');
  const { describeKubeError } = await import('./errors.js');
  let warned = false;
  const forward = await openPortForward(access.kube, namespace, clusterName, MANAGEMENT_API_PORT, (error) => {
    const message = `port-forward to ${namespace}/${clusterName} pod port ${MANAGEMENT_API_PORT} failed: ${describeKubeError(error).message}`;
    if (warned) io.debug(1, message);
    else io.warn(`${message} (pass --api-url to reach the management API another way)`);
    warned = true;
  });
  io.debug(
    1,
    `management API: port-forward ${forward.url} -> ${namespace}/${clusterName} pod port ${MANAGEMENT_API_PORT}`,
  );
  return {
    url: forward.url,
    forward,
    servername: `${clusterName}.${namespace}.svc`,
    portForwardCommand: kubectlCommand(
      access.kube.selection ?? DEFAULT_KUBE_TARGET,
      'port-forward',
      `svc/${clusterName}`,
      `${MANAGEMENT_API_PORT}:${MANAGEMENT_API_PORT}`,
      '-n',
      namespace,
    ),
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

/**
 * Kubernetes access and the cluster resource, each looked up on first use and at most once:
 * for a command that may not need Kubernetes at all (`ctl auth token` with --api-url and
 * credentials given).
 */
export interface LazyManagementAccess {
  kube(): Promise<KubeAccess>;
  cluster(): Promise<ManagedCluster>;
}

export function lazyManagementAccess(
  options: KubeAccessOptions & { globals: Pick<ClusterLocation, 'cluster'> },
): LazyManagementAccess {
  let kube: Promise<KubeAccess> | undefined;
  let cluster: Promise<ManagedCluster> | undefined;
  const access: LazyManagementAccess = {
    kube: () => (kube ??= openKubeAccess(options)),
    cluster: () =>
      (cluster ??= access.kube().then((opened) => findManagedCluster(opened, options.globals.cluster))),
  };
  return access;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/** Where the cluster's admin credentials are: spec, then status, else the Secret named after it. */
export function credentialSecretNameOf(
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
  clusterName: string,
): string {
  return (
    asString(spec.clusterCredentialSecretName) ?? asString(status.clusterCredentialSecretName) ?? clusterName
  );
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
