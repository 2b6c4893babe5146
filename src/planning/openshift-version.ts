/**
 * The OpenShift version of a cluster, for check platform-supported: the ClusterVersion
 * `version` (config.openshift.io/v1), `status.desired.version`, else the newest completed
 * entry of `status.history` (openshift/api config/v1 types_cluster_version.go). A read-only
 * GET that many users may not make: any failure (403, 404, no such API) is "unknown", which the
 * check reports as a warning, never a crash and never a read error that would alarm.
 */

import { CLUSTER_VERSION_RESOURCE, type ClusterReads } from '../kube/reads.js';

export async function readOpenshiftVersion(kube: ClusterReads): Promise<string | undefined> {
  try {
    const object = (await kube.getClusterCustomObject(CLUSTER_VERSION_RESOURCE, 'version')) as
      | { status?: { desired?: { version?: unknown }; history?: { state?: unknown; version?: unknown }[] } }
      | undefined;
    const desired = object?.status?.desired?.version;
    if (typeof desired === 'string' && desired) return desired;
    const completed = (object?.status?.history ?? []).find((h) => h.state === 'Completed')?.version;
    return typeof completed === 'string' && completed ? completed : undefined;
  } catch {
    return undefined;
  }
}
