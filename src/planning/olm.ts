/**
 * Operator installs owned by the Operator Lifecycle Manager (OperatorHub on OpenShift). OLM
 * owns the operator Deployment through a ClusterServiceVersion (owner reference of kind
 * ClusterServiceVersion, labels `olm.owner`, `olm.owner.kind`, `olm.owner.namespace`:
 * operator-framework/operator-lifecycle-manager `pkg/lib/ownerutil`) and puts back anything else
 * applied over it; it is upgraded through its Subscription and InstallPlan (DOCS
 * `kubernetes/upgrade/upgrade-olm.md`, redis-facts.md §12). Field names:
 * operator-framework/api `pkg/operators/v1alpha1/{subscription,installplan}_types.go`.
 */

import { array, getPath, record, str } from '../json-read.js';
import type { ClusterReads, CustomResourceType, KubeObject } from '../kube/reads.js';

export const SUBSCRIPTION_RESOURCE: CustomResourceType = {
  group: 'operators.coreos.com',
  version: 'v1alpha1',
  plural: 'subscriptions',
};
export const INSTALL_PLAN_RESOURCE: CustomResourceType = {
  group: 'operators.coreos.com',
  version: 'v1alpha1',
  plural: 'installplans',
};

export interface OlmInstallPlan {
  name: string;
  /** spec.clusterServiceVersionNames. */
  csvs: string[];
  approved: boolean;
  phase?: string | undefined;
}

export interface OlmSubscription {
  name: string;
  /** spec.name: the package. */
  package?: string | undefined;
  channel?: string | undefined;
  /** spec.installPlanApproval: Automatic or Manual. */
  approval?: string | undefined;
  source?: string | undefined;
  sourceNamespace?: string | undefined;
  installedCSV?: string | undefined;
  currentCSV?: string | undefined;
  state?: string | undefined;
  /** status.installPlanRef.name. */
  installPlan?: string | undefined;
}

export interface OlmSnapshot {
  /** The ClusterServiceVersion that owns the operator Deployment. */
  csv: string;
  /** The operator's Subscription (the one whose installedCSV or currentCSV is that CSV). */
  subscription?: OlmSubscription | undefined;
  /** The InstallPlans of the namespace, pending ones first. */
  installPlans: OlmInstallPlan[];
  /** Why the Subscription could not be read (permissions, no OLM CRDs). */
  readError?: string | undefined;
}

/** The CSV owning the Deployment, from its owner reference or OLM's labels; undefined when OLM does not own it. */
export function olmOwnerOf(deployment: KubeObject | undefined): string | undefined {
  if (!deployment) return undefined;
  const byReference = (deployment.metadata?.ownerReferences ?? []).find(
    (ref) => ref.kind === 'ClusterServiceVersion',
  );
  if (byReference?.name) return byReference.name;
  const labels = deployment.metadata?.labels ?? {};
  return labels['olm.owner.kind'] === 'ClusterServiceVersion' ? labels['olm.owner'] : undefined;
}

function toSubscription(object: KubeObject): OlmSubscription {
  const spec = record(object.spec);
  const status = record(object.status);
  return {
    name: object.metadata?.name ?? '',
    package: str(spec.name),
    channel: str(spec.channel),
    approval: str(spec.installPlanApproval),
    source: str(spec.source),
    sourceNamespace: str(spec.sourceNamespace),
    installedCSV: str(status.installedCSV),
    currentCSV: str(status.currentCSV),
    state: str(status.state),
    installPlan: str(getPath(status, ['installPlanRef', 'name'])),
  };
}

function toInstallPlan(object: KubeObject): OlmInstallPlan {
  return {
    name: object.metadata?.name ?? '',
    csvs: array(getPath(object, ['spec', 'clusterServiceVersionNames'])).filter(
      (name): name is string => typeof name === 'string',
    ),
    approved: getPath(object, ['spec', 'approved']) === true,
    phase: str(getPath(object, ['status', 'phase'])),
  };
}

/** Reads the Subscription and InstallPlans of an OLM-owned operator (two list calls). */
export async function readOlm(
  kube: Pick<ClusterReads, 'listCustomObjects'>,
  namespace: string,
  csv: string,
): Promise<OlmSnapshot> {
  try {
    const [subscriptions, plans] = await Promise.all([
      kube.listCustomObjects(SUBSCRIPTION_RESOURCE, namespace),
      kube.listCustomObjects(INSTALL_PLAN_RESOURCE, namespace).catch(() => [] as KubeObject[]),
    ]);
    const all = subscriptions.map(toSubscription);
    const subscription =
      all.find((s) => s.installedCSV === csv || s.currentCSV === csv) ??
      all.find((s) => s.package?.startsWith('redis-enterprise')) ??
      (all.length === 1 ? all[0] : undefined);
    const installPlans = plans
      .map(toInstallPlan)
      .sort((a, b) => Number(a.phase !== 'RequiresApproval') - Number(b.phase !== 'RequiresApproval'));
    return { csv, subscription, installPlans };
  } catch (error) {
    return { csv, installPlans: [], readError: (error as Error).message };
  }
}

/** `redis-enterprise-operator.v7.8.2-6` -> `7.8.2-6`. */
export function csvVersion(csv: string | undefined): string | undefined {
  const match = csv ? /\.v(\d+\.\d+\.\d+-\d+)$/.exec(csv) : null;
  return match?.[1];
}

/**
 * The commands that upgrade an OLM-owned operator to `target`, in order: switch the
 * Subscription to the channel that offers it (the release line, e.g. `7.8.2`: "select it for
 * your Update channel"), wait for OLM's InstallPlan, approve the plan whose CSV is the target
 * (Manual approval only), wait for that CSV to succeed (DOCS `kubernetes/upgrade/upgrade-olm.md`).
 */
export function olmUpgradeCommands(
  olm: OlmSnapshot,
  namespace: string,
  target: string,
): { description: string; command: string }[] {
  const sub = olm.subscription?.name ?? '<subscription>';
  const channel = target.split('-')[0] ?? target;
  const targetCsv = `redis-enterprise-operator.v${target}`;
  const plan = olm.installPlans.find((p) => p.csvs.includes(targetCsv) && p.phase !== 'Complete');
  const approve = (name: string) =>
    `oc patch installplan ${name} -n ${namespace} --type merge -p '{"spec":{"approved":true}}'`;
  const commands: { description: string; command: string }[] = [];
  if (!plan && olm.subscription?.channel !== channel) {
    commands.push({
      description: `Switch Subscription ${sub} to channel ${channel}`,
      command: `oc patch subscription ${sub} -n ${namespace} --type merge -p '{"spec":{"channel":"${channel}"}}'`,
    });
  }
  if (olm.subscription?.approval !== 'Automatic' && !plan?.approved) {
    if (plan)
      commands.push({
        description: `Approve InstallPlan ${plan.name} (${targetCsv})`,
        command: approve(plan.name),
      });
    else {
      commands.push(
        {
          description: `Wait for OLM to offer ${targetCsv}`,
          command: `oc wait subscription/${sub} -n ${namespace} --for=jsonpath='{.status.currentCSV}'=${targetCsv} --timeout=5m`,
        },
        {
          description: `Approve the InstallPlan of ${targetCsv}`,
          command: approve(
            `"$(oc get installplan -n ${namespace} -o jsonpath='{.items[?(@.spec.clusterServiceVersionNames[0]=="${targetCsv}")].metadata.name}')"`,
          ),
        },
      );
    }
  }
  commands.push({
    description: `Wait for ${targetCsv} to succeed (OLM rolls the operator)`,
    command: `oc wait csv/${targetCsv} -n ${namespace} --for=jsonpath='{.status.phase}'=Succeeded --timeout=10m`,
  });
  return commands;
}
