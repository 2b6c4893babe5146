/**
 * What OLM does with a ClusterServiceVersion it left in phase Failed: retry it on its next sync,
 * or leave it Failed for good. Read by the plan (check olm-csv-healthy: a CSV failed for good
 * stops every later install of the Subscription) and by the run (the operator step stops at once
 * on a reason OLM does not retry, and waits up to its stall timeout on one it does).
 */

/**
 * The reasons of a Failed CSV that OLM's operator re-evaluates on its next sync, moving the CSV
 * back to Pending or on to Succeeded once the cause is gone (operator-framework/
 * operator-lifecycle-manager `pkg/controller/operators/olm/operator.go`, transitionCSVState,
 * case CSVPhaseFailed: the OperatorGroup reasons, requirements, APIService resources, and
 * updateInstallStatus, which sets Succeeded as soon as the install strategy checks out; reason
 * names: operator-framework/api `clusterserviceversion_types.go`). Any other reason (an invalid
 * install strategy or webhook description, an owner conflict) stays Failed.
 */
const OLM_RETRIED_FAILURES: ReadonlySet<string> = new Set([
  'InstallCheckFailed',
  'InstallComponentFailed',
  'ComponentUnhealthy',
  'ComponentFailed',
  'NeedsReinstall',
  'RequirementsNotMet',
  'APIServiceInstallFailed',
  'APIServiceResourceIssue',
  'APIServiceResourcesNeedReinstall',
  'NoOperatorGroup',
  'TooManyOperatorGroups',
  'NoTargetNamespaces',
  'UnsupportedOperatorGroup',
  'InterOperatorGroupOwnerConflict',
  'CannotModifyStaticOperatorGroupProvidedAPIs',
]);

export function olmRetriesFailure(reason: string): boolean {
  return OLM_RETRIED_FAILURES.has(reason);
}
