import { UsageError } from '../errors.js';
import { readBoundedFileSync } from '../io/bounded-file.js';
import type { Io } from '../io/io.js';
import { INPUT_FILE_LIMITS, inputFileError } from '../io/paths.js';
import { type AuthForm, authorize, type IssuedToken, refreshToken } from './authorize.js';
import { ApiClient } from './client.js';
import type { Clock } from './clock.js';
import {
  type CredentialSource,
  filePasswordSource,
  type ResolvedCredentials,
  resolveCredentials,
  stdinPasswordSource,
  valueSource,
} from './credentials.js';
import { HttpClient, type HttpClientOptions, type Timeouts } from './http.js';
import { TokenSource } from './token-source.js';

/** The management API connection settings, as the CLI resolved them from flags and env. */
export interface ConnectionSettings {
  apiUrl: string;
  /** From --username; CTL_USERNAME is read here from env. */
  username?: string | undefined;
  passwordStdin: boolean;
  passwordFile?: string | undefined;
  caFile?: string | undefined;
  /** What named `caFile`, for its errors: `--ca-file` unless said (CTL_CA_FILE, CTL_PARTICIPANT_CA_FILE). */
  caFileFrom?: string | undefined;
  insecure: boolean;
  /** Where `insecure` and `caFile` came from, for the warning: `--insecure` unless said. */
  trustSource?: { insecure: string; caFile: string } | undefined;
  authForm: AuthForm;
  /**
   * The name to verify the certificate against when apiUrl's host is not it: through ctl's own
   * port-forward (https://127.0.0.1:<port>) the cluster's service, `<cluster>.<ns>.svc`. The
   * service's other names (`.svc.cluster.local`, the bare `<cluster>`) are accepted too.
   */
  servername?: string | undefined;
  /** caFile is the certificate `ctl auth trust` pinned (src/io/trusted-ca.ts), not one given. */
  caFilePinned?: boolean | undefined;
  /** With `servername`: the kubectl port-forward that reaches the same service, for a hint. */
  portForwardCommand?: string | undefined;
}

/**
 * The connection flags with the API URL still optional: without --api-url/CTL_API_URL, `ctl auth`
 * and `ctl upgrade` find it through Kubernetes (src/kube/management-access.ts).
 */
export type ConnectionFlags = Omit<ConnectionSettings, 'apiUrl'> & { apiUrl: string | undefined };

/**
 * The DNS names of a cluster's management API service: what its certificate may name, the
 * first one being what ctl asks for (TLS server name) through a port-forward.
 */
export function clusterServiceNames(cluster: string, namespace: string): string[] {
  return [`${cluster}.${namespace}.svc`, `${cluster}.${namespace}.svc.cluster.local`, cluster];
}

/** `<svc>.<ns>.svc` -> its other names; any other name stands alone. */
function alternativeNamesOf(servername: string): string[] {
  const match = /^([^.]+)\.([^.]+)\.svc$/.exec(servername);
  return match ? clusterServiceNames(match[1] as string, match[2] as string).slice(1) : [];
}

export interface ConnectDependencies {
  io: Io;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Asked after flags and env: the cluster's Secret, once Kubernetes access exists. */
  fallbackSources?: CredentialSource[];
  clock?: Clock;
  timeouts?: Partial<Timeouts>;
  /** What carries the requests (HttpClientOptions.transport); default undici. */
  transport?: HttpClientOptions['transport'];
}

/** An open connection: the transport, the credentials, and ways to get tokens and make calls. */
export interface ApiConnection {
  http: HttpClient;
  credentials: ResolvedCredentials;
  authorize(ttl: number): Promise<IssuedToken>;
  /** A client whose tokens live `ttl` seconds and renew themselves. */
  client(ttl?: number): ApiClient;
  close(): Promise<void>;
}

/**
 * Reads the CA and the credentials (registering every secret with the redactor the moment it
 * is read), warns about --insecure, and builds the one HTTP client of this run.
 */
export async function connectApi(
  settings: ConnectionSettings,
  deps: ConnectDependencies,
): Promise<ApiConnection> {
  const { io, env } = deps;
  const ca = settings.caFile
    ? readCaFile(
        settings.caFilePinned
          ? 'the certificate ctl auth trust pinned'
          : (settings.caFileFrom ?? '--ca-file'),
        settings.caFile,
      )
    : undefined;
  if (settings.insecure) {
    io.warn(
      `${settings.trustSource?.insecure ?? '--insecure'}: the certificate of ${settings.apiUrl} is NOT verified; anyone on the network path could read ` +
        `the password and tokens. Prefer ${settings.trustSource?.caFile ?? '--ca-file'} CA_FILE.`,
    );
  }
  const onSecret = (secret: string) => io.redactor.add(secret, 'password');
  const credentials = await resolveCredentials(credentialSources(settings, deps), { onSecret });
  // With the username, the redactor knows the Basic-auth form of the password too.
  io.redactor.addUsername(credentials.username);
  io.debug(
    1,
    `credentials: user ${credentials.username} (from ${credentials.usernameFrom}), password from ${credentials.passwordFrom}`,
  );

  const alternativeNames = settings.servername ? alternativeNamesOf(settings.servername) : undefined;
  if (settings.servername) {
    io.debug(
      1,
      `TLS: verifying the certificate of ${settings.apiUrl} as ${[settings.servername, ...(alternativeNames ?? [])].join(' or ')}`,
    );
  }
  const http = new HttpClient({
    baseUrl: settings.apiUrl,
    ca,
    insecure: settings.insecure,
    servername: settings.servername,
    alternativeNames,
    pinnedCaFile: settings.caFilePinned ? settings.caFile : undefined,
    portForwardCommand: settings.portForwardCommand,
    env,
    log: io,
    clock: deps.clock,
    timeouts: deps.timeouts,
    transport: deps.transport,
  });
  const authorizeFor = (ttl: number) =>
    authorize(http, credentials, { ttl, form: settings.authForm, clock: deps.clock, log: io, onSecret });
  return {
    http,
    credentials,
    authorize: authorizeFor,
    client: (ttl = 300) =>
      new ApiClient(
        http,
        new TokenSource({
          obtain: () => authorizeFor(ttl),
          refresh: (current) => refreshToken(http, current, { clock: deps.clock, onSecret }),
          clock: deps.clock,
          log: io,
        }),
        credentials.username,
        credentials.usernameFrom,
      ),
    close: () => http.close(),
  };
}

/** Flags first, then env, then the fallbacks (the cluster Secret, later). */
function credentialSources(settings: ConnectionSettings, deps: ConnectDependencies): CredentialSource[] {
  const sources: CredentialSource[] = [];
  if (settings.username !== undefined)
    sources.push(valueSource('--username', { username: settings.username }));
  if (settings.passwordStdin) sources.push(stdinPasswordSource(deps.stdin));
  if (settings.passwordFile !== undefined) {
    sources.push(filePasswordSource(settings.passwordFile, (message) => deps.io.warn(message)));
  }
  sources.push(valueSource('CTL_USERNAME', { username: emptyToUndefined(deps.env.CTL_USERNAME) }));
  sources.push(valueSource('CTL_PASSWORD', { password: emptyToUndefined(deps.env.CTL_PASSWORD) }));
  sources.push(...(deps.fallbackSources ?? []));
  return sources;
}

/**
 * The CA file, as `flag` named it: a regular file of at most 4 MiB (src/io/paths.ts
 * INPUT_FILE_LIMITS), read without waiting on it (src/io/bounded-file.ts). Read at once, not
 * through fs/promises: its open, stat, read and close each wait for the event loop, which at
 * this point is parsing the snapshot's answers (12-22 ms in a plan, docs/performance.md); a CA
 * bundle is a few KB.
 */
function readCaFile(flag: string, path: string): string {
  let text: string;
  try {
    text = readBoundedFileSync(path, INPUT_FILE_LIMITS.caFile).toString('utf8');
  } catch (error) {
    const refused = inputFileError(flag, error);
    if (refused instanceof UsageError) throw refused;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`cannot read ${flag} ${path}: ${code}`, {
      hint: 'Pass the path of a PEM file with the CA certificate.',
    });
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`${flag} ${path} holds no PEM certificate`, {
      hint: 'Pass a PEM bundle (-----BEGIN CERTIFICATE-----), e.g. the ca.pem that `ctl sim up` writes.',
    });
  }
  return text;
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
