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
  /** `https://<apiFqdnUrl>:<apiPort>`; undefined when the RERC names no host. */
  apiUrl?: string | undefined;
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
  cluster: { name: string; namespace: string };
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
  const host = str(getPath(object, ['spec', 'apiFqdnUrl']));
  const port = num(getPath(object, ['spec', 'apiPort'])) ?? 443;
  const apiUrl = host ? `https://${host}:${port}` : undefined;
  const base: RemoteClusterSnapshot = { name, namespace, local: isLocal(object, input.cluster), apiUrl };
  if (base.local) return base;
  if (!apiUrl) return { ...base, error: 'its RERC names no spec.apiFqdnUrl' };
  if (!input.reader) return { ...base, error: 'no management API connection was configured' };
  const secretName = str(getPath(object, ['spec', 'secretName'])) ?? defaultRemoteClusterSecret(name);
  const credentials = await readCredentials(input.kube, namespace, secretName);
  if (typeof credentials === 'string') return { ...base, error: credentials };
  try {
    const { rsVersion } = await input.reader({ name, apiUrl, credentials });
    return { ...base, rsVersion };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return error instanceof ParticipantUnreachableError
      ? { ...base, error: message, unreachable: true }
      : { ...base, error: message };
  }
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
