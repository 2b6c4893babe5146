/**
 * The operator step for a helm-installed operator: `helm upgrade <release> <chart> --version <v>`
 * (+ `--set openshift.mode=true` on OpenShift). `--repo <url>` is used instead of a `helm repo
 * add` in the user's helm config. `--reset-then-reuse-values` (helm >= 3.14) keeps the values the
 * release was installed with on top of the new chart's defaults: plain `--reuse-values` would
 * also keep the OLD chart's defaults (the old operator image among them), and no flag at all
 * drops the user's values as soon as one `--set` is given. No `--wait`: ctl waits itself, with
 * progress and its timeouts (./operator-rollout.ts).
 *
 * A release already deployed at the target chart is not upgraded again (only awaited); a release
 * left `pending-*` by a killed helm stops the step with the exact rollback to run.
 */

import { OperationError } from '../errors.js';
import type { Helm } from '../exec/helm.js';
import { array, JsonTooDeepError, num, parseJson, record } from '../json-read.js';
import { helmCommand, helmUpgradeArgv, type KubeTarget } from '../planning/equivalent-commands.js';
import { below, HELM_WITH_RESET_THEN_REUSE } from '../planning/helm-client-rules.js';
import { operatorImageOverrides, pinnedOperatorImage } from '../planning/helm-values.js';
import type { HelmLocation } from '../planning/resolve.js';
import { chartVersionFor } from '../release/catalog.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import { readHelmValues, readHelmVersion } from './helm-client.js';

/**
 * Upgrades the helm release to the target's chart (recording the intent first), or only says so
 * when the release is already deployed there.
 */
export async function upgradeThroughHelm(
  ctx: StepContext<UpgradeDeps>,
  from: string | undefined,
  watched: string[],
): Promise<void> {
  const { deps } = ctx;
  const { snapshot } = deps;
  const target = deps.plan.target.operator;
  const helm = deps.resolved.helm;
  const status = await readHelmRelease(deps.helm, helm.release, helm.namespace);
  if (status.status.startsWith('pending-')) {
    throw pendingReleaseError(snapshot.kubeTarget, helm.release, helm.namespace, status);
  }
  const chartVersion = chartVersionFor(target);
  if (status.status === 'deployed' && status.chartVersion === chartVersion) {
    ctx.progress(`helm release ${helm.release} is already deployed at chart ${chartVersion}`);
    if (watched.length > 0) await ctx.recordIntent({ method: 'helm', to: target, roleNamespaces: watched });
  } else {
    await ctx.recordIntent({
      method: 'helm',
      from: from ?? null,
      to: target,
      release: helm.release,
      namespace: helm.namespace,
      chart: helm.chart,
      chartVersion,
      fromRevision: status.revision,
      roleNamespaces: watched,
    });
    // The values as they are now (helm get values): a pinned operator.image.tag would keep the
    // old operator under --reset-then-reuse-values, so it is overridden (helm-values.ts).
    const overrides = operatorImageOverrides(
      pinnedOperatorImage(await userValuesOf(deps.helm, helm.release, helm.namespace)),
      target,
    );
    for (const note of overrides.notes) ctx.warn(note);
    const args = await helmUpgradeArgs(
      deps.helm,
      helm,
      chartVersion,
      snapshot.platform === 'openshift',
      overrides.set,
    );
    if (args.warning) ctx.warn(args.warning);
    ctx.progress(`helm upgrade ${helm.release} to chart ${chartVersion}`);
    await deps.helm.change(args.argv);
  }
}

export interface HelmReleaseStatus {
  /** Of the newest revision: `deployed`, `failed`, `pending-upgrade`, ... */
  status: string;
  revision: number | undefined;
  chartVersion: string | undefined;
  /** The newest revision that was deployed (or superseded since): what a rollback goes back to. */
  lastDeployedRevision: number | undefined;
}

/**
 * The release's newest revision, from `helm history` (helm 3 and 4 leave the chart out of
 * `helm status -o json`; the history names it as `<chart>-<version>`).
 */
async function readHelmRelease(helm: Helm, release: string, namespace: string): Promise<HelmReleaseStatus> {
  let stdout: string;
  try {
    ({ stdout } = await helm.read(['history', release, '--namespace', namespace, '--output', 'json']));
  } catch (error) {
    if (error instanceof OperationError && /release: not found/i.test(error.message)) {
      throw new OperationError(`helm release ${release} was not found in namespace ${namespace}`, {
        hint: `Pass --helm-release RELEASE_NAME (${helm.command('list', '-A')} shows the releases), or --method bundle when the operator was not installed with helm.`,
        cause: error,
      });
    }
    throw error;
  }
  return parseHelmHistory(stdout);
}

export function parseHelmHistory(stdout: string): HelmReleaseStatus {
  let json: unknown;
  try {
    json = parseJson(stdout, 'helm history');
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw error;
    throw new OperationError('helm history printed something that is not JSON', {
      hint: 'Check that the helm binary is helm 3.8 or later (helm version).',
    });
  }
  const entries = array(json)
    .map(record)
    .map((e) => ({ ...e, revision: num(e.revision) }))
    .filter((e): e is Record<string, unknown> & { revision: number } => e.revision !== undefined)
    .sort((a, b) => b.revision - a.revision);
  const newest = entries[0];
  const deployed = entries.find((e) => e.status === 'deployed' || e.status === 'superseded');
  const chart = typeof newest?.chart === 'string' ? newest.chart : '';
  return {
    status: typeof newest?.status === 'string' ? newest.status : 'unknown',
    revision: newest?.revision,
    chartVersion: /-(v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)$/.exec(chart)?.[1],
    lastDeployedRevision: deployed?.revision,
  };
}

/** A release a killed helm left `pending-*`: every later upgrade fails until it is rolled back. */
function pendingReleaseError(
  kube: KubeTarget,
  release: string,
  namespace: string,
  status: HelmReleaseStatus,
): OperationError {
  const rollback =
    status.lastDeployedRevision !== undefined
      ? helmCommand(kube, 'rollback', release, String(status.lastDeployedRevision), '--namespace', namespace)
      : `${helmCommand(kube, 'history', release, '--namespace', namespace)}, then ${helmCommand(kube, 'rollback', release, 'LAST_DEPLOYED_REVISION', '--namespace', namespace)}`;
  return new OperationError(
    `helm release ${release} is stuck in ${status.status}${status.revision !== undefined ? ` (revision ${status.revision})` : ''}: an earlier helm run was killed before it finished`,
    { hint: `Roll it back with: ${rollback}. Then run ctl again to resume.` },
  );
}

/** The user-supplied values of the release, parsed (null when helm gives none). */
async function userValuesOf(helm: Helm, release: string, namespace: string): Promise<unknown> {
  const stdout = await readHelmValues(helm, release, namespace);
  try {
    return parseJson(stdout.trim() || 'null', `helm get values ${release}`);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw error;
    throw new OperationError(`helm get values ${release} printed something that is not JSON`, {
      hint: 'Check that the helm binary is helm 3.10 or later (helm version).',
    });
  }
}

async function helmUpgradeArgs(
  helm: Helm,
  target: HelmLocation,
  chartVersion: string,
  openshift: boolean,
  set: string[] = [],
): Promise<{ argv: string[]; warning?: string }> {
  const upgrade = { ...target, chartVersion, openshift, set };
  const version = await readHelmVersion(helm).catch(() => undefined);
  if (version === undefined || !below(version, HELM_WITH_RESET_THEN_REUSE)) {
    return { argv: helmUpgradeArgv(upgrade, true) };
  }
  return {
    argv: helmUpgradeArgv(upgrade, false),
    warning: openshift
      ? `helm ${version.join('.')} has no --reset-then-reuse-values: values set at install other than openshift.mode are not carried over (compare ${helm.command('get', 'values', target.release, '--namespace', target.namespace)} afterwards), or use helm 3.14 or later`
      : undefined,
  };
}
