import type { ConnectionFlags } from '../api/connect.js';
import type { GlobalOptions } from './options.js';
import { UsageError } from '../errors.js';
import type { Io } from '../io/io.js';
import {
  type ClusterCredentials,
  clusterSecretSource,
  type LazyManagementAccess,
  lazyManagementAccess,
  type ResolvedApiUrl,
  readClusterCredentials,
  resolveApiUrl,
  withLoopbackNoProxy,
} from '../kube/management-access.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand } from '../kube/kube-target.js';
import type { PortForward } from '../kube/port-forward.js';
import { type ApiConnection, type ConnectDependencies, connectApi } from '../api/connect.js';

export interface AuthTokenOptions {
  ttl: number;
  /** The flags and env; the URL may be missing: then it is found through Kubernetes. */
  connection: ConnectionFlags;
  /** --kubeconfig, --context, -n, --cluster: used only when Kubernetes is needed. */
  globals: Pick<GlobalOptions, 'kubeconfig' | 'context' | 'namespace' | 'cluster'>;
}

/**
 * `ctl auth token`: text = the token alone on stdout; json = access_token, token_type, ttl, expires_at.
 *
 * The URL and the credentials come from flags and env first (CLI.md). Only what they leave
 * open is looked up in Kubernetes: the URL (the service in a pod, else a port-forward) and the
 * username and password (the cluster's Secret). Given everything, Kubernetes is never touched.
 */
export async function runAuthToken(
  options: AuthTokenOptions,
  deps: ConnectDependencies & { io: Io },
): Promise<void> {
  const access = lazyManagementAccess({ globals: options.globals, env: deps.env, io: deps.io });
  let forward: PortForward | undefined;
  let connection: ApiConnection | undefined;
  try {
    const resolved = await apiUrlOf(options.connection.apiUrl, access, deps.io, () =>
      portForwardExample(options.globals, deps.env),
    );
    forward = resolved.forward;
    const caFile = await pinnedCa(options, access, deps);
    connection = await connectApi(
      {
        ...options.connection,
        caFile,
        ...(caFile !== options.connection.caFile
          ? { caFileFrom: 'the certificate ctl auth trust pinned' }
          : {}),
        apiUrl: resolved.url,
        servername: resolved.servername,
        portForwardCommand: resolved.portForwardCommand,
      },
      {
        ...deps,
        // The local end of ctl's own port-forward must never go through an HTTPS_PROXY.
        env: forward ? withLoopbackNoProxy(deps.env) : deps.env,
        // One or two requests: Node's https module, not undici's 1 MB (docs/performance.md).
        transport: 'node-https',
        fallbackSources: [
          ...(deps.fallbackSources ?? []),
          clusterSecretSource(() =>
            secretCredentials(access, missingCredentials(options.connection, deps.env)),
          ),
        ],
      },
    );
    const token = await connection.authorize(options.ttl);
    const expiresAt = token.exp !== undefined ? token.exp * 1000 : token.expiresAt;
    if (deps.io.output === 'json') {
      deps.io.jsonWithRequestedSecret({
        access_token: token.accessToken,
        token_type: 'JWT',
        ttl: options.ttl,
        expires_at: new Date(expiresAt).toISOString(),
      });
    } else {
      deps.io.requestedSecret(token.accessToken);
    }
  } finally {
    await connection?.close();
    await forward?.close();
  }
}

/**
 * --ca-file/CTL_CA_FILE, else, when ctl found the API through Kubernetes (so it knows which
 * cluster this is), the certificate `ctl auth trust` pinned for it, if any.
 */
async function pinnedCa(
  options: AuthTokenOptions,
  access: LazyManagementAccess,
  deps: ConnectDependencies & { io: Io },
): Promise<string | undefined> {
  const given = options.connection;
  if (given.apiUrl !== undefined || given.caFile !== undefined || given.insecure) return given.caFile;
  const [kube, cluster] = await Promise.all([access.kube(), access.cluster()]);
  const { pinnedCaFile } = await import('../io/trusted-ca.js');
  const caFile = pinnedCaFile(
    given,
    { context: kube.loaded.contextName, namespace: cluster.namespace, cluster: cluster.name },
    deps.env,
  );
  if (caFile) deps.io.debug(1, `TLS: trusting the certificate ctl auth trust pinned: ${caFile}`);
  return caFile;
}

/** --api-url/CTL_API_URL, else through Kubernetes; a usage error there says how to skip it. */
async function apiUrlOf(
  explicit: string | undefined,
  access: LazyManagementAccess,
  io: Io,
  portForward: () => Promise<string>,
): Promise<ResolvedApiUrl> {
  if (explicit !== undefined) return { url: explicit };
  try {
    const [kube, cluster] = await Promise.all([access.kube(), access.cluster()]);
    return await resolveApiUrl({ explicit, access: kube, clusterName: cluster.name, io });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw explainUsageError(
      error,
      'no management API URL',
      `Pass --api-url https://HOST:9443 or set CTL_API_URL (e.g. https://localhost:9443 after ${await portForward()}).`,
    );
  }
}

/**
 * The port-forward that gives the API a local URL, for the kubeconfig and context ctl was given
 * (src/kube/kube-target.ts), read from the flags alone: the kubeconfig may be what failed.
 */
async function portForwardExample(
  globals: AuthTokenOptions['globals'],
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const { chosenKubeTarget } = await import('../kube/client.js');
  return kubectlCommand(
    chosenKubeTarget({ ...globals, env }),
    'port-forward',
    `svc/${globals.cluster ?? 'CLUSTER'}`,
    '9443:9443',
    // Without -n kubectl reads the context's namespace, as ctl does (resolveNamespace).
    ...(globals.namespace ? ['-n', globals.namespace] : []),
  );
}

/** What flags and env left unknown, as the start of an error message. */
interface Missing {
  message: string;
  username: boolean;
  password: boolean;
  hint: string;
}

function missingCredentials(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Missing {
  const username = flags.username ?? nonEmpty(env.CTL_USERNAME);
  const password =
    flags.passwordStdin || flags.passwordFile !== undefined || nonEmpty(env.CTL_PASSWORD) !== undefined;
  const usernameHint = 'Pass --username USERNAME or set CTL_USERNAME.';
  const passwordHint =
    'Pipe the password with --password-stdin, point --password-file at a file, or set CTL_PASSWORD (never on the command line).';
  if (username === undefined && !password) {
    return {
      message: 'no username or password for the management API',
      username: true,
      password: true,
      hint: `${usernameHint} ${passwordHint}`,
    };
  }
  if (username === undefined) {
    return {
      message: 'no username for the management API',
      username: true,
      password: false,
      hint: usernameHint,
    };
  }
  return { message: `no password for ${username}`, username: false, password: true, hint: passwordHint };
}

/**
 * The cluster's Secret, asked only for what flags and env did not give. A usage error on the way
 * (no kubeconfig, no cluster resource, no Secret or key) says what is missing and both ways out.
 */
async function secretCredentials(
  access: LazyManagementAccess,
  missing: Missing,
): Promise<ClusterCredentials> {
  const context = `${missing.message}, and the cluster's Secret cannot give it`;
  try {
    const [kube, cluster] = await Promise.all([access.kube(), access.cluster()]);
    const credentials = await readClusterCredentials(kube, cluster);
    const absent = [
      ...(missing.username && credentials.username === undefined ? ['username'] : []),
      ...(missing.password && credentials.password === undefined ? ['password'] : []),
    ];
    if (absent.length > 0) {
      throw new UsageError(`Secret ${credentials.secretName} has no key ${absent.join(' or ')}`, {
        hint: `Check it with ${kubectlCommand(kube.kube.selection ?? DEFAULT_KUBE_TARGET, 'describe', 'secret', cluster.credentialSecretName, '-n', cluster.namespace)}.`,
      });
    }
    return credentials;
  } catch (error) {
    throw explainUsageError(error, context, missing.hint);
  }
}

/** A usage error from the Kubernetes lookup, prefixed with what it was for; others pass through. */
function explainUsageError(error: unknown, what: string, hint: string): unknown {
  if (!(error instanceof UsageError)) return error;
  return new UsageError(`${what}: ${error.message}`, {
    hint: error.hint ? `${hint}\nOr let ctl find it through Kubernetes: ${error.hint}` : hint,
    cause: error,
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
