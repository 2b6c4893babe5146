/**
 * `olm-cluster-name`: under OLM, the cluster is named rec (or its pods get their SCC another way):
 * reads the method and the cluster's name. Another name warns.
 */

import { SCC_NAME } from '../snapshot.js';
import { type Check, type CheckInput, type Outcome, pass, warn } from './check.js';
import { oc } from '../equivalent-commands.js';

/**
 * OLM deployments "require" the cluster to be named `rec` (RED-39825; redis-facts.md §11, §12):
 * the certified CSV grants the SCC only to service account `rec`, and its own description says
 * what another name needs: "Changing the name of the Redis Enterprise Cluster in the spec from
 * the default requires running commands to grant permissions to the pods: oc adm policy
 * add-scc-to-user redis-enterprise-scc-v2 system:serviceaccount:<project>:<name of REC>"
 * (certified-operators operators/redis-enterprise-operator-cert/7.22.0-11.2, CSV description).
 * Such a cluster runs, so it is a warning; ctl's security-context step binds the SCC to the
 * cluster's service account whenever the target still runs privileged pods.
 */
function checkOlmClusterName({ snapshot, resolved }: CheckInput): Outcome {
  if (resolved.method !== 'olm') return pass('the operator is not installed by OLM');
  const name = snapshot.cluster?.name;
  if (!name || name === 'rec') return pass('the cluster is named rec, as OLM installs expect');
  return warn(
    `the operator is installed by OLM, which expects the cluster to be named rec (RED-39825); this cluster is ${name}: its pods need ${SCC_NAME} granted to service account ${name}, which OLM grants only to rec`,
    snapshot.platform === 'openshift'
      ? `ctl's security-context step binds it when the target needs it; by hand: ${oc(snapshot.kubeTarget, 'adm', 'policy', 'add-scc-to-user', SCC_NAME, `system:serviceaccount:${snapshot.namespace}:${name}`)}`
      : '',
  );
}

export const olmClusterNameCheck = {
  id: 'olm-cluster-name',
  run: checkOlmClusterName,
} as const satisfies Check;
