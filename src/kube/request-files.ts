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
import { INPUT_FILE_LIMITS, inputFileError } from '../io/paths.js';

/** What named each file, for messages; in-cluster, the service account's files are named so. */
export interface FileRoles {
  caFile(cluster: Cluster): string;
  certFile(user: User): string;
  keyFile(user: User): string;
  authProviderTokenFile(user: User): string;
  /** What to do about an empty token file. */
  emptyTokenHint: string;
}

export const KUBECONFIG_ROLES: FileRoles = {
  caFile: (cluster) => `the kubeconfig's certificate-authority of cluster ${cluster.name}`,
  certFile: (user) => `the kubeconfig's client-certificate of user ${user.name}`,
  keyFile: (user) => `the kubeconfig's client-key of user ${user.name}`,
  authProviderTokenFile: (user) => `the kubeconfig's auth-provider tokenFile of user ${user.name}`,
  emptyTokenHint: 'Write the bearer token into that file, or fix the path in the kubeconfig.',
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
          value: () => cluster && asData(cluster, 'caFile', 'caData', roles.caFile(cluster)),
        },
        getCurrentUser: {
          value: () =>
            user &&
            asData(
              asData(user, 'certFile', 'certData', roles.certFile(user)),
              'keyFile',
              'keyData',
              roles.keyFile(user),
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
        roles.emptyTokenHint,
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
  emptyHint: string = KUBECONFIG_ROLES.emptyTokenHint,
): string {
  const token = readFile(path, INPUT_FILE_LIMITS.tokenFile, role).toString('utf-8').trim();
  // In-cluster, no kubeconfig names the file: its own hint (IN_CLUSTER_ROLES).
  if (token === '') throw new UsageError(`${role} ${path} is empty`, { hint: emptyHint });
  return token;
}

/** `item` with the bytes of its file as base64 data, seen through a view; `item` when it names none. */
function asData<T extends object>(
  item: T,
  fileKey: keyof T & string,
  dataKey: keyof T & string,
  role: string,
): T {
  const file = item[fileKey];
  if (typeof file !== 'string' || file === '') return item;
  const bytes = readFile(file, INPUT_FILE_LIMITS.caFile, role);
  return Object.create(item, {
    [fileKey]: { value: undefined },
    [dataKey]: { value: bytes.toString('base64') },
  }) as T;
}

/** The file within its bound; a FIFO, a device, a folder or a file too large: the usage error naming `role`. */
function readFile(path: string, maxBytes: number, role: string): Buffer {
  try {
    return readBoundedFileSync(path, maxBytes);
  } catch (error) {
    throw inputFileError(role, error);
  }
}
