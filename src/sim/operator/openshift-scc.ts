import { SCC_API_VERSION, SCC_KIND, SCC_NAME, sccManifest } from '../artifacts/openshift-scc.js';
import type { KubeObject } from '../kube/types.js';
import type { Scenario } from '../scenario.js';
import type { KubeAccess } from './kube-access.js';

/**
 * The OpenShift security objects of a scenario, as a finished install left them:
 *
 * - OpenShift's own default SCC `restricted-v2`, usable by every authenticated user through
 *   ClusterRole + ClusterRoleBinding `system:openshift:scc:restricted-v2` (OpenShift 4.11+,
 *   "Managing security context constraints": restricted-v2 is the default for new pods).
 * - `redis-enterprise-scc-v2` as `openshift/scc.yaml` of `openshift.sccVersion` defines it
 *   (unless the helm chart installed it: sccOwner helm), bound to the cluster's service account
 *   of the scenario namespace and of every `openshift.sharedWith` namespace, either in the SCC's
 *   `users` or the way `oc adm policy add-scc-to-user <scc> system:serviceaccount:<ns>:<sa>`
 *   does it: ClusterRole `system:openshift:scc:<scc>` (verb use on the SCC by resourceName) and
 *   a RoleBinding of that name in the namespace (openshift/oc
 *   `pkg/cli/admin/policy/modify_scc.go`; redis-facts.md §12).
 */

const RBAC_API = 'rbac.authorization.k8s.io/v1';
export const RESTRICTED_V2 = 'restricted-v2';

export function sccRoleName(scc: string): string {
  return `system:openshift:scc:${scc}`;
}

export function seedOpenShiftSecurity(kube: KubeAccess, scenario: Scenario): void {
  if (!kube.type(SCC_API_VERSION, SCC_KIND)) return;
  seedDefaultSccs(kube);
  const { openshift, cluster } = scenario;
  if (openshift.sccOwner === 'bundle') {
    kube.ensure(sccManifest(openshift.sccVersion ?? scenario.operator.version) as KubeObject);
  }
  for (const namespace of [scenario.namespace, ...openshift.sharedWith]) {
    kube.ensure({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    kube.ensure({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: cluster.name, namespace, labels: { app: 'redis-enterprise' } },
    });
    if (openshift.sccBinding === 'rbac') bindByRbac(kube, SCC_NAME, namespace, cluster.name);
    else bindByUsers(kube, SCC_NAME, `system:serviceaccount:${namespace}:${cluster.name}`);
  }
}

function bindByUsers(kube: KubeAccess, sccName: string, user: string): void {
  const scc = kube.get(SCC_API_VERSION, SCC_KIND, undefined, sccName);
  if (!scc) return;
  const users = Array.isArray(scc.users) ? (scc.users as string[]) : [];
  if (!users.includes(user)) kube.patch(scc, { users: [...users, user] });
}

/** What `oc adm policy add-scc-to-user <scc> -z <sa> -n <namespace>` creates. */
function bindByRbac(kube: KubeAccess, sccName: string, namespace: string, serviceAccount: string): void {
  const name = sccRoleName(sccName);
  kube.ensure(useSccClusterRole(sccName));
  const existing = kube.get(RBAC_API, 'RoleBinding', namespace, name);
  const subject = { kind: 'ServiceAccount', name: serviceAccount, namespace };
  if (!existing) {
    kube.create({
      apiVersion: RBAC_API,
      kind: 'RoleBinding',
      metadata: { name, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [subject],
    });
    return;
  }
  const subjects = Array.isArray(existing.subjects) ? (existing.subjects as Record<string, unknown>[]) : [];
  if (!subjects.some((s) => s.kind === 'ServiceAccount' && s.name === serviceAccount)) {
    kube.patch(existing, { subjects: [...subjects, subject] });
  }
}

function useSccClusterRole(sccName: string): KubeObject {
  return {
    apiVersion: RBAC_API,
    kind: 'ClusterRole',
    metadata: { name: sccRoleName(sccName) },
    rules: [
      {
        apiGroups: ['security.openshift.io'],
        resources: ['securitycontextconstraints'],
        resourceNames: [sccName],
        verbs: ['use'],
      },
    ],
  };
}

/**
 * restricted-v2 as OpenShift 4.11+ ships it (`oc get scc restricted-v2 -o yaml`): no added
 * capabilities but NET_BIND_SERVICE, all others dropped, no privilege escalation, a UID from
 * the namespace's range. Granted to `system:authenticated` by RBAC, not by its `groups`.
 */
function seedDefaultSccs(kube: KubeAccess): void {
  kube.ensure({
    apiVersion: SCC_API_VERSION,
    kind: SCC_KIND,
    metadata: {
      name: RESTRICTED_V2,
      annotations: {
        'kubernetes.io/description':
          'restricted-v2 denies access to all host features and requires pods to be run with a UID, and SELinux context that are allocated to the namespace.',
      },
    },
    allowHostDirVolumePlugin: false,
    allowHostIPC: false,
    allowHostNetwork: false,
    allowHostPID: false,
    allowHostPorts: false,
    allowPrivilegeEscalation: false,
    allowPrivilegedContainer: false,
    allowedCapabilities: ['NET_BIND_SERVICE'],
    defaultAddCapabilities: null,
    requiredDropCapabilities: ['ALL'],
    fsGroup: { type: 'MustRunAs' },
    groups: [],
    priority: null,
    readOnlyRootFilesystem: false,
    runAsUser: { type: 'MustRunAsRange' },
    seLinuxContext: { type: 'MustRunAs' },
    seccompProfiles: ['runtime/default'],
    supplementalGroups: { type: 'RunAsAny' },
    users: [],
    volumes: [
      'configMap',
      'csi',
      'downwardAPI',
      'emptyDir',
      'ephemeral',
      'persistentVolumeClaim',
      'projected',
      'secret',
    ],
  });
  kube.ensure(useSccClusterRole(RESTRICTED_V2));
  kube.ensure({
    apiVersion: RBAC_API,
    kind: 'ClusterRoleBinding',
    metadata: { name: sccRoleName(RESTRICTED_V2) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: sccRoleName(RESTRICTED_V2) },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }],
  });
}
