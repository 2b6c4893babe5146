/**
 * The participating clusters of the Active-Active databases, read for the snapshot.
 *
 * An REAADB names its participants in `spec.participatingClusters[].name`; each name is a
 * RedisEnterpriseRemoteCluster (RERC) in the cluster's namespace, this cluster's own included
 * (`status.local: true`, or `spec.recName`/`spec.recNamespace` naming this REC). A RERC gives
 * the participant's management API (`https://<spec.apiFqdnUrl>:<spec.apiPort>`) and the Secret
 * with its credentials (`spec.secretName`, default `redis-enterprise-<RERC name>`, keys
 * `username` and `password`): reference `crd-rerc.yaml`, DOCS
 * `operate/kubernetes/active-active/create-reaadb.md`. Each remote participant's Redis Software
 * version is read through that API by the reader the command gives (src/commands/remote-clusters.ts),
 * which holds the secret: the snapshot keeps only the name, the URL and the version, or why
 * it is unknown.
 *
 * Trust boundary (issue 35): an RERC is a namespace object anyone with edit rights can change, so
 * its fields decide where a password goes only within what the documentation allows.
 * - The credentials come only from `redis-enterprise-<RERC name>` ("Must use the following
 *   format", `crd-rerc.yaml`; redis.io RedisEnterpriseRemoteCluster API reference), never from
 *   the local REC's own admin Secret, whatever `secretName` says.
 * - The host is `spec.apiFqdnUrl`, a DNS name (the field is the cluster's FQDN: the docs'
 *   example `testapi-new-york-1-ns1.redislabs.com`), and the port only `spec.apiPort`: a value
 *   with a scheme, a port, a path, a query, a fragment, user information or an IP address is
 *   refused with the reason, and nothing is sent.
 */

import { describeKubeError } from '../kube/errors.js';
import { type ClusterReads, type KubeObject, REMOTE_CLUSTER_RESOURCE } from '../kube/reads.js';
import { getPath, num, str } from '../json-read.js';

export interface RemoteClusterSnapshot {
  /** The RERC's name: what `participatingClusters` names. */
  name: string;
  namespace: string;
  /** This cluster's own RERC. */
  local: boolean;
  /** `https://<apiFqdnUrl>:<apiPort>`; undefined when the RERC names no host, or not a valid one. */
  apiUrl?: string | undefined;
  /** The Secret whose credentials ctl sends to `apiUrl` (the RERC's documented one). */
  secretName?: string | undefined;
  /** `<host>:<port>` the Secret's credentials were sent to; absent when none were sent. */
  credentialsSentTo?: string | undefined;
  /** The participant's Redis Software version (its oldest node's `software_version`). */
  rsVersion?: string | undefined;
  /** Why `rsVersion` is unknown (not set for the local participant). */
  error?: string | undefined;
  /** Its API accepted the connection, or none, and gave no answer within the deadline. */
  unreachable?: boolean | undefined;
}

/** Credentials from the RERC's Secret: handed to the reader, never stored or printed. */
export interface RemoteClusterCredentials {
  username: string;
  password: string;
}

/** What a remote participant's management API says, read within a short deadline. */
export type RemoteClusterReader = (input: {
  name: string;
  apiUrl: string;
  credentials: RemoteClusterCredentials;
}) => Promise<{ rsVersion: string }>;

/** The reader failed because the participant gave no answer in time. */
export class ParticipantUnreachableError extends Error {
  override readonly name = 'ParticipantUnreachableError';
}

/** The Secret name the RERC CRD prescribes when `secretName` is not set. */
export function defaultRemoteClusterSecret(rerc: string): string {
  return `redis-enterprise-${rerc}`;
}

/**
 * Reads the RERCs the Active-Active databases name, and each remote one's RS version. Nothing
 * is read when there is no Active-Active database. Never throws: a failed read is an `error`
 * on the participant (and a line in `readErrors`), which holds its databases back.
 */
export async function readRemoteClusters(input: {
  kube: ClusterReads;
  namespace: string;
  /** `credentialSecretName`: the local REC's admin Secret, which never goes to a participant. */
  cluster: { name: string; namespace: string; credentialSecretName?: string };
  activeActive: readonly KubeObject[];
  reader: RemoteClusterReader | undefined;
  readErrors: string[];
}): Promise<RemoteClusterSnapshot[]> {
  const named = new Set(
    input.activeActive.flatMap((object) =>
      participantNames(object).filter((name) => name !== input.cluster.name),
    ),
  );
  if (input.activeActive.length === 0) return [];
  let objects: KubeObject[];
  try {
    objects = await input.kube.listCustomObjects(REMOTE_CLUSTER_RESOURCE, input.namespace);
  } catch (error) {
    input.readErrors.push(
      `list ${REMOTE_CLUSTER_RESOURCE.plural} -n ${input.namespace}: ${describeKubeError(error).message}`,
    );
    return [...named].map((name) => ({
      name,
      namespace: input.namespace,
      local: false,
      error: 'its RedisEnterpriseRemoteCluster could not be read',
    }));
  }
  return Promise.all(
    objects
      .filter((object) => named.has(object.metadata?.name ?? '') || isLocal(object, input.cluster))
      .map((object) => readOne(object, input)),
  );
}

/** The names in `spec.participatingClusters` of one REAADB object. */
export function participantNames(object: KubeObject): string[] {
  const list = getPath(object, ['spec', 'participatingClusters']);
  return (Array.isArray(list) ? list : [])
    .map((entry) => str(getPath(entry, ['name'])))
    .filter((name): name is string => name !== undefined && name !== '');
}

function isLocal(object: KubeObject, cluster: { name: string; namespace: string }): boolean {
  const local = getPath(object, ['status', 'local']);
  if (typeof local === 'boolean') return local;
  return (
    str(getPath(object, ['spec', 'recName'])) === cluster.name &&
    str(getPath(object, ['spec', 'recNamespace'])) === cluster.namespace
  );
}

async function readOne(
  object: KubeObject,
  input: Parameters<typeof readRemoteClusters>[0],
): Promise<RemoteClusterSnapshot> {
  const name = object.metadata?.name ?? '';
  const namespace = object.metadata?.namespace ?? input.namespace;
  const local = isLocal(object, input.cluster);
  if (local) {
    const host = str(getPath(object, ['spec', 'apiFqdnUrl']));
    const port = num(getPath(object, ['spec', 'apiPort'])) ?? 443;
    return { name, namespace, local, apiUrl: host ? `https://${host}:${port}` : undefined };
  }
  const endpoint = participantEndpoint(object);
  if (typeof endpoint === 'string') return { name, namespace, local, error: endpoint };
  const apiUrl = `https://${endpoint.host}:${endpoint.port}`;
  const secret = participantSecret(object, name, input.cluster);
  if (typeof secret !== 'string') return { name, namespace, local, apiUrl, error: secret.refused };
  const base: RemoteClusterSnapshot = { name, namespace, local, apiUrl, secretName: secret };
  if (!input.reader) return { ...base, error: 'no management API connection was configured' };
  const credentials = await readCredentials(input.kube, namespace, secret);
  if (typeof credentials === 'string') return { ...base, error: credentials };
  const sent = { ...base, credentialsSentTo: `${endpoint.host}:${endpoint.port}` };
  try {
    const { rsVersion } = await input.reader({ name, apiUrl, credentials });
    return { ...sent, rsVersion };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return error instanceof ParticipantUnreachableError
      ? { ...sent, error: message, unreachable: true }
      : { ...sent, error: message };
  }
}

/** A DNS name: labels of letters, digits and inner hyphens, dot-separated, at most 253 characters. */
const HOST_NAME =
  /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * The participant's API host and port, from `spec.apiFqdnUrl` and `spec.apiPort` only, or why
 * the RERC names none ctl will send credentials to.
 */
export function participantEndpoint(object: KubeObject): { host: string; port: number } | string {
  const raw = getPath(object, ['spec', 'apiFqdnUrl']);
  const host = str(raw);
  if (!host) return 'its RERC names no spec.apiFqdnUrl';
  const refuse = (why: string): string =>
    `its spec.apiFqdnUrl ${JSON.stringify(host)} ${why}; ctl sends no credentials to it. Set spec.apiFqdnUrl to the participant's API host name and spec.apiPort to its port`;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host))
    return refuse('has a scheme: it is a host name, and ctl always uses https');
  if (host.includes('@')) return refuse('holds user information (`@`)');
  if (/[/?#\\]/.test(host)) return refuse('holds a path, a query or a fragment');
  if (host.includes(':') || host.startsWith('['))
    return refuse('names a port or an IPv6 address: the port comes from spec.apiPort only');
  if (/^\d+(?:\.\d+){3}\.?$/.test(host) || /(?:^|\.)\d+\.?$/.test(host))
    return refuse("is an IP address: the field is the participant's fully qualified domain name");
  if (!HOST_NAME.test(host)) return refuse('is not a host name');
  const rawPort = getPath(object, ['spec', 'apiPort']);
  if (rawPort === undefined || rawPort === null) return { host, port: 443 };
  const port = num(rawPort);
  if (port === undefined || !Number.isInteger(port) || port < 1 || port > 65535)
    return `its spec.apiPort ${JSON.stringify(rawPort)} is not a port (1-65535); ctl sends no credentials`;
  return { host, port };
}

/**
 * The Secret whose credentials may go to this participant: `redis-enterprise-<RERC name>`, the
 * only name the RERC documentation allows, and never the local REC's own admin Secret.
 */
export function participantSecret(
  object: KubeObject,
  name: string,
  cluster: { name: string; credentialSecretName?: string },
): string | { refused: string } {
  const documented = defaultRemoteClusterSecret(name);
  const given = str(getPath(object, ['spec', 'secretName'])) ?? documented;
  const localSecret = cluster.credentialSecretName ?? cluster.name;
  if (given !== documented) {
    const own = given === localSecret ? ", and it is this cluster's own admin Secret" : '';
    return {
      refused: `its spec.secretName ${JSON.stringify(given)} is not ${documented}, the name the RedisEnterpriseRemoteCluster documentation requires${own}; ctl sends no credentials. Put the participant's credentials in Secret ${documented} and set spec.secretName to it`,
    };
  }
  if (documented === localSecret) {
    return {
      refused: `its Secret ${documented} is this cluster's own admin Secret; ctl never sends the local credentials to another cluster`,
    };
  }
  return documented;
}

/** The Secret's `username` and `password`, or why they cannot be had. */
async function readCredentials(
  kube: ClusterReads,
  namespace: string,
  secretName: string,
): Promise<RemoteClusterCredentials | string> {
  let secret: KubeObject | undefined;
  try {
    secret = await kube.getSecret(namespace, secretName);
  } catch (error) {
    return `its Secret ${secretName} could not be read: ${describeKubeError(error).message}`;
  }
  if (!secret) return `its Secret ${secretName} does not exist`;
  const decode = (key: string): string | undefined => {
    const value = str(getPath(secret, ['data', key]));
    return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
  };
  const username = decode('username');
  const password = decode('password');
  if (!username || !password) return `its Secret ${secretName} has no username and password`;
  return { username, password };
}

/** One remote participant in the plan: where its credentials went, or why none were sent. */
export interface PlanParticipant {
  name: string;
  /** The Secret whose credentials were sent. */
  secret?: string | undefined;
  /** `<host>:<port>` they were sent to. */
  sentTo?: string | undefined;
  /** Why nothing was sent or read (refused, unreachable, no Secret). */
  error?: string | undefined;
}

/** The remote participants as the plan shows them; undefined when there are none. */
export function planParticipants(snapshot: {
  remoteClusters?: readonly RemoteClusterSnapshot[] | undefined;
}): PlanParticipant[] | undefined {
  const remotes = (snapshot.remoteClusters ?? []).filter((remote) => !remote.local);
  if (remotes.length === 0) return undefined;
  return remotes.map((remote) => ({
    name: remote.name,
    ...(remote.credentialsSentTo ? { secret: remote.secretName, sentTo: remote.credentialsSentTo } : {}),
    ...(remote.error ? { error: remote.error } : {}),
  }));
}

/** The plan's lines about the participants' credentials, for people. */
export function describeParticipants(participants: readonly PlanParticipant[]): string[] {
  return participants.map((participant) =>
    participant.sentTo
      ? `participant ${participant.name}: credentials of Secret ${participant.secret ?? '?'} sent to ${participant.sentTo}${participant.error ? ` (${participant.error})` : ''}`
      : `participant ${participant.name}: no credentials sent (${participant.error ?? 'not read'})`,
  );
}
