/**
 * Step `preflight`: the checks of the plan, which the CLI computed from a fresh snapshot at the
 * start of this invocation (so a resumed run checks the cluster as it is now). A failing check
 * stops the run with exit 3 before anything changes, listing each failure with its fix;
 * warnings are reported and the run goes on.
 *
 * Then, as the plan lists, the cluster resource is saved to `<cluster>-backup.yaml` (mode 0600:
 * a spec may hold a licence key) in the run's state folder, the one backup place that the docs,
 * the Dockerfile, the Job and the CI examples name (docs/steps.md), so it can be restored with
 * `kubectl apply -f`. It is written to a temp name and linked to its own, so a write torn by a
 * full disk or a kill never stays under that name; it never overwrites an earlier one; failing
 * to write it is a warning, not a failure.
 */

import { oneLine } from '../io/safe-text.js';
import { makeDirectories } from '../io/make-directories.js';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { PreflightError } from '../errors.js';
import type { KubeObject } from '../kube/reads.js';
import { readObject } from '../kube/write.js';
import type { CheckResult } from '../planning/checks/index.js';
import { UpgradeDeps, UpgradeStep } from './deps.js';
import { checkHelmClient } from './helm-client.js';
import type { StepContext, StepResult } from '../run/step.js';
import { writeNewFileAtomically } from '../run/atomic-write.js';
import { type ClusterSnapshot } from '../planning/snapshot.js';
import { type PlanContext, type StepPlan, action } from '../planning/plan.js';
import { ctlCommand, kubectl, shellQuote } from '../planning/equivalent-commands.js';
import { type StepPermission } from '../planning/permissions.js';

/** The Kubernetes permissions this step needs; the plan's `permissions` check reviews them. */
const PERMISSIONS: readonly StepPermission[] = [
  {
    group: '',
    resource: 'pods',
    subresource: 'portforward',
    verbs: ['create'],
    scope: 'namespace',
    when: 'always',
    why: 'reach the management API on port 9443 from outside the cluster',
  },
  {
    group: '',
    resource: 'configmaps',
    verbs: ['get'],
    scope: 'namespace',
    when: 'always',
    why: "read operator-environment-config (the operator's watched namespaces)",
  },
  {
    group: '',
    resource: 'secrets',
    verbs: ['get'],
    scope: 'namespace',
    when: 'always',
    why: 'read the API credentials and admission-tls',
  },
  {
    group: 'admissionregistration.k8s.io',
    resource: 'validatingwebhookconfigurations',
    verbs: ['list'],
    scope: 'cluster',
    when: 'always',
    why: 'find the admission webhook',
  },
  {
    group: '',
    resource: 'namespaces',
    verbs: ['list'],
    scope: 'cluster',
    when: 'namespace-label',
    why: 'find the namespaces labelled for the operator',
  },

  {
    group: '',
    resource: 'configmaps',
    verbs: ['get', 'create', 'update'],
    scope: 'namespace',
    when: 'cluster-state',
    why: 'keep the run state in ConfigMap ctl-upgrade-state-<cluster> (--state-store configmap)',
  },
  {
    group: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['get', 'create', 'update', 'delete'],
    scope: 'namespace',
    when: 'cluster-state',
    why: 'hold the upgrade lock as Lease ctl-upgrade-lock-<cluster> (--state-store configmap)',
  },
];

export interface PreflightStepOptions {
  /** Where the backup of the cluster resource goes; default the run's state folder (settings.backupDir). */
  backupDir?: string;
}

export function createPreflightStep(options: PreflightStepOptions = {}): UpgradeStep<'preflight'> {
  return {
    id: 'preflight',
    title: 'Check the prerequisites',
    permissions: PERMISSIONS,
    plan: planPreflight,
    run: (ctx) => preflight(ctx, options.backupDir ?? ctx.deps.settings.backupDir ?? process.cwd()),
  };
}

export const preflightStep = createPreflightStep();

async function preflight(ctx: StepContext<UpgradeDeps>, backupDir: string): Promise<StepResult> {
  const checks = ctx.deps.plan.checks;
  const failing = checks.filter((c) => c.status === 'fail');
  if (failing.length > 0) {
    // --ignore-check only for the checks ignoring can get past (a check's `ignorable: false`).
    const ignorable = failing.filter((c) => c.ignorable !== false).map((c) => `--ignore-check ${c.id}`);
    throw new PreflightError(describeFailures(failing), {
      firmChecks: failing.filter((c) => c.ignorable === false).map((c) => c.id),
      hint:
        // The command to run then follows on the next line (the run's Next or resume line,
        // src/commands/run-end.ts): not always this one, as a target that cannot be run needs another.
        'Fix each failing check as shown, then run the command below.' +
        (ignorable.length > 0
          ? ` To go ahead anyway, pass ${ignorable.join(' ')} (recorded in the plan).`
          : ''),
    });
  }
  await checkHelm(ctx);
  const warnings = checks.filter((c) => c.status === 'warn');
  for (const check of warnings) {
    ctx.warn(`${check.id}: ${oneLine(check.message)}${check.fix ? ` (fix: ${oneLine(check.fix)})` : ''}`, {
      check: check.id,
      ...(check.ignored ? { ignored: true } : {}),
    });
  }
  const backup = await backupCluster(ctx, backupDir);
  return {
    outcome: {
      checks: { pass: checks.filter((c) => c.status === 'pass').length, warn: warnings.length, fail: 0 },
      warnings: warnings.map((c) => c.id),
      ...(backup ? { backup } : {}),
    },
  };
}

/** A helm-installed operator that is still to be upgraded: the helm client must do it (helm-client.ts). */
async function checkHelm(ctx: StepContext<UpgradeDeps>): Promise<void> {
  const { plan, resolved, helm } = ctx.deps;
  if (plan.target.method !== 'helm' || plan.steps.find((s) => s.id === 'operator')?.skip) return;
  const { release, namespace } = resolved.helm;
  const verdict = await checkHelmClient(helm, release, namespace);
  if (!verdict.ok) {
    throw new PreflightError(
      `the helm client cannot upgrade the operator; nothing was changed: ${verdict.message}`,
      {
        hint: verdict.fix,
      },
    );
  }
  if (verdict.warning) ctx.warn(verdict.warning);
}

export function describeFailures(failing: readonly CheckResult[]): string {
  const lines = failing.map(
    (c) => `  - ${c.id}: ${oneLine(c.message)}${c.fix ? `\n      fix: ${oneLine(c.fix)}` : ''}`,
  );
  const count =
    failing.length === 1 ? '1 preflight check failed' : `${failing.length} preflight checks failed`;
  return `${count}; nothing was changed:\n${lines.join('\n')}`;
}

/** Fields the API server sets: without them the backup can be re-applied as it is. */
const SERVER_METADATA = [
  'managedFields',
  'resourceVersion',
  'uid',
  'creationTimestamp',
  'generation',
  'selfLink',
];

async function backupCluster(ctx: StepContext<UpgradeDeps>, dir: string): Promise<string | undefined> {
  const cluster = ctx.deps.snapshot.cluster;
  if (!cluster) return undefined;
  const ref = {
    apiVersion: cluster.apiVersion,
    kind: 'RedisEnterpriseCluster',
    name: cluster.name,
    namespace: cluster.namespace,
  };
  const base = join(dir, `${cluster.name}-backup`);
  if (ctx.dryRun) {
    ctx.io.info(`would save rec/${cluster.name} -n ${cluster.namespace} to ${base}.yaml`);
    return undefined;
  }
  try {
    const object = await readObject(ctx.deps.kube, ref);
    if (!object) return undefined;
    // YAML 1.1 quoting: kubectl apply reads the file with go-yaml v2, to which an unquoted `y`,
    // `no` or `on` (valid namespace and label values) is a boolean, not a string.
    const text = stringify(restorable(object), { lineWidth: 0, version: '1.1' });
    await makeDirectories(dir, 0o700);
    const stamp = new Date(ctx.deps.clock.now())
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    for (const path of [`${base}.yaml`, `${base}-${stamp}.yaml`]) {
      if (await writeNewFileAtomically(path, text)) {
        ctx.progress(`saved the cluster resource to ${path}`);
        return path;
      }
    }
    ctx.warn(`did not save the cluster resource: ${base}.yaml and ${base}-${stamp}.yaml exist`);
  } catch (error) {
    ctx.warn(`could not save the cluster resource to ${dir}: ${(error as Error).message}`);
  }
  return undefined;
}

function restorable(object: KubeObject): KubeObject {
  const metadata: Record<string, unknown> = { ...(object.metadata ?? {}) };
  for (const key of SERVER_METADATA) delete metadata[key];
  const { status: _status, ...rest } = object;
  return { ...rest, metadata };
}

// ---- plan: pure, from the snapshot and the target (the run half re-reads live state)

function planPreflight({ snapshot, target, checks }: PlanContext, cluster: ClusterSnapshot): StepPlan {
  return {
    actions: [
      action(
        `Re-run the ${checks.length} checks against the live cluster`,
        ctlCommand(
          snapshot.kubeTarget,
          ...[
            'upgrade',
            'plan',
            '--to',
            target.operator,
            '-n',
            snapshot.namespace,
            '--cluster',
            cluster.name,
          ],
        ),
      ),
      action(
        'Save the cluster resource before anything changes',
        `${kubectl(snapshot.kubeTarget, 'get', 'rec', cluster.name, '-n', cluster.namespace, '-o', 'yaml')} > ${shellQuote(`${cluster.name}-backup.yaml`)}`,
      ),
    ],
  };
}
