/**
 * The files client-node reads again for every request, read through ctl's bounded reader
 * (src/io/bounded-file.ts) instead of its fs.readFileSync: the context's certificate-authority,
 * client-certificate and client-key (config.js applyHTTPSOptions, bufferFromFileOrString), and an
 * auth-provider's `tokenFile` (file_auth.js, read again each minute, trimmed as client-go trims a
 * token file: authProviderToken; the in-cluster service account's token is one).
 *
 * Each is checked when the kubeconfig is loaded (src/kube/client.ts selectContext), but may be
 * replaced afterwards: a FIFO swapped in for the CA would hold readFileSync, and with it the
 * event loop, so that no deadline could ever fire. Read here, such a file is refused at once
 * (the usage error that names it, exit 2) and the request fails.
 *
 * Why read again for every request rather than once, handed to client-node as *-data: a client
 * certificate renewed on disk during a long run (cert-manager, a short-lived certificate of a
 * sign-in tool) is then used from the next request on, as before (src/kube/agent.ts keeps one
 * connection pool per certificate), and these reads are a few KiB each, no cost beside a request.
 */

import type { Cluster, User } from '@kubernetes/client-node/dist/config_types.js';
import { UsageError } from '../errors.js';
import { readBoundedFileSync } from '../io/bounded-file.js';
import { INPUT_FILE_LIMITS } from '../io/paths.js';
import { tokenFileError } from './token-file.js';

/** What named each file, for messages; in-cluster, the service account's files are named so. */
export interface FileRoles {
  caFile(cluster: Cluster): string;
  certFile(user: User): string;
  keyFile(user: User): string;
  authProviderTokenFile(user: User): string;
  /** What to do about an empty token file. */
  emptyTokenHint: string;
  /** What to do about a file that does not open (permission denied, gone). */
  unreadableHint: string;
}

export const KUBECONFIG_ROLES: FileRoles = {
  caFile: (cluster) => `the kubeconfig's certificate-authority of cluster ${cluster.name}`,
  certFile: (user) => `the kubeconfig's client-certificate of user ${user.name}`,
  keyFile: (user) => `the kubeconfig's client-key of user ${user.name}`,
  authProviderTokenFile: (user) => `the kubeconfig's auth-provider tokenFile of user ${user.name}`,
  emptyTokenHint: 'Write the bearer token into that file, or fix the path in the kubeconfig.',
  unreadableHint:
    "Make the file readable by the user ctl runs as (its permissions, and those of the folders above it), or fix the path in the kubeconfig (a relative one is taken from the kubeconfig's folder).",
};

export const IN_CLUSTER_ROLES: FileRoles = {
  caFile: () => "the in-cluster service account's CA",
  certFile: () => "the in-cluster service account's client-certificate",
  keyFile: () => "the in-cluster service account's client-key",
  authProviderTokenFile: () => "the in-cluster service account's token",
  // No kubeconfig names it: Kubernetes mounts it into the pod (a projected volume kubelet writes).
  emptyTokenHint:
    "Kubernetes mounts the pod's service account token there: check the pod's service account and " +
    'its token volume (automountServiceAccountToken, a projected serviceAccountToken), then start ' +
    'the pod again; or run ctl with --kubeconfig FILE.',
  // Kubernetes mounts them readable by the pod's user: a pod running as another user, or a
  // volume with other permissions, cannot read them.
  unreadableHint:
    "Kubernetes mounts the pod's service account files there: check that the pod's user can read " +
    'them (its securityContext: runAsUser, fsGroup; the token volume: automountServiceAccountToken, ' +
    'a projected serviceAccountToken and its defaultMode), then start the pod again; or run ctl with --kubeconfig FILE.',
};

/** The part of client-node's KubeConfig read here (private members among them). */
interface KubeConfigInside {
  getCurrentCluster(): Cluster | null;
  getCurrentUser(): User | null;
  applyHTTPSOptions?: (options: object) => void;
  authenticators?: unknown;
}

/** client-node's FileAuth (file_auth.js): the token of an auth-provider's `tokenFile`. */
interface FileAuthInside {
  token: string | null;
  lastRead: Date | null;
  refreshToken(path: string): void;
}

function isFileAuth(value: unknown): value is FileAuthInside {
  return (
    typeof (value as { refreshToken?: unknown } | null)?.refreshToken === 'function' &&
    'lastRead' in (value as object)
  );
}

/**
 * Makes `config` read its CA, client certificate, client key and auth-provider token file through
 * the bounded reader. Should client-node's inside change (no such method or authenticator),
 * nothing is patched, and the checks made when the kubeconfig was loaded still stand.
 */
export function boundRequestFiles(config: object, roles: FileRoles = KUBECONFIG_ROLES): void {
  const inside = config as KubeConfigInside;
  const applyHTTPSOptions = (Object.getPrototypeOf(config) as KubeConfigInside).applyHTTPSOptions;
  if (typeof applyHTTPSOptions === 'function') {
    inside.applyHTTPSOptions = (options: object) => {
      const cluster = inside.getCurrentCluster();
      const user = inside.getCurrentUser();
      // client-node's own method, on a view whose cluster and user hold the files' bytes as
      // *-data (which it reads before nothing else) and no file.
      const view = Object.create(config, {
        getCurrentCluster: {
          value: () =>
            cluster && asData(cluster, 'caFile', 'caData', roles.caFile(cluster), roles.unreadableHint),
        },
        getCurrentUser: {
          value: () =>
            user &&
            asData(
              asData(user, 'certFile', 'certData', roles.certFile(user), roles.unreadableHint),
              'keyFile',
              'keyData',
              roles.keyFile(user),
              roles.unreadableHint,
            ),
        },
      }) as KubeConfigInside;
      applyHTTPSOptions.call(view, options);
    };
  }
  const authenticators = inside.authenticators;
  if (!Array.isArray(authenticators)) return;
  for (const authenticator of authenticators) {
    if (!isFileAuth(authenticator)) continue;
    authenticator.refreshToken = (path: string) => {
      const user = inside.getCurrentUser();
      authenticator.token = authProviderToken(
        path,
        user ? roles.authProviderTokenFile(user) : "the kubeconfig's auth-provider tokenFile",
        roles,
      );
      authenticator.lastRead = new Date();
    };
  }
}

/**
 * The token of an auth-provider's `tokenFile` (the in-cluster service account's too): the file
 * within its bound, less the white space around it, as client-go reads a token file
 * (kubernetes/client-go transport/token_source.go fileTokenSource.Token: strings.TrimSpace, and
 * `read empty token from file` for nothing left; read at its commit 32ce75a7d). client-node sent
 * the file as it is: a file written with `echo` put its newline into the Authorization header,
 * and an empty one sent the request without credentials.
 */
export function authProviderToken(
  path: string,
  role: string,
  roles: Pick<FileRoles, 'emptyTokenHint' | 'unreadableHint'> = KUBECONFIG_ROLES,
): string {
  const token = readFile(path, INPUT_FILE_LIMITS.tokenFile, role, roles.unreadableHint)
    .toString('utf-8')
    .trim();
  // In-cluster, no kubeconfig names the file: its own hint (IN_CLUSTER_ROLES).
  if (token === '') throw new UsageError(`${role} ${path} is empty`, { hint: roles.emptyTokenHint });
  return token;
}

/** A CA, certificate or key file as a request reads it (readFile): refused as there, naming `role`. */
export function readRequestFile(
  path: string,
  role: string,
  roles: Pick<FileRoles, 'unreadableHint'> = KUBECONFIG_ROLES,
): Buffer {
  return readFile(path, INPUT_FILE_LIMITS.caFile, role, roles.unreadableHint);
}

/** `item` with the bytes of its file as base64 data, seen through a view; `item` when it names none. */
function asData<T extends object>(
  item: T,
  fileKey: keyof T & string,
  dataKey: keyof T & string,
  role: string,
  unreadableHint: string,
): T {
  const file = item[fileKey];
  if (typeof file !== 'string' || file === '') return item;
  const bytes = readFile(file, INPUT_FILE_LIMITS.caFile, role, unreadableHint);
  return Object.create(item, {
    [fileKey]: { value: undefined },
    [dataKey]: { value: bytes.toString('base64') },
  }) as T;
}

/**
 * The file within its bound; a FIFO, a device, a folder or a file too large: the usage error
 * naming `role`. One that does not open (permission denied, gone since the kubeconfig was read,
 * or never checked: the in-cluster CA and token are read for the first request, not when the
 * config is loaded) is a usage error too (exit 2, a file ctl needs and cannot read, as the
 * kubeconfig's own files when it is loaded: token-file.ts tokenFileError), naming `role`, the
 * path and Go's words for the reason (`permission denied`, as kubectl's `unable to read ... due
 * to open PATH: permission denied`), with what to do about it. Before, Node's
 * error came as it was, as the failure of the request (exit 1), without what the file was for.
 */
function readFile(path: string, maxBytes: number, role: string, unreadableHint: string): Buffer {
  try {
    return readBoundedFileSync(path, maxBytes);
  } catch (error) {
    throw tokenFileError(role, path, error, unreadableHint);
  }
}
