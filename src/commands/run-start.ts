import { UsageError } from '../errors.js';
import type { CtlTarget } from '../planning/equivalent-commands.js';
import type { Plan } from '../planning/plan.js';
import { runsStep } from '../planning/step-selection.js';
import type { Snapshot } from '../planning/snapshot.js';
import type { Target } from '../planning/target.js';
import type { UpgradeState } from '../run/state.js';
import { blockedError, planFailure } from './plan.js';
import type { RunCommandInput } from './run-input.js';
import type { UpgradeSession } from './session.js';

// Whether a run may start: before the cluster is read (the flags, a confirmation nobody could
// give, the target), and after it was planned (a stale saved plan, no cluster, failed checks).

/**
 * The target of the run, --to or the saved plan's (--plan, loaded here), once the flags are
 * known to allow a run at all; usage errors (exit 2) before anything is read.
 */
export async function decideTarget(
  input: RunCommandInput,
): Promise<{ target: Target; savedPlan: Plan | undefined }> {
  if (input.stateStore === 'configmap' && input.statePath) {
    throw new UsageError('--state names a file, but --state-store is configmap', {
      hint: 'Drop --state (the state goes to a ConfigMap in the cluster), or use --state-store file.',
    });
  }
  if (!input.yes && !input.dryRun && !input.io.isStdinTTY) {
    throw new UsageError('stdin is not a terminal, so ctl cannot ask for confirmation', {
      hint: 'Pass --yes to run without a prompt (as in CI), or --dry-run to see what would change.',
    });
  }
  let savedPlan: Plan | undefined;
  let target = input.target;
  if (input.planFile) {
    const saved = await import('../planning/saved-plan.js');
    // The kubeconfig, context, -n and --cluster ctl was given: the hints' plan commands name them.
    const kubeTarget = await givenCtlTarget(input);
    savedPlan = saved.withBundleCredentials(
      await saved.loadSavedPlan(input.planFile, kubeTarget),
      input.env.CTL_BUNDLE,
      input.planFile,
    );
    target = saved.targetOfSavedPlan(savedPlan, kubeTarget);
    saved.checkSavedPlanStore(savedPlan, input.planFile, input.stateStore ?? 'file', kubeTarget);
  }
  if (!target)
    throw new UsageError('--to is required: the operator version to upgrade to', {
      hint: 'Pass e.g. --to 7.8.2-6, or --plan FILE; ctl upgrade plan (without --to) lists the targets this cluster can reach.',
    });
  return { target, savedPlan };
}

/** The cluster as given to this run (no read): the kubeconfig, context, `-n` and `--cluster`. */
async function givenCtlTarget(input: RunCommandInput): Promise<CtlTarget> {
  const { chosenKubeTarget } = await import('../kube/client.js');
  const { ctlTarget } = await import('../planning/equivalent-commands.js');
  return ctlTarget(chosenKubeTarget({ ...input.globals, env: input.env }), input.globals);
}

/**
 * Whether the plan lets the run start: a saved plan still describes the cluster, or the
 * cluster changed by the run that plan started, which this run resumes (else exit 7 with the
 * new plan to make), the cluster exists, and its checks let it go on; returns the cluster, and
 * whether the staleness was let pass for a recorded run (to be confirmed under the lock). A
 * blocked plan goes on here only to preflight, which stops the run with exit 3.
 */
export async function checkPlanLetsRunStart(
  input: RunCommandInput,
  session: UpgradeSession,
  planned: { snapshot: Snapshot; plan: Plan },
  savedPlan: Plan | undefined,
  /** Read-only: the unfinished run of this cluster that `savedPlan` started, if recorded. */
  recordedRun: (cluster: NonNullable<Snapshot['cluster']>) => Promise<UpgradeState | undefined>,
): Promise<{ cluster: NonNullable<Snapshot['cluster']>; resumesSavedPlan: boolean }> {
  const { snapshot, plan } = planned;
  let resumesSavedPlan = false;
  if (savedPlan && input.planFile) {
    const { planFingerprint } = await import('../planning/plan.js');
    if (planFingerprint(snapshot, savedPlan.target) !== savedPlan.fingerprint) {
      const recorded = snapshot.cluster ? await recordedRun(snapshot.cluster) : undefined;
      if (!recorded) {
        const { stalePlanError } = await import('./run-saved-plan.js');
        throw stalePlanError(input.planFile, savedPlan, input.planArgs?.location ?? []);
      }
      resumesSavedPlan = true;
      input.io.info(
        `the cluster changed since the plan in ${input.planFile} was made, by the run that plan started: resuming it`,
      );
    }
  }
  if (!snapshot.cluster) {
    const { noClusterError } = await import('./no-cluster.js');
    throw await noClusterError(session.reads, snapshot);
  }
  // Refused credentials (4) or an untrusted certificate (1) end the run before preflight's exit 3.
  if (plan.blocked) {
    const failure = planFailure(plan, snapshot);
    if (failure.exitCode !== blockedError(plan).exitCode) throw failure;
    // A ConfigMap store would write its state and lock into the cluster for a run that may
    // not start (and may lack the very permissions to): stop here, with every failed check.
    if (input.stateStore === 'configmap' && !input.dryRun) throw failure;
    // A later hop that fails its checks would stop the run between two hops, the cluster left
    // on the first one's release: stop here, before any change, as the plan does (issue 36).
    if (plan.hops?.slice(1).some((hop) => hop.blocked)) throw failure;
    // Preflight is what stops a blocked plan (exit 3). Left out by --only/--skip, nothing does:
    // the user chose that, but must not learn it from a step failing halfway (as `helm upgrade
    // --no-hooks` runs without its hooks, yet the plan's verdict is said before anything runs).
    if (!runsStep({ only: input.only, skip: input.skip }, 'preflight')) {
      const failing = plan.checks.filter((check) => check.status === 'fail').map((check) => check.id);
      input.io.warn(
        `the plan fails ${failing.length} check(s) (${failing.join(', ')}) and preflight, which would stop the run there, is left out (--only/--skip): the steps run without it; ctl upgrade plan says why each check fails`,
      );
    }
  }
  return { cluster: snapshot.cluster, resumesSavedPlan };
}
