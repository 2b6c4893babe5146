import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/types.js';
import { operatorAtLeast } from '../world/versions.js';
import { ownerLabels, ownerReference } from './objects.js';

/**
 * What OLM makes of the certified CSV's `spec.install.spec.permissions` entry for service
 * account `rec` (the cluster's pods): a Role with the entry's rules and a RoleBinding of the same
 * generated name, `<csv>-<serviceAccount>-<hash>`, in the CSV's namespace, labelled and owned by
 * the CSV (operator-framework/operator-lifecycle-manager
 * `pkg/controller/registry/resolver/rbac.go`, RBACForClusterServiceVersion). The entry grants
 * `use` of SCCs by name: redis-enterprise-scc and redis-enterprise-scc-v2 in the 7.4.6 CSVs,
 * redis-enterprise-scc-v2 and nonroot-v2 in the 7.22 ones (certified-operators
 * `operators/redis-enterprise-operator-cert/7.4.6-2.0` and `7.22.2-43.0`; where between the two
 * the list changed is not looked up: the 7.22 list from 7.22.0 on is ours). The operator's own
 * service account's entry is not modelled: only `rec`'s decides SCC admission of the pods.
 */

export const CSV_POD_SERVICE_ACCOUNT = 'rec';
const RBAC_API = 'rbac.authorization.k8s.io/v1';

function sccNamesOf(version: string): string[] {
  return operatorAtLeast(version, '7.22.0-0')
    ? ['redis-enterprise-scc-v2', 'nonroot-v2']
    : ['redis-enterprise-scc', 'redis-enterprise-scc-v2'];
}

/** OLM's generated name: base, '-', a hash of what it was made from, at most 63 characters. */
function generatedName(base: string, from: unknown): string {
  const hash = createHash('sha256').update(JSON.stringify(from)).digest('hex').slice(0, 10);
  const room = 63 - hash.length - 1;
  return `${base.length > room ? base.slice(0, room) : base}-${hash}`;
}

/** The Role and RoleBinding OLM installs for `csv` (an object with its uid) of operator `version`. */
export function csvPodPermissions(csv: KubeObject, version: string, namespace: string): KubeObject[] {
  const csvName = csv.metadata.name ?? '';
  const rules = [
    {
      apiGroups: ['security.openshift.io'],
      resourceNames: sccNamesOf(version),
      resources: ['securitycontextconstraints'],
      verbs: ['use'],
    },
  ];
  const name = generatedName(`${csvName}-${CSV_POD_SERVICE_ACCOUNT}`, [csvName, rules]);
  const metadata = {
    name,
    namespace,
    labels: ownerLabels(csvName, namespace),
    ownerReferences: [ownerReference(csv)],
  };
  return [
    { apiVersion: RBAC_API, kind: 'Role', metadata, rules },
    {
      apiVersion: RBAC_API,
      kind: 'RoleBinding',
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: CSV_POD_SERVICE_ACCOUNT, namespace }],
    },
  ];
}
