/**
 * Kubernetes access on @kubernetes/client-node: which kubeconfig and context, the context's
 * namespace, and the clients built from it.
 *
 * Only the modules of client-node that ctl calls are imported (KubeConfig, Watch, PortForward),
 * lazily, never its index: the index loads the generated models and typed APIs, a 14 MB chunk
 * of the bundle that cost every command about as much CPU as the rest of ctl
 * (docs/performance.md). Only type imports appear at the top: `ctl --help` must not pay for it.
 */

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import { UsageError } from '../errors.js';
import { readBoundedFileSync } from '../io/bounded-file.js';
import { checkFilePath, checkPathList, INPUT_FILE_LIMITS, inputFileError } from '../io/paths.js';
import { oneLine } from '../io/safe-text.js';
import { shellQuote } from '../io/shell-words.js';
import { isYamlError, yamlProblem } from '../io/yaml-from-outside.js';
import { registerServerTarget } from './deadlines.js';
import { authInfoOf, usableRefusal } from './auth-info.js';
import { clusterInfoProblems } from './cluster-info.js';
import { boundExecPlugin, pluginSecrets } from './exec-plugin.js';
import { impersonateAsKubectl, impersonationHeaders } from './impersonation.js';
import { openProblem } from './kubeconfig-file-open.js';
import { socksAsKubectl } from './proxy-url.js';
import { authProviderRefusal, refuseAuthProviders } from './refused-auth-providers.js';
import { serverForMessages, serverSecrets } from './server-url.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand, selectedKubeTarget, type KubeTarget } from './kube-target.js';
import { createObjectClient, type ObjectClient } from './objects.js';
import { createKubeRest, type KubeRest } from './rest.js';
import { requestConfig } from './request-config.js';
import { authProviderToken, boundRequestFiles, IN_CLUSTER_ROLES, KUBECONFIG_ROLES } from './request-files.js';
import { tokenFileError, tokenFileOf } from './token-file.js';

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
  /**
   * The API server URL for messages: a `user:password@` in it (Node and Go send it as Basic
   * auth) shown as `***@`, as every location ctl names (serverForMessages).
   */
  server: string;
  inCluster: boolean;
  /** The kubeconfig and context the person chose, as the commands ctl prints name them. */
  selection: KubeTarget;
}

/**
 * Loads the kubeconfig the way kubectl does: `--kubeconfig`, else `KUBECONFIG` (every file,
 * merged), else in-cluster config when running in a pod, else `~/.kube/config`.
 */
export async function loadKubeConfig(options: KubeConfigOptions = {}): Promise<LoadedKubeConfig> {
  const env = options.env ?? process.env;
  const { KubeConfig } = await importKubeConfig();
  const config = new KubeConfig();

  const files = kubeconfigFiles(options.kubeconfig, env);
  if (files.length === 0 && env.KUBERNETES_SERVICE_HOST) {
    if (options.context) {
      throw new UsageError(
        `--context ${options.context}: there is no kubeconfig, only the in-cluster config`,
        {
          hint: 'Pass --kubeconfig FILE with that context, or drop --context inside a pod.',
        },
      );
    }
    config.loadFromCluster();
    // Its CA and token, read by client-node for each request, read within their bounds.
    boundRequestFiles(config, IN_CLUSTER_ROLES);
    return {
      config,
      contextName: config.getCurrentContext(),
      namespace: readInClusterNamespace(),
      server: serverForMessages(config.getCurrentCluster()?.server ?? ''),
      inCluster: true,
      // kubectl in the same pod uses the same in-cluster config: nothing to name.
      selection: DEFAULT_KUBE_TARGET,
    };
  }

  // Chosen by flag or KUBECONFIG (checked before anything is read), else the default file.
  const selection = selectedKubeTarget(options.context, files);
  // An exec credential plugin runs within a deadline and an output limit (exec-plugin.ts); its
  // hints name the kubeconfig and context chosen.
  boundExecPlugin(config, selection);
  // The auth providers kubectl refuses, or that client-node would serve otherwise than kubectl
  // (gcp, azure, a command in the provider's config, a name kubectl does not know), never reach
  // client-node's own authenticators (refused-auth-providers.ts).
  refuseAuthProviders(config);
  // The files client-node reads for each request (CA, client certificate and key, an auth
  // provider's token file): read within their bounds, never waited on (request-files.ts).
  boundRequestFiles(config);
  // The user's impersonation sent whole, as kubectl sends it (impersonation.ts).
  impersonateAsKubectl(config);
  // A socks5 proxy-url resolves the server's name through the proxy, as kubectl's does.
  socksAsKubectl(config);
  if (files.length === 0) {
    const fallback = join(env.HOME ?? homedir(), '.kube', 'config');
    if (!existsSync(fallback)) {
      throw new UsageError(`no kubeconfig found: KUBECONFIG is not set and ${fallback} does not exist`, {
        // A first-time user may have no cluster at hand yet: the simulated one needs none.
        hint:
          'Pass --kubeconfig FILE, set KUBECONFIG, or run inside a pod with a service account. ' +
          'To try ctl without a cluster: ctl demo, or ctl sim up (docs/quickstart.md).',
      });
    }
    // The default file is bounded like a chosen one (a FIFO or a device there would block too).
    checkFilePath('the kubeconfig', fallback, 'input', INPUT_FILE_LIMITS.kubeconfig);
    files.push(fallback);
  }
  // client-node's parser and readers, less their read of every user's token-file (token-file.ts).
  const { loadKubeconfigText } = await import('./kubeconfig-text.js');
  loadFiles(config, files, () => new KubeConfig(), loadKubeconfigText);
  return { ...selectContext(config, options.context, selection), selection };
}

/**
 * The KubeTarget of `--kubeconfig`/KUBECONFIG and `--context` without reading any kubeconfig:
 * for the hints of a command that reads no cluster yet, or none at all (`ctl upgrade status
 * --state <file>`). The default target (a hint then names neither) when they name nothing
 * usable: that command never needed them.
 */
export function chosenKubeTarget(options: KubeConfigOptions = {}): KubeTarget {
  try {
    return selectedKubeTarget(
      options.context,
      kubeconfigFiles(options.kubeconfig, options.env ?? process.env),
    );
  } catch {
    return DEFAULT_KUBE_TARGET;
  }
}

function kubeconfigFiles(flag: string | undefined, env: NodeJS.ProcessEnv): string[] {
  if (flag) {
    if (!existsSync(flag)) {
      throw new UsageError(`--kubeconfig ${flag}: no such file`, {
        hint: 'Check the path of the kubeconfig file.',
      });
    }
    // A fleet file's kubeconfig arrives here without passing the command line's check.
    checkFilePath('--kubeconfig', flag, 'input', INPUT_FILE_LIMITS.kubeconfig);
    return [flag];
  }
  // KUBECONFIG may list several files; kubectl skips the ones that do not exist. None may be a
  // FIFO or a device: reading it would block (src/io/paths.ts).
  checkPathList('KUBECONFIG', env.KUBECONFIG, delimiter, INPUT_FILE_LIMITS.kubeconfig);
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter((file) => file !== '');
  const files = listed.filter((file) => existsSync(file));
  // Set, KUBECONFIG is the whole list: kubectl then never reads ~/.kube/config (nor the pod's
  // config), so a typo here must not send ctl to the cluster that file names.
  if (listed.length > 0 && files.length === 0) {
    throw new UsageError(`KUBECONFIG=${env.KUBECONFIG}: no such file`, {
      hint: 'Fix KUBECONFIG (or unset it to use ~/.kube/config), or pass --kubeconfig FILE.',
    });
  }
  return files;
}

type LoadText = (config: k8s.KubeConfig, text: string, file: string) => void;

function loadFiles(
  config: k8s.KubeConfig,
  files: string[],
  newConfig: () => k8s.KubeConfig,
  loadText: LoadText,
): void {
  const [first, ...rest] = files;
  if (first === undefined) return;
  // KUBECONFIG may list several: the message names the one that failed.
  let reading = first;
  try {
    loadFile(config, first, loadText);
    for (const file of rest) {
      reading = file;
      const other = newConfig();
      loadFile(other, file, loadText);
      mergeFirstWins(config, other);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read the kubeconfig ${reading}: ${kubeconfigProblem(error)}`, {
      hint: `Check that the file is a valid kubeconfig (kubectl config view --kubeconfig ${shellQuote(reading)}).`,
      cause: error,
    });
  }
}

/**
 * What is wrong with a kubeconfig, without its text. js-yaml's message (client-node's reader)
 * quotes the lines around the fault, and some of its reasons a tag or an alias name; a
 * kubeconfig's lines are its secrets (`token:`, `client-key-data:`, `password:`): a YAML fault is
 * told by place and in ctl's words (src/io/yaml-from-outside.ts), as kubectl's own `error loading
 * config file ... yaml: line 16: ...` does.
 */
export function kubeconfigProblem(error: unknown): string {
  if (isYamlError(error)) return yamlProblem(error);
  // Any other message (client-node's `users[0].name is missing`, a read error): its first line
  // only, where no quoted block of the file can follow.
  const message = error instanceof Error ? error.message : String(error);
  return oneLine(message.split('\n')[0] ?? '');
}

/**
 * client-node's loadFromFile, but the file read within its bound and without waiting on it
 * (src/io/bounded-file.ts): each was checked when it was chosen, and may have changed since.
 * The paths it names (certificates, key, token-file) are then taken from its folder.
 */
function loadFile(config: k8s.KubeConfig, file: string, loadText: LoadText): void {
  let text: string;
  try {
    text = readBoundedFileSync(file, INPUT_FILE_LIMITS.kubeconfig).toString('utf8');
  } catch (error) {
    throw inputFileError('the kubeconfig', error);
  }
  loadText(config, text, file);
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

function selectContext(
  config: k8s.KubeConfig,
  context: string | undefined,
  selection: KubeTarget,
): Omit<LoadedKubeConfig, 'selection'> {
  // kubectl config edits the kubeconfig ctl read, not the default one (src/kube/kube-target.ts).
  const kubeconfigOnly: KubeTarget = { kubeconfigs: selection.kubeconfigs };
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
      hint: `Pass --context CONTEXT_NAME, or run ${kubectlCommand(kubeconfigOnly, 'config', 'use-context', 'CONTEXT_NAME')}.`,
    });
  }
  const cluster = config.getCurrentCluster();
  if (!cluster) {
    throw new UsageError(`context ${contextName} names no cluster known to the kubeconfig`, {
      hint: `Fix the context with ${kubectlCommand(kubeconfigOnly, 'config', 'set-context', contextName, '--cluster', 'CLUSTER_NAME')}.`,
    });
  }
  // The files the context names, which client-node reads on every request (each read bounded
  // then too, request-files.ts): regular files of a certificate's or key's size, or a FIFO there
  // would hold each request (src/io/paths.ts). Refused here, before any request.
  checkFilePath(KUBECONFIG_ROLES.caFile(cluster), cluster.caFile, 'input', INPUT_FILE_LIMITS.caFile);
  const user = config.getCurrentUser();
  // A user whose auth-provider kubectl refuses (or ctl, refused-auth-providers.ts): refused
  // before any request.
  const refused = user && authProviderRefusal(user);
  if (refused) throw refused;
  // kubectl's own checks of the user and cluster it uses, in one error as kubectl gives them
  // (auth-info.ts, cluster-info.ts): more than one way to sign in, a certificate without its key,
  // an exec plugin kubectl would not start, a client certificate, key or CA file that does not
  // open (read as for a request: kubeconfig-file-open.ts), a proxy-url kubectl cannot use...
  const info = authInfoOf(user);
  const invalid = usableRefusal(
    user?.name ?? '',
    info ?? {},
    {
      certFile: user?.certFile,
      keyFile: user?.keyFile,
      opened: (path, field) =>
        user
          ? openProblem(
              path,
              field === 'client-key' ? KUBECONFIG_ROLES.keyFile(user) : KUBECONFIG_ROLES.certFile(user),
            )
          : undefined,
    },
    {
      name: cluster.name,
      problems: clusterInfoProblems(cluster, (path) => openProblem(path, KUBECONFIG_ROLES.caFile(cluster))),
    },
  );
  if (invalid) throw invalid;
  if (user) {
    // Its impersonation as kubectl reads and sends it, refused now if no header can carry it.
    if (info) impersonationHeaders(user.name, info);
    checkFilePath(KUBECONFIG_ROLES.certFile(user), user.certFile, 'input', INPUT_FILE_LIMITS.caFile);
    checkFilePath(KUBECONFIG_ROLES.keyFile(user), user.keyFile, 'input', INPUT_FILE_LIMITS.caFile);
    const providerTokenFile = authProviderTokenFile(user);
    const providerTokenRole = KUBECONFIG_ROLES.authProviderTokenFile(user);
    checkFilePath(providerTokenRole, providerTokenFile, 'input', INPUT_FILE_LIMITS.tokenFile);
    // The user's token-file and its auth-provider's tokenFile, read now (token-file.ts,
    // request-files.ts): an empty one is refused before any request is made.
    tokenFileOf(user)?.current();
    if (providerTokenFile) readAuthProviderToken(providerTokenFile, providerTokenRole);
  }
  return {
    config,
    contextName,
    namespace: contextObject.namespace || undefined,
    server: serverForMessages(cluster.server),
    inCluster: false,
  };
}

/** The `tokenFile` of the user's auth-provider, which client-node's FileAuth reads (request-files.ts). */
function authProviderTokenFile(user: k8s.User): string | undefined {
  const config: unknown = user.authProvider?.config;
  const path = (config as { tokenFile?: unknown } | undefined)?.tokenFile;
  return typeof path === 'string' ? path : undefined;
}

/** The auth-provider's token, read as for a request; a file that is missing or unreadable refused in the kubeconfig's words. */
function readAuthProviderToken(path: string, role: string): void {
  try {
    authProviderToken(path, role);
  } catch (error) {
    throw error instanceof UsageError ? error : tokenFileError(role, path, error);
  }
}

function readInClusterNamespace(): string | undefined {
  try {
    // A namespace name is at most 63 characters; the file is the pod's, read like any other.
    return readBoundedFileSync(IN_CLUSTER_NAMESPACE_FILE, 4096).toString('utf8').trim() || undefined;
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

/** The kubeconfig in use and the clients made from it. */
export interface KubeClients {
  config: k8s.KubeConfig;
  contextName: string;
  namespace: string | undefined;
  /** Requests by API path, plain JSON both ways (rest.ts): reads, the state's ConfigMap and Lease, logs. */
  rest: KubeRest;
  objects: ObjectClient;
  /** The kubeconfig and context chosen (LoadedKubeConfig.selection), for the commands hints print; unset: none. */
  selection?: KubeTarget | undefined;
}

/**
 * The clients of one kubeconfig. `onSecret` gets each credential the clients send (register it
 * with the redactor, src/io/redact.ts): the user's token and password as the kubeconfig holds
 * them, and, on every request, what the Authorization header carries, so a token an exec plugin,
 * an auth provider or a rotated token file hands over later is known too before any answer that
 * could quote it is printed (a proxy or API server echoing the header in a 401's message).
 */
export function createKubeClients(
  loaded: LoadedKubeConfig,
  onSecret: (secret: string) => void,
): Promise<KubeClients> {
  const user = loaded.config.getCurrentUser();
  for (const secret of [user?.token, user?.password, ...pluginSecrets(user)]) if (secret) onSecret(secret);
  const cluster = loaded.config.getCurrentCluster();
  for (const secret of [...serverSecrets(cluster?.server), ...serverSecrets(cluster?.proxyUrl)])
    onSecret(secret);
  // Every request made from this config: on kept connections with the Kubernetes deadlines, its
  // credential reported (src/kube/request-config.ts).
  const config = requestConfig(loaded.config, onSecret);
  registerServerTarget(loaded.server, loaded.selection);
  return Promise.resolve({
    config,
    contextName: loaded.contextName,
    namespace: loaded.namespace,
    selection: loaded.selection,
    rest: createKubeRest(config),
    // As KubernetesObjectApi: a namespaced object without a namespace goes to the context's.
    objects: createObjectClient(config, loaded.namespace ?? 'default'),
  });
}

// client-node's own modules (its package has no "exports" map) and ctl's watch, each loaded on
// first use.
let kubeConfigModule: Promise<typeof import('@kubernetes/client-node/dist/config.js')> | undefined;
let watchModule: Promise<typeof import('./bounded-watch.js')> | undefined;
let portForwardModule: Promise<typeof import('@kubernetes/client-node/dist/portforward.js')> | undefined;

export function importKubeConfig(): Promise<typeof import('@kubernetes/client-node/dist/config.js')> {
  kubeConfigModule ??= import('@kubernetes/client-node/dist/config.js');
  return kubeConfigModule;
}

/** ctl's own watch stream (bounded-watch.ts says why not client-node's), loaded on the first watch. */
export function importWatch(): Promise<typeof import('./bounded-watch.js')> {
  watchModule ??= import('./bounded-watch.js');
  return watchModule;
}

export function importPortForward(): Promise<typeof import('@kubernetes/client-node/dist/portforward.js')> {
  portForwardModule ??= import('@kubernetes/client-node/dist/portforward.js');
  return portForwardModule;
}
