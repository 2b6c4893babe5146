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
import { errnoText, openProblem } from './kubeconfig-file-open.js';
import { isPlainHttp, noCredentialsOverPlainHttp, warnPlainHttp, type Warner } from './plain-http.js';
import { socksAsKubectl } from './proxy-url.js';
import { authProviderRefusal, refuseAuthProviders } from './refused-auth-providers.js';
import { serverForMessages, serverSecrets } from './server-url.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand, selectedKubeTarget, type KubeTarget } from './kube-target.js';
import { createObjectClient, type ObjectClient } from './objects.js';
import { createKubeRest, type KubeRest } from './rest.js';
import { requestConfig } from './request-config.js';
import {
  authProviderToken,
  boundRequestFiles,
  IN_CLUSTER_ROLES,
  KUBECONFIG_ROLES,
  readRequestFile,
} from './request-files.js';
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
  /** Injected for tests: the folder standing in for the pod's root in-cluster; default `/`. */
  inClusterRoot?: string;
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
    config.loadFromCluster(options.inClusterRoot);
    // Its server is https: the rule of plain-http.ts is kept all the same, for every config.
    noCredentialsOverPlainHttp(config);
    // Its CA and token, read by client-node for each request, read within their bounds.
    boundRequestFiles(config, IN_CLUSTER_ROLES);
    readInClusterFiles(config);
    return {
      config,
      contextName: config.getCurrentContext(),
      namespace: readInClusterNamespace(options.inClusterRoot ?? ''),
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
  // A plain-http server gets none of the user's credentials, as kubectl's (plain-http.ts).
  noCredentialsOverPlainHttp(config);
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
  // client-node's parser and readers, less their read of every user's token-file, and with
  // kubectl's tokenFile, which they never read (kubeconfig-token-files.ts, token-file.ts).
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
 * What is wrong with a kubeconfig, without its text. js-yaml's message (ctl's reader, as
 * client-node's) quotes the lines around the fault, and some of its reasons a tag or an alias
 * name; a kubeconfig's lines are its secrets (`token:`, `client-key-data:`, `password:`): a YAML fault is
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
 * The paths it names (certificates, key, tokenFile or token-file) are then taken from its folder.
 */
function loadFile(config: k8s.KubeConfig, file: string, loadText: LoadText): void {
  let text: string;
  try {
    text = readBoundedFileSync(file, INPUT_FILE_LIMITS.kubeconfig).toString('utf8');
  } catch (error) {
    const refused = inputFileError('the kubeconfig', error);
    const reason = refused === error ? errnoText(error) : undefined;
    if (reason === undefined) throw refused;
    // kubectl: `error loading config file "F": open F: permission denied` (exit 1); ctl's exit 2,
    // a file it needs and cannot read, and what to do rather than Node's `EACCES: ..., open 'F'`.
    throw new UsageError(`cannot read the kubeconfig ${file}: ${reason}`, {
      hint: 'Make the file readable by the user ctl runs as (its permissions, and those of the folders above it), or pass another with --kubeconfig FILE.',
      cause: error,
    });
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
  if (!contextObject && config.getContexts().length === 0) {
    // An empty file, or one of clusters only: kubectl would go to localhost:8080.
    throw new UsageError(
      `the kubeconfig ${selection.kubeconfigs?.join(', ') ?? '~/.kube/config'} defines no context`,
      {
        hint: `Point --kubeconfig or KUBECONFIG at the kubeconfig of your cluster (${kubectlCommand(kubeconfigOnly, 'config', 'view')} shows what this one holds).`,
      },
    );
  }
  if (!contextObject) {
    throw new UsageError('the kubeconfig has no current context', {
      hint: `Pass --context CONTEXT_NAME, or run ${kubectlCommand(kubeconfigOnly, 'config', 'use-context', 'CONTEXT_NAME')}.`,
    });
  }
  const cluster = config.getCurrentCluster();
  if (!cluster) {
    throw new UsageError(
      contextObject.cluster
        ? `context ${contextName} names no cluster known to the kubeconfig`
        : `context ${contextName} names no cluster`,
      {
        hint: `Fix the context with ${kubectlCommand(kubeconfigOnly, 'config', 'set-context', contextName, '--cluster', 'CLUSTER_NAME')}.`,
      },
    );
  }
  refuseUnusable(config, contextName, contextObject, cluster, kubeconfigOnly);
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
    // The user's tokenFile or token-file and its auth-provider's tokenFile, read now
    // (token-file.ts, request-files.ts): an empty one is refused before any request is made (a
    // tokenFile beside a token falls back on the token, as kubectl's does). Not toward a
    // plain-http server: no token is sent there (plain-http.ts), and kubectl reads none either
    // (getUserIdentificationPartialConfig is skipped; its validation, kept above, opens no token file).
    if (!isPlainHttp(cluster.server)) readTokenFiles(user);
  }
  return {
    config,
    contextName,
    namespace: contextObject.namespace || undefined,
    server: serverForMessages(cluster.server),
    inCluster: false,
  };
}

/**
 * What kubectl cannot use of the context in use and ctl refuses before any request (exit 2),
 * where kubectl would act otherwise than the kubeconfig says (kubernetes/client-go
 * tools/clientcmd/client_config.go, read at its commit 32ce75a7d; kubectl 1.28, 1.32 and 1.35
 * measured in test/unit/kube/kubeconfig-entries.test.ts):
 * - its cluster without a server: kubectl sends its requests to http://localhost:8080, the
 *   server its flags give every cluster first (getCluster merges overrides.ClusterDefaults), a
 *   server the kubeconfig never named (validateClusterInfo's `no server found for cluster` is
 *   never reached);
 * - no user, or a user the kubeconfig does not define: kubectl takes an empty user
 *   (getAuthInfo: not found and not required), which nothing identifies, and asks for a username
 *   and password on stdin (getUserIdentificationPartialConfig, canIdentifyUser, the
 *   PromptingAuthLoader; only toward a TLS server, isConfigTransportTLS): `Please enter
 *   Username: ` then `error: EOF` and exit 1 without a terminal. client-node sent such requests
 *   without the cluster's CA nor its insecure-skip-tls-verify (config.js applyHTTPSOptions
 *   returns at once without a user): a certificate error, or an anonymous request; ctl asks
 *   nothing on a terminal, and refuses it, plain http or not.
 */
function refuseUnusable(
  config: k8s.KubeConfig,
  contextName: string,
  context: k8s.Context,
  cluster: k8s.Cluster,
  kubeconfigOnly: KubeTarget,
): void {
  if (!cluster.server) {
    throw new UsageError(`the kubeconfig's cluster ${oneLine(cluster.name)} has no server`, {
      hint:
        `Give it the API server's URL: ${kubectlCommand(kubeconfigOnly, 'config', 'set-cluster', cluster.name, '--server', 'https://HOST:PORT')}. ` +
        '(kubectl would send its requests to http://localhost:8080 instead.)',
    });
  }
  if (config.getCurrentUser()) return;
  throw new UsageError(
    context.user
      ? `context ${contextName} names user ${oneLine(context.user)}, which the kubeconfig does not define`
      : `context ${contextName} names no user`,
    {
      hint: `Name the user that signs in to this cluster: ${kubectlCommand(kubeconfigOnly, 'config', 'set-context', contextName, '--user', 'USER_NAME')}.`,
    },
  );
}

/** The user's token files (its own, its auth-provider's), read as for a request; refused in the kubeconfig's words. */
function readTokenFiles(user: k8s.User): void {
  const providerTokenFile = authProviderTokenFile(user);
  const providerTokenRole = KUBECONFIG_ROLES.authProviderTokenFile(user);
  checkFilePath(providerTokenRole, providerTokenFile, 'input', INPUT_FILE_LIMITS.tokenFile);
  tokenFileOf(user)?.current();
  if (providerTokenFile) readAuthProviderToken(providerTokenFile, providerTokenRole);
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

/**
 * The service account's token and CA, read once when the in-cluster config is made, as client-go's
 * rest.InClusterConfig reads the token (kubernetes/client-go rest/config.go, read at its commit
 * 32ce75a7d: `os.ReadFile(tokenFile)`, its error returned before any request): one that is
 * missing, that the pod's user may not read (permission denied) or that is empty is refused now,
 * exit 2 as a kubeconfig's token-file, naming the file, with what to check in the pod
 * (IN_CLUSTER_ROLES). Before, the first request failed on it (exit 1). client-go logs a CA it
 * cannot read and trusts the system's CAs instead; ctl refuses it, as it refuses a kubeconfig's
 * CA file that does not open, rather than trust another CA than the pod's. Both are read again
 * for each request (request-files.ts): the kubelet rotates the token.
 */
function readInClusterFiles(config: k8s.KubeConfig): void {
  const cluster = config.getCurrentCluster();
  if (cluster?.caFile) readRequestFile(cluster.caFile, IN_CLUSTER_ROLES.caFile(cluster), IN_CLUSTER_ROLES);
  const user = config.getCurrentUser();
  const tokenFile = user ? authProviderTokenFile(user) : undefined;
  if (user && tokenFile) {
    authProviderToken(tokenFile, IN_CLUSTER_ROLES.authProviderTokenFile(user), IN_CLUSTER_ROLES);
  }
}

function readInClusterNamespace(root: string): string | undefined {
  try {
    // A namespace name is at most 63 characters; the file is the pod's, read like any other.
    return (
      readBoundedFileSync(`${root}${IN_CLUSTER_NAMESPACE_FILE}`, 4096).toString('utf8').trim() || undefined
    );
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
  /** Where the `warning:` of a plain-http server goes (ctl's Io; plain-http.ts), once. */
  warner?: Warner,
): Promise<KubeClients> {
  const user = loaded.config.getCurrentUser();
  const cluster = loaded.config.getCurrentCluster();
  const plainHttp = isPlainHttp(cluster?.server);
  // A token beside a tokenFile is sent only while the file does not read (token-file.ts): a
  // secret of the kubeconfig all the same. A token file is not read for a plain-http server,
  // which gets no token (plain-http.ts): `user.token` reads it (token-file.ts attachTokenFile).
  const tokenFile = tokenFileOf(user);
  const token = plainHttp && tokenFile ? undefined : user?.token;
  for (const secret of [token, tokenFile?.besideToken, user?.password, ...pluginSecrets(user)])
    if (secret) onSecret(secret);
  for (const secret of [...serverSecrets(cluster?.server), ...serverSecrets(cluster?.proxyUrl)])
    onSecret(secret);
  // After the server's secrets are known to the redactor: the warning names the server.
  warnPlainHttp(cluster?.server, warner);
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
