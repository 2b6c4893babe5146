/**
 * `olm-csv-healthy`: under OLM, no ClusterServiceVersion in the operator's namespace is Failed
 * for good. Reads the namespace's CSVs (phase, reason, message) from the snapshot.
 *
 * OLM leaves a CSV Failed while its cause stays, and ctl takes the reasons outside
 * src/planning/olm-csv-failures.ts as causes that stay (InvalidInstallStrategy of a bundle whose
 * strategy cannot be parsed fails OLM's check on every sync; that file says where this is cautious). Such a CSV is usually the last upgrade's
 * target: its InstallPlan completed, so the Subscription records it as installed (the catalog
 * operator's ensureSubscriptionCSVState) while the operator Deployment still runs the CSV before
 * it. OLM then resolves from the failed CSV, and a run to the same bundle fails the same way: the
 * plan fails, naming the CSV, OLM's reason and message, and how to look and clean up. A CSV that
 * is Failed on a reason OLM retries (InstallCheckFailed while a slow Deployment comes up) warns.
 * Sources: operator-framework/operator-lifecycle-manager `pkg/controller/operators/olm/operator.go`
 * (transitionCSVState), operator-framework/api `clusterserviceversion_types.go` (reasons).
 *
 * Why the message says the install "does not get past" such a reason "by itself", not that OLM
 * does not retry it (operator-lifecycle-manager 992bb097, pkg/controller/operators/olm/operator.go):
 * transitionCSVState skips only a CSV Failed with InstallComponentFailedNoRetry (syncObject puts
 * even that one back to Pending on an RBAC change); every other Failed CSV goes through its
 * `case v1alpha1.CSVPhaseFailed` on each sync, where parseStrategiesAndUpdateStatus fails a strategy
 * that cannot be parsed again, requirementAndPermissionStatus keeps a missing permission or an
 * owner conflict at InvalidInstallStrategy until it is fixed, and then updateInstallStatus moves
 * it on to Succeeded. So OLM does retry: the fix is a person's, and OLM goes on after it.
 */

import { olmRetriesFailure } from '../olm-csv-failures.js';
import { type Check, type CheckInput, fail, type Outcome, pass, warn } from './check.js';
import { oc } from '../equivalent-commands.js';

function describe(csv: { name: string; reason: string; message: string }): string {
  return `${csv.name} (${csv.reason || 'no reason'}${csv.message ? `: ${csv.message}` : ''})`;
}

function checkOlmCsvHealthy({ snapshot, resolved }: CheckInput): Outcome {
  const olm = snapshot.olm;
  if (resolved.method !== 'olm' || !olm) return pass('the operator is not upgraded through OLM');
  const namespace = snapshot.operator?.namespace ?? snapshot.namespace;
  if (!olm.failedCsvs)
    return warn(
      `the ClusterServiceVersions of namespace ${namespace} could not be listed: ctl cannot tell whether an earlier install failed`,
      `Check them: ${oc(snapshot.kubeTarget, 'get', 'csv', '-n', namespace)}; ctl needs list on clusterserviceversions.operators.coreos.com in ${namespace}.`,
    );
  const final = olm.failedCsvs.filter((csv) => !olmRetriesFailure(csv.reason));
  if (final.length > 0) {
    const first = final[0]!;
    return fail(
      `ClusterServiceVersion ${final.map(describe).join(', ')} is Failed, and the install does not get past ${first.reason || 'it'} by itself: OLM checks it again on each sync and fails it the same way until its cause is fixed, installing nothing more for this Subscription meanwhile, so the operator step would stop the same way`,
      `Look at why: ${oc(snapshot.kubeTarget, 'describe', 'csv', first.name, '-n', namespace)} (the bundle's install strategy, or a permission or owner it names). The operator keeps running from ${olm.csv}. Fix that cause, and OLM retries the install; or remove the failed install (${oc(snapshot.kubeTarget, 'delete', 'csv', first.name, '-n', namespace)}) and plan a target whose bundle installs, or ask Redis support about ${first.name}.`,
    );
  }
  if (olm.failedCsvs.length > 0)
    return warn(
      `ClusterServiceVersion ${olm.failedCsvs.map(describe).join(', ')} is Failed on a reason OLM retries`,
      `Watch it: ${oc(snapshot.kubeTarget, 'get', 'csv', '-n', namespace, '-w')}; OLM moves it on once the cause is gone.`,
    );
  return pass(`no ClusterServiceVersion in ${namespace} is Failed`);
}

export const olmCsvHealthyCheck = {
  id: 'olm-csv-healthy',
  run: checkOlmCsvHealthy,
} as const satisfies Check;
