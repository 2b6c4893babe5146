/**
 * The few facts `ctl sim capture` needs that the planner's snapshot does not keep, read (GET
 * and LIST only) after it: how the redb-role RoleBindings point at their role, and on
 * OpenShift how the SCC is bound and to whom. A read that fails leaves the simulator's default
 * and says so in `notes`.
 */

import { array, record, str } from '../json-read.js';
import { describeKubeError } from '../kube/errors.js';
import type { ObjectClient } from '../kube/objects.js';
import type { CaptureExtras } from './scenario-capture.js';
import { SCC_NAME, type Snapshot } from './snapshot.js';

const RBAC_API = 'rbac.authorization.k8s.io/v1';
/** The bundle's RoleBinding in each watched namespace (redis-facts.md §3). */
const REDB_ROLE_BINDING = 'redb-role';
/** What `oc adm policy add-scc-to-user <scc> -z <sa>` creates (openshift/oc modify_scc.go). */
const SCC_ROLE_BINDING = `system:openshift:scc:${SCC_NAME}`;

export async function readCaptureExtras(
  objects: ObjectClient,
  snapshot: Snapshot,
  statefulSetStrategy: string | undefined,
): Promise<{ extras: CaptureExtras; notes: string[] }> {
  const notes: string[] = [];
  const extras: CaptureExtras = { statefulSetStrategy, sccSharedWith: [] };
  const guard = async <T>(what: string, read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (error) {
      const info = describeKubeError(error);
      if (info.code !== 404) notes.push(`${what}: ${info.message} (left at the simulator's default)`);
      return undefined;
    }
  };

  const watched = snapshot.watchedNamespaces.find((ns) => ns !== snapshot.namespace);
  if (watched) {
    const binding = await guard(`get rolebinding ${REDB_ROLE_BINDING} -n ${watched}`, () =>
      objects.read({
        apiVersion: RBAC_API,
        kind: 'RoleBinding',
        name: REDB_ROLE_BINDING,
        namespace: watched,
      }),
    );
    const kind = str(record(binding?.roleRef).kind);
    if (kind === 'ClusterRole' || kind === 'Role') extras.roleRefKind = kind;
  }

  const cluster = snapshot.cluster;
  if (snapshot.platform === 'openshift' && cluster) {
    const account = cluster.serviceAccountName;
    const users = snapshot.scc?.users ?? [];
    const userPattern = new RegExp(`^system:serviceaccount:([^:]+):${escapeRegExp(account)}$`);
    const byUsers = users.flatMap((user) => userPattern.exec(user)?.[1] ?? []);
    if (byUsers.includes(snapshot.namespace)) {
      extras.sccBinding = 'users';
      extras.sccSharedWith = byUsers.filter((ns) => ns !== snapshot.namespace);
    } else {
      const bindings =
        (await guard(`list rolebindings in all namespaces`, () => objects.list(RBAC_API, 'RoleBinding'))) ??
        [];
      const boundIn = bindings
        .filter((b) => b.metadata?.name === SCC_ROLE_BINDING)
        .filter((b) =>
          array(b.subjects)
            .map(record)
            .some((s) => s.kind === 'ServiceAccount' && s.name === account),
        )
        .map((b) => b.metadata?.namespace ?? '');
      if (boundIn.includes(snapshot.namespace)) {
        extras.sccBinding = 'rbac';
        extras.sccSharedWith = [...new Set(boundIn.filter((ns) => ns && ns !== snapshot.namespace))];
      }
    }
  }
  return { extras, notes };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
