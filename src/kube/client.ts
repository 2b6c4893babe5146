/**
 * Kubernetes access on @kubernetes/client-node: which kubeconfig and context, the context's
 * namespace, and the typed API clients built from it.
 *
 * client-node costs about 0.6 s to import (feasibility.md §6), so it is imported lazily here and
 * only type imports appear at the top: `ctl --help` must not pay for it.
 */

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import { UsageError } from '../errors.js';
import { checkFilePath, checkPathList } from '../io/paths.js';
import { withKeptAgent } from './agent.js';
import { withDeadlineErrors } from './deadlines.js';
import { createObjectClient, type ObjectClient } from './objects.js';

export type ClientNode = typeof import('@kubernetes/client-node');

/** Where a service account's namespace is mounted inside a pod. */
const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

export interface KubeConfigOptions {
  /** `--kubeconfig`; wins over `KUBECONFIG`. */
  kubeconfig?: string | undefined;
  /** `--context`; default: the kubeconfig's current context. */
  context?: string | undefined;
  /** Injected for tests; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export interface LoadedKubeConfig {
  config: k8s.KubeConfig;
  /** The context in use (`inCluster` inside a pod without a kubeconfig). */
  contextName: string;
  /** The context's namespace, or the pod's namespace in-cluster; undefined when unset. */
  namespace: string | undefined;
  /** The API server URL, for messages. */
  server: string;
  inCluster: boolean;
}

/**
 * Loads the kubeconfig the way kubectl does: `--kubeconfig`, else `KUBECONFIG` (every file,
 * merged), else in-cluster config when running in a pod, else `~/.kube/config`.
 */
export async function loadKubeConfig(options: KubeConfigOptions = {}): Promise<LoadedKubeConfig> {
  const env = options.env ?? process.env;
  const { KubeConfig } = await importClientNode();
  const config = new KubeConfig();

  const files = kubeconfigFiles(options.kubeconfig, env);
  if (files.length === 0 && env.KUBERNETES_SERVICE_HOST) {
    if (options.context) {
      throw new UsageError(
        `--context ${options.context}: there is no kubeconfig, only the in-cluster config`,
        {
          hint: 'Pass --kubeconfig <file> with that context, or drop --context inside a pod.',
        },
      );
    }
    config.loadFromCluster();
    return {
      config,
      contextName: config.getCurrentContext(),
      namespace: readInClusterNamespace(),
      server: config.getCurrentCluster()?.server ?? '',
      inCluster: true,
    };
  }

  if (files.length === 0) {
    const fallback = join(env.HOME ?? homedir(), '.kube', 'config');
    if (!existsSync(fallback)) {
      throw new UsageError('no kubeconfig found', {
        hint: 'Pass --kubeconfig <file>, set KUBECONFIG, or run inside a pod with a service account.',
      });
    }
    files.push(fallback);
  }
  loadFiles(config, files, () => new KubeConfig());
  return selectContext(config, options.context);
}

function kubeconfigFiles(flag: string | undefined, env: NodeJS.ProcessEnv): string[] {
  if (flag) {
    if (!existsSync(flag)) {
      throw new UsageError(`--kubeconfig ${flag}: no such file`, {
        hint: 'Check the path of the kubeconfig file.',
      });
    }
    // A fleet file's kubeconfig arrives here without passing the command line's check.
    checkFilePath('--kubeconfig', flag, 'input');
    return [flag];
  }
  // KUBECONFIG may list several files; kubectl skips the ones that do not exist. None may be a
  // FIFO or a device: reading it would block (src/io/paths.ts).
  checkPathList('KUBECONFIG', env.KUBECONFIG, delimiter);
  return (env.KUBECONFIG ?? '').split(delimiter).filter((file) => file !== '' && existsSync(file));
}

function loadFiles(config: k8s.KubeConfig, files: string[], newConfig: () => k8s.KubeConfig): void {
  const [first, ...rest] = files;
  if (first === undefined) return;
  try {
    config.loadFromFile(first);
    for (const file of rest) {
      const other = newConfig();
      other.loadFromFile(file);
      mergeFirstWins(config, other);
    }
  } catch (error) {
    throw new UsageError(`cannot read the kubeconfig: ${(error as Error).message}`, {
      hint: 'Check that the file is a valid kubeconfig (kubectl config view --kubeconfig <file>).',
      cause: error,
    });
  }
}

/**
 * kubectl's merge of KUBECONFIG files: the first file to define a name (or the current context)
 * wins. client-node's mergeConfig throws on a duplicate name instead.
 */
function mergeFirstWins(config: k8s.KubeConfig, other: k8s.KubeConfig): void {
  const names = (items: { name: string }[]) => new Set(items.map((item) => item.name));
  const clusters = names(config.clusters);
  const users = names(config.users);
  const contexts = names(config.contexts);
  for (const cluster of other.clusters) if (!clusters.has(cluster.name)) config.addCluster(cluster);
  for (const user of other.users) if (!users.has(user.name)) config.addUser(user);
  for (const context of other.contexts) if (!contexts.has(context.name)) config.addContext(context);
  if (!config.currentContext && other.currentContext) config.setCurrentContext(other.currentContext);
}

function selectContext(config: k8s.KubeConfig, context: string | undefined): LoadedKubeConfig {
  if (context) {
    if (!config.getContextObject(context)) {
      const known = config.getContexts().map((c) => c.name);
      throw new UsageError(`--context ${context}: no such context in the kubeconfig`, {
        hint:
          known.length > 0 ? `Known contexts: ${known.join(', ')}.` : 'The kubeconfig defines no context.',
      });
    }
    config.setCurrentContext(context);
  }
  const contextName = config.getCurrentContext();
  const contextObject = contextName ? config.getContextObject(contextName) : null;
  if (!contextObject) {
    throw new UsageError('the kubeconfig has no current context', {
      hint: 'Pass --context <name>, or run kubectl config use-context <name>.',
    });
  }
  const cluster = config.getCurrentCluster();
  if (!cluster) {
    throw new UsageError(`context ${contextName} names no cluster known to the kubeconfig`, {
      hint: 'Fix the context with kubectl config set-context.',
    });
  }
  return {
    config,
    contextName,
    namespace: contextObject.namespace || undefined,
    server: cluster.server,
    inCluster: false,
  };
}

function readInClusterNamespace(): string | undefined {
  try {
    return readFileSync(IN_CLUSTER_NAMESPACE_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** CLI.md `-n`: the flag, else the context's namespace, else `default`. */
export function resolveNamespace(
  flag: string | undefined,
  loaded: Pick<LoadedKubeConfig, 'namespace'>,
): string {
  return flag || loaded.namespace || 'default';
}

/** The typed clients ctl uses, plus the module itself for PatchStrategy and setHeaderOptions. */
export interface KubeClients {
  k8s: ClientNode;
  config: k8s.KubeConfig;
  contextName: string;
  namespace: string | undefined;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  custom: k8s.CustomObjectsApi;
  admission: k8s.AdmissionregistrationV1Api;
  apiextensions: k8s.ApiextensionsV1Api;
  authorization: k8s.AuthorizationV1Api;
  apis: k8s.ApisApi;
  version: k8s.VersionApi;
  /** Any kind, as plain JSON both ways (objects.ts): what src/kube/write.ts reads and writes with. */
  objects: ObjectClient;
}

export async function createKubeClients(loaded: LoadedKubeConfig): Promise<KubeClients> {
  const mod = await importClientNode();
  // Kept connections with the Kubernetes deadlines (src/kube/agent.ts, deadlines.ts) for every
  // client made from this config, the typed ones included; their errors keep the deadline's hint.
  const config = withKeptAgent(loaded.config);
  const typed = <T extends object>(api: new (...args: never[]) => T): T =>
    withDeadlineErrors(config.makeApiClient(api as never) as T);
  return {
    k8s: mod,
    config,
    contextName: loaded.contextName,
    namespace: loaded.namespace,
    core: typed(mod.CoreV1Api),
    apps: typed(mod.AppsV1Api),
    custom: typed(mod.CustomObjectsApi),
    admission: typed(mod.AdmissionregistrationV1Api),
    apiextensions: typed(mod.ApiextensionsV1Api),
    authorization: typed(mod.AuthorizationV1Api),
    apis: typed(mod.ApisApi),
    version: typed(mod.VersionApi),
    // As KubernetesObjectApi: a namespaced object without a namespace goes to the context's.
    objects: createObjectClient(config, loaded.namespace ?? 'default'),
  };
}

/**
 * Options for a JSON merge patch (RFC 7386). client-node's patch methods otherwise send
 * `application/json-patch+json`, the first type the API advertises, and a merge-style body then
 * fails with 400 (feasibility.md §3, surprise 2). Pass the result as the second argument:
 * `clients.custom.patchNamespacedCustomObject({...}, mergePatchOptions(clients.k8s))`.
 */
export function mergePatchOptions(mod: ClientNode): ReturnType<ClientNode['setHeaderOptions']> {
  return mod.setHeaderOptions('Content-Type', mod.PatchStrategy.MergePatch);
}

let clientNodePromise: Promise<ClientNode> | undefined;

export function importClientNode(): Promise<ClientNode> {
  clientNodePromise ??= import('@kubernetes/client-node');
  return clientNodePromise;
}
