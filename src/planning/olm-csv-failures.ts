/**
 * What OLM does with a ClusterServiceVersion it left in phase Failed: retry it on its next sync,
 * or leave it Failed for good. Read by the plan (check olm-csv-healthy: a CSV failed for good
 * stops every later install of the Subscription) and by the run (the operator step stops at once
 * on a reason the install does not get past by itself, and waits up to its stall timeout on one it does).
 */

/**
 * The reasons of a Failed CSV on which OLM's next sync can move it on once the cause is gone:
 * back to Pending (requirements, OperatorGroup) or on to Succeeded (updateInstallStatus, once the
 * install strategy checks out). operator-framework/operator-lifecycle-manager
 * `pkg/controller/operators/olm/operator.go`, transitionCSVState, case CSVPhaseFailed; reason
 * names: operator-framework/api `clusterserviceversion_types.go`.
 *
 * OLM itself re-checks every Failed CSV on each sync but InstallComponentFailedNoRetry; what
 * keeps one Failed is a cause that stays. ctl takes the other reasons as final, the cautious
 * reading: InvalidInstallStrategy from a bundle whose strategy cannot be parsed fails the same
 * check on every sync (the case the plan's check and the operator step meet after an upgrade);
 * the same reason set by a missing permission, or an owner conflict, clears only once a person
 * fixes its cause, which the check's fix tells them to look at.
 */
const OLM_RETRIED_FAILURES: ReadonlySet<string> = new Set([
  'InstallCheckFailed',
  'InstallComponentFailed',
  'ComponentUnhealthy',
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
