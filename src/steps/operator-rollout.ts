/**
 * The operator step's last wait: what the operator Deployment says (the way `kubectl rollout
 * status` judges it) and waiting until it runs the target, ready.
 */

import { array, num, record } from '../json-read.js';
import type { KubeObject } from '../kube/reads.js';
import { waitForObject } from '../kube/watch.js';
import { operatorVersionOfDeployment } from '../planning/olm.js';
import { OPERATOR_DEPLOYMENT } from '../planning/snapshot.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import { kubectl } from '../planning/equivalent-commands.js';
import { stepWaitWarning } from './wait-warnings.js';

export type WaitFor = typeof waitForObject;

export interface DeploymentState {
  image: string;
  version: string | undefined;
  replicas: number;
  readyReplicas: number;
  updatedReplicas: number;
  /** Every pod of the Deployment, old and new (status.replicas): more than `replicas` mid-rollout. */
  totalReplicas: number;
  /** The Deployment controller has seen the current spec (observedGeneration >= generation). */
  observed: boolean;
  /** The rollout is complete: observed, every replica updated and ready, no old replica left. */
  ready: boolean;
}

/** What the operator Deployment says, the way `kubectl rollout status` judges it. */
export function deploymentState(deployment: KubeObject | undefined): DeploymentState | undefined {
  if (!deployment) return undefined;
  const spec = record(deployment.spec);
  const status = record(deployment.status);
  const containers = array(record(record(spec.template).spec).containers).map(record);
  const container = containers.find((c) => c.name === OPERATOR_DEPLOYMENT) ?? containers[0];
  const image = typeof container?.image === 'string' ? container.image : '';
  const replicas = num(spec.replicas) ?? 1;
  const readyReplicas = num(status.readyReplicas) ?? 0;
  const observed = (num(status.observedGeneration) ?? 0) >= (deployment.metadata?.generation ?? 0);
  const updatedReplicas = num(status.updatedReplicas) ?? 0;
  const ready =
    observed &&
    replicas > 0 &&
    updatedReplicas === replicas &&
    readyReplicas === replicas &&
    (num(status.replicas) ?? replicas) === replicas;
  return {
    image,
    version: operatorVersionOfDeployment(deployment, image),
    replicas,
    readyReplicas,
    updatedReplicas,
    totalReplicas: num(status.replicas) ?? replicas,
    observed,
    ready,
  };
}

/**
 * Progress of a rollout in words, for the wait's progress messages, in the order of `kubectl
 * rollout status`: new replicas, then old ones ending, then readiness. While an old pod is
 * still there, readyReplicas counts it too: `1/1 ready` then, followed by `0/1 ready` once it
 * went, read as going backwards (issue 34), so readiness is only said once only new pods remain.
 */
export function describeRollout(state: DeploymentState): string {
  if (!state.observed) return 'the Deployment controller has not picked up the new spec yet';
  if (state.updatedReplicas < state.replicas)
    return `${state.updatedReplicas}/${state.replicas} replicas updated`;
  const old = state.totalReplicas - state.updatedReplicas;
  if (old > 0) return `${old} old ${old === 1 ? 'replica' : 'replicas'} ending`;
  return `${Math.min(state.readyReplicas, state.replicas)}/${state.replicas} ready`;
}

/** Waits until the operator Deployment `name` runs `target`, every replica updated and ready. */
export async function waitForOperatorRollout(
  ctx: StepContext<UpgradeDeps>,
  wait: WaitFor,
  { name, namespace }: { name: string; namespace: string },
  target: string,
): Promise<KubeObject> {
  const { deps } = ctx;
  const { kube } = deps;
  return wait<KubeObject>({
    kube,
    path: `/apis/apps/v1/namespaces/${namespace}/deployments`,
    name,
    signal: ctx.signal,
    timeoutMs: deps.settings.timeoutMs,
    stallTimeoutMs: deps.settings.stallTimeoutMs,
    description: `the operator Deployment ${name} to run ${target}`,
    hint: `Look at the operator: ${kubectl(deps.snapshot.kubeTarget, 'rollout', 'status', `deployment/${name}`, '-n', namespace)}; ${kubectl(deps.snapshot.kubeTarget, 'describe', 'deployment', name, '-n', namespace)}. Then run ctl again to resume.`,
    check: (object) => {
      const state = deploymentState(object);
      if (!state) return `deployment ${name} does not exist yet`;
      if (state.version !== target)
        return `the operator image is ${state.image || '(none)'}, not ${target} yet`;
      if (!state.ready) return `operator ${target}: ${describeRollout(state)}`;
      return true;
    },
    onProgress: (message) => ctx.progress(message),
    onWarning: stepWaitWarning(ctx),
  });
}
