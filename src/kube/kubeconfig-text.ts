/**
 * A kubeconfig's text into client-node's KubeConfig: client-node's loadFromString, with its own
 * readers of clusters, contexts and users (config_types.js), in its order, so that every
 * kubeconfig reads as before and fails with the same message. The text is parsed by ctl's reader
 * of YAML from outside (src/io/yaml-from-outside.ts: js-yaml, as client-node's, with the schema
 * and the bound on aliases of every file ctl reads), so a tag it does not know is read as its
 * value, a date as its text and `yes` as a boolean, as kubectl reads them, where client-node's
 * default schema refused the first, made a Date of the second and text of the third (so
 * `insecure-skip-tls-verify: yes` was not heeded); a boolean where kubectl reads text is refused
 * as kubectl refuses it (./kubeconfig-text-fields.ts). Besides: an entry kubectl reads and
 * client-node's reader refuses (a cluster without a server, a context without a cluster, an
 * entry without a name) is kept or left out rather than failing the whole file (lenientEntries,
 * below: kubectl judges the context in use only), each user's token file (`tokenFile`,
 * kubectl's key, or `token-file`, client-node's) is taken out before client-node's reader of
 * users sees it, which would read a `token-file` then and there and never reads a `tokenFile`
 * (./kubeconfig-token-files.ts, ./token-file.ts), an exec plugin kubectl would not start (the
 * user has a token or a token file, a username, a certificate and key) is set aside, each
 * user's `exec.command` and auth-provider `tokenFile` are resolved as kubectl resolves a
 * kubeconfig's paths (below), and the fields kubectl checks of each user are kept for
 * ./auth-info.ts.
 */

import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { newClusters, newContexts, newUsers } from '@kubernetes/client-node/dist/config_types.js';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { parseYaml } from '../io/yaml-from-outside.js';
import { attachAuthInfo } from './auth-info.js';
import { booleanTextField } from './kubeconfig-text-fields.js';
import { given, hasTokenFile, takeTokenFiles } from './kubeconfig-token-files.js';
import { attachTokenFile, TokenFile } from './token-file.js';

interface RawKubeconfig {
  clusters?: unknown;
  contexts?: unknown;
  users?: unknown;
  'current-context'?: string;
}

/**
 * The document as a kubeconfig's mapping. An empty file (or one of comments only) is an empty
 * configuration, as kubectl reads it (client-go's Load of no bytes: one of several in KUBECONFIG
 * adds nothing); client-node's loadFromString failed on it with JavaScript's own "Cannot read
 * properties of null (reading 'clusters')". A list or a scalar is no kubeconfig at all.
 */
function kubeconfigDocument(document: unknown): RawKubeconfig {
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document))
    throw new Error(
      `the file holds a YAML ${Array.isArray(document) ? 'list' : typeof document}, not a kubeconfig's mapping (clusters, contexts, users)`,
    );
  return document as RawKubeconfig;
}

/**
 * Loads `text`, the kubeconfig `file`, into `config`; the paths of its files are then made
 * absolute, taken from the file's folder, as client-node's loadFromFile and kubectl do.
 */
export function loadKubeconfigText(config: KubeConfig, text: string, file: string): void {
  const parsed = kubeconfigDocument(parseYaml(text));
  const boolean = booleanTextField(parsed);
  if (boolean !== undefined) {
    throw new Error(
      `${boolean} is a boolean where kubectl reads text (an unquoted yes, no, on, off, y or n is one in YAML 1.1, as kubectl reads it; kubectl refuses the file too): put the value in quotes`,
    );
  }
  // filepath.Abs(filepath.Dir(file)), as client-go's ResolveLocalPaths: a message then names the
  // CA, certificate or key by the path kubectl names it by, whatever folder ctl runs in.
  const base = resolve(dirname(file));
  const clusters = lenientEntries(parsed.clusters, 'cluster', 'server');
  const contexts = lenientEntries(parsed.contexts, 'context', 'cluster');
  parsed.users = lenientEntries(parsed.users, 'user').entries;
  config.clusters = blanked(newClusters(clusters.entries), clusters.blank, 'server');
  config.contexts = blanked(newContexts(contexts.entries), contexts.blank, 'cluster');
  // Before takeTokenFiles: a token file is one of the credentials that set a plugin aside.
  const setAside = setAsideUnusedExecs(parsed.users);
  const tokenFiles = takeTokenFiles(parsed.users, base);
  resolveExecCommands(parsed.users, base);
  resolveAuthProviderTokenFiles(parsed.users, base);
  config.users = newUsers(parsed.users);
  config.currentContext = parsed['current-context'] as string;
  // newUsers throws on an entry it cannot read, so its users are the entries, in order.
  for (const [index, { path, key, besideToken }] of tokenFiles) {
    const user = config.users[index];
    if (!user) continue;
    // The role names the key the file was given by: `the kubeconfig's tokenFile of user u1`.
    const role = `the kubeconfig's ${key} of user ${user.name}`;
    attachTokenFile(user, new TokenFile(path, role, Date.now, besideToken));
  }
  const entries = Array.isArray(parsed.users) ? (parsed.users as unknown[]) : [];
  // kubectl checks a plugin it does not start all the same (validateAuthInfo, exec.go's apiVersion).
  config.users.forEach((user, index) => {
    const raw = (entries[index] as { user?: unknown } | null)?.user;
    const exec = setAside.get(index);
    attachAuthInfo(user, exec === undefined ? raw : { ...(raw as object), exec });
  });
  config.makePathsAbsolute(base);
}

/** Where client-node's reader would refuse a field, stands this: replaced by '' once read. */
const PLACEHOLDER = 'ctl-kubeconfig-placeholder';

/**
 * The entries of a kubeconfig list that kubectl reads, as client-node's reader can take them:
 * kubectl reads every entry of the file and judges the context in use only (kubernetes/client-go
 * tools/clientcmd/client_config.go DirectClientConfig.ConfirmUsable, read at its commit
 * 32ce75a7d: validateAuthInfo and validateClusterInfo of that context's user and cluster, never
 * validateContext nor another entry), so a cluster without a server or a context without a
 * cluster that no context in use names leaves kubectl working (measured with kubectl 1.28, 1.32
 * and 1.35: test/unit/kube/kubeconfig-entries.test.ts). client-node's reader throws on the first
 * such entry (`clusters[1].cluster.server is missing`), whichever context it belongs to.
 * - An entry without a name is left out: kubectl files it under the name "", which a context
 *   reaches only by naming no cluster or no user, a context ctl refuses (client.ts); an entry
 *   without a name that is a context is never the context in use (`--context ""` is no context).
 * - An entry without its `required` field (a cluster's server, a context's cluster) or without its
 *   body is kept with a placeholder there, told by index in `blank`, and blanked once read
 *   (blanked): the context in use is judged on it when the context is chosen (client.ts
 *   selectContext). Anything else is passed on as it is, to fail as it failed before.
 */
function lenientEntries(
  list: unknown,
  body: string,
  required?: string,
): { entries: unknown; blank: Set<number> } {
  const blank = new Set<number>();
  if (!Array.isArray(list)) return { entries: list, blank };
  const entries = (list as unknown[])
    .filter((entry) => !(entry && typeof entry === 'object' && !(entry as { name?: unknown }).name))
    .map((entry, index) => {
      if (!required || !entry || typeof entry !== 'object') return entry;
      const inside: unknown = (entry as Record<string, unknown>)[body];
      if (inside !== undefined && inside !== null && typeof inside !== 'object') return entry;
      const fields = (inside ?? {}) as Record<string, unknown>;
      if (fields[required]) return entry;
      blank.add(index);
      return { ...entry, [body]: { ...fields, [required]: PLACEHOLDER } };
    });
  return { entries, blank };
}

/** `items` with `field` emptied at each index of `blank` (lenientEntries' placeholders). */
function blanked<T extends object>(items: T[], blank: Set<number>, field: keyof T & string): T[] {
  // The reader throws on an entry it cannot read, so its items are the entries, in order.
  for (const index of blank) {
    const item = items[index];
    if (item) (item as Record<string, unknown>)[field] = '';
  }
  return items;
}

/**
 * Takes the exec plugin out of each user that kubectl would never start it for, by index (the
 * plugin as the file has it): a user with a token or a token file (`tokenFile`, `token-file`), a
 * username, or a client certificate and key. kubectl hands client-go every credential of the user
 * (tools/clientcmd/client_config.go getUserIdentificationPartialConfig), and the plugin's
 * authenticator then adds nothing to a transport that has one of these
 * (plugin/pkg/client/auth/exec/exec.go UpdateTransportConfig: `c.HasTokenAuth() ||
 * c.HasBasicAuth() || c.HasCertAuth()`, transport/config.go: a token or token file, a username,
 * a certificate with its key; kubernetes/client-go read at its commit 32ce75a7d). client-node
 * starts the plugin for every request and then sends the token, or Basic auth, over its answer:
 * ctl ran a command kubectl never runs (a sign-in prompt, a cloud CLI) for nothing.
 */
function setAsideUnusedExecs(users: unknown): Map<number, unknown> {
  const setAside = new Map<number, unknown>();
  if (!Array.isArray(users)) return setAside;
  users.forEach((entry: unknown, index) => {
    const user = (entry as { user?: unknown } | null)?.user as Record<string, unknown> | null | undefined;
    if (!user || typeof user !== 'object' || user.exec === undefined || user.exec === null) return;
    // Beside an auth-provider, kubectl refuses the user: refused-auth-providers.ts needs the plugin.
    if (user['auth-provider'] !== undefined && user['auth-provider'] !== null) return;
    const cert = given(user['client-certificate']) || given(user['client-certificate-data']);
    const key = given(user['client-key']) || given(user['client-key-data']);
    if (!given(user.token) && !hasTokenFile(user) && !given(user.username) && !(cert && key)) return;
    setAside.set(index, user.exec);
    delete user.exec;
  });
  return setAside;
}

/**
 * Makes each user's `exec.command` that names a path (`./bin/plugin`, `bin/plugin`) absolute,
 * taken from `base`, the folder of the kubeconfig that defines the user (each file of a merged
 * KUBECONFIG its own); a bare name (`gke-gcloud-auth-plugin`) is left to $PATH. This is
 * client-go's rule (kubernetes/kubernetes, staging/src/k8s.io/client-go/tools/clientcmd/loader.go:
 * ResolveLocalPaths joins the folder of each AuthInfo's LocationOfOrigin with the paths
 * GetAuthInfoFileReferences lists, which holds `Exec.Command` "only ... if it isn't PATH based":
 * when `strings.ContainsRune(command, filepath.Separator)`; an absolute path is kept). client-node
 * spawns the command as written, so a relative one was taken from ctl's working folder: ctl ran
 * another program than kubectl for the same kubeconfig, such as one planted where ctl was started.
 */
export function resolveExecCommands(users: unknown, base: string): void {
  if (!Array.isArray(users)) return;
  for (const entry of users as unknown[]) {
    const user = (entry as { user?: unknown } | null)?.user as { exec?: unknown } | null | undefined;
    const exec = user && typeof user === 'object' ? (user.exec as { command?: unknown } | null) : undefined;
    if (!exec || typeof exec !== 'object') continue;
    const command = exec.command;
    // filepath.Separator: '/' here, '\\' on Windows, as Node's `sep`.
    if (typeof command !== 'string' || !command.includes(sep) || isAbsolute(command)) continue;
    // filepath.Abs(filepath.Dir(file)) then filepath.Join: resolve does both, cleaning as Join does.
    exec.command = resolve(base, command);
  }
}

/**
 * Makes each user's auth-provider `tokenFile` (client-node's FileAuth form, which ctl keeps:
 * ./refused-auth-providers.ts) that is relative absolute, taken from `base`, the folder of the
 * kubeconfig that defines the user. client-node reads it as written, from the working folder.
 * kubectl has no such provider, but takes every path of a user from its kubeconfig's folder
 * (its own `tokenFile`, the client certificate and key, an exec command with a separator:
 * kubernetes/kubernetes staging/src/k8s.io/client-go/tools/clientcmd/loader.go ResolveLocalPaths
 * and GetAuthInfoFileReferences, read at client-go's commit 32ce75a7d); the same kubeconfig then
 * names the same file wherever ctl is started.
 */
export function resolveAuthProviderTokenFiles(users: unknown, base: string): void {
  if (!Array.isArray(users)) return;
  for (const entry of users as unknown[]) {
    const user = (entry as { user?: unknown } | null)?.user as
      { 'auth-provider'?: unknown } | null | undefined;
    const provider = user && typeof user === 'object' ? user['auth-provider'] : undefined;
    const config = (provider as { config?: unknown } | null | undefined)?.config as
      { tokenFile?: unknown } | null | undefined;
    if (!config || typeof config !== 'object') continue;
    const path = config.tokenFile;
    // ResolvePaths leaves an empty path alone; an absolute one is kept.
    if (typeof path !== 'string' || path === '' || isAbsolute(path)) continue;
    config.tokenFile = resolve(base, path);
  }
}
