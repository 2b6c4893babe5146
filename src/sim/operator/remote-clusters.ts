/**
 * The RedisEnterpriseRemoteCluster (RERC) resources of a scenario with `remoteClusters:`, as an
 * Active-Active setup leaves them (DOCS `operate/kubernetes/active-active/create-reaadb.md`:
 * one RERC per participating cluster, this cluster's own included, each with a Secret
 * `redis-enterprise-<RERC name>` holding `username` and `password`, reference
 * `example-rerc-v1alpha1.yaml`). This cluster's RERC is named after the REC, so the REAADB's
 * `participatingClusters` name it as before; `status.local` tells it apart.
 */

import { remoteClusterDefinition } from '../crds.js';
import type { KubeStore } from '../kube/store.js';
import type { KubeObject } from '../kube/types.js';
import type { RemoteClusterEndpoint } from '../rest/remote-clusters.js';
import type { Scenario } from '../scenario.js';
import { clusterCredentialsSecret, DATABASE_API_VERSION } from './cluster-objects.js';
import { KubeAccess } from './kube-access.js';

export const REMOTE_CLUSTER_KIND = 'RedisEnterpriseRemoteCluster';
/** The port of a REC's API behind its ingress or route (the upstream example's `apiPort`). */
const LOCAL_API_PORT = 443;

/** The Secret name the RERC CRD asks for: `redis-enterprise-<RERC name>`. */
export function remoteClusterSecretName(rerc: string): string {
  return `redis-enterprise-${rerc}`;
}

/** Seeds the RERC CRD, and with remotes this cluster's RERC and one per remote, each with its Secret. */
export function seedRemoteClusters(
  store: KubeStore,
  scenario: Scenario,
  endpoints: readonly RemoteClusterEndpoint[],
  localUser: { username: string; password: string },
): void {
  const kube = new KubeAccess(store);
  // The CRD is there on every cluster, as the operator's bundle installs it; the objects only with remotes.
  kube.ensure(remoteClusterDefinition() as KubeObject);
  if (endpoints.length === 0) return;
  const { namespace, cluster } = scenario;
  const local = {
    name: cluster.name,
    recName: cluster.name,
    recNamespace: namespace,
    apiFqdnUrl: `api-${cluster.name}-${namespace}.example.com`,
    apiPort: LOCAL_API_PORT,
    user: localUser,
  };
  const remotes = endpoints.map((endpoint) => ({
    name: endpoint.name,
    recName: 'rec',
    recNamespace: namespace,
    apiFqdnUrl: endpoint.host,
    apiPort: endpoint.port,
    user: { username: endpoint.username, password: endpoint.password },
  }));
  for (const [index, rerc] of [local, ...remotes].entries()) {
    const secretName = remoteClusterSecretName(rerc.name);
    const secret = clusterCredentialsSecret(secretName, namespace, rerc.user);
    kube.ensure({
      ...secret,
      metadata: { name: secretName, namespace, labels: { app: 'redis-enterprise' } },
    });
    const created = kube.ensure({
      apiVersion: DATABASE_API_VERSION,
      kind: REMOTE_CLUSTER_KIND,
      metadata: { name: rerc.name, namespace, labels: { app: 'redis-enterprise' } },
      spec: {
        recName: rerc.recName,
        recNamespace: rerc.recNamespace,
        apiFqdnUrl: rerc.apiFqdnUrl,
        apiPort: rerc.apiPort,
        dbFqdnSuffix: `-db-${rerc.name}-${namespace}.example.com`,
        secretName,
      },
    });
    kube.patchStatus(created, {
      local: index === 0,
      status: 'Active',
      specStatus: 'Valid',
      observedGeneration: 1,
    });
  }
}
