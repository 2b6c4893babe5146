import { releasedOperatorVersions } from '../world/releases.js';
import { parseImageReference, pullReleaseImage } from '../world/registry.js';
import { operatorVersionOfImage } from '../world/versions.js';
import { OPERATOR_NAME } from '../artifacts/operator-objects.js';
import type { ControllerManager } from '../kube/controllers/controller.js';
import type { DeploymentController } from '../kube/controllers/deployment.js';
import { containersOf, podFromTemplate, templateHash } from '../kube/controllers/pods.js';
import { nowTimestamp } from '../kube/store.js';
import { isRecord, type KubeObject } from '../kube/types.js';
import type { Timers } from './clock.js';
import { failedReleasePullStatus } from './image-pull.js';
import { type KubeAccess, specOf, statusOf } from './kube-access.js';

/** What the operator Deployment says about the operator process. */
export interface OperatorProcess {
  /** True when a pod of the current template is ready: the operator runs and reconciles. */
  ready: boolean;
  /** The operator version, from the image of the container `redis-enterprise-operator` (its tag, or its digest). */
  version: string | undefined;
  /** Which pod template runs: a new one means the operator restarted. */
  template: string;
}

export function isOperatorDeployment(object: KubeObject, namespace: string): boolean {
  return (
    object.kind === 'Deployment' &&
    object.metadata.name === OPERATOR_NAME &&
    object.metadata.namespace === namespace
  );
}

export function operatorImageOf(deployment: KubeObject): string | undefined {
  const template = specOf(deployment).template;
  const containers = containersOf(template);
  const main = containers.find((c) => c.name === OPERATOR_NAME) ?? containers[0];
  return typeof main?.image === 'string' ? main.image : undefined;
}

/**
 * The operator version the Deployment runs: what its image pulls. A digest decides when there
 * is one (`repository@sha256:...` or `repository:tag@sha256:...`: the kubelet pulls by the
 * digest, the tag is a label; src/sim/world/registry.ts), so a tag next to another release's
 * digest runs that release, and a digest the registry does not hold runs nothing (undefined:
 * the pod is in ImagePullBackOff). Without a digest, the tag names the version.
 */
export function operatorVersionOf(
  deployment: KubeObject,
  releases: readonly string[] = releasedOperatorVersions(),
): string | undefined {
  const image = operatorImageOf(deployment);
  if (!image) return undefined;
  if (parseImageReference(image).digest === undefined) return operatorVersionOfImage(image);
  const pull = pullReleaseImage(image, releases);
  return pull.pulled ? pull.tag : undefined;
}

function desiredReplicas(deployment: KubeObject): number {
  const replicas = specOf(deployment).replicas;
  return typeof replicas === 'number' ? replicas : 1;
}

/** Ready as `kubectl rollout status` sees it: the current template's pods are all available. */
export function deploymentReady(deployment: KubeObject): boolean {
  const desired = desiredReplicas(deployment);
  if (desired < 1) return false;
  const status = statusOf(deployment);
  const number = (key: string) => (typeof status[key] === 'number' ? (status[key] as number) : 0);
  const observed = number('observedGeneration') >= (deployment.metadata.generation ?? 0);
  return (
    observed &&
    number('updatedReplicas') >= desired &&
    number('replicas') === number('updatedReplicas') &&
    number('readyReplicas') >= desired &&
    number('availableReplicas') >= desired
  );
}

export interface OperatorDeploymentOptions {
  kube: KubeAccess;
  namespace: string;
  timers: Timers;
  /** Seconds from a new pod template to READY 1/1 (scenario timing.operatorStart). */
  startSeconds: number;
  controllers: ControllerManager | undefined;
  /** The operator versions whose images the registry serves (image-pull.ts releaseImageTags). */
  releases: readonly string[];
}

/**
 * Makes a new operator image take `operatorStart` seconds to become ready, as a real restart
 * does. When the emulator runs its Deployment controller, that controller keeps doing the
 * ReplicaSet and pods (helm 3's --wait needs them) and only the readiness delay is ours; without
 * it, this class writes the Deployment status itself (READY 0/1, then 1/1).
 */
export class OperatorDeployment {
  readonly #options: OperatorDeploymentOptions;
  readonly #controller: DeploymentController | undefined;
  readonly #previousDelay: ((deployment: KubeObject) => number) | undefined;
  readonly #previousPull: DeploymentController['failedPullStatus'] | undefined;
  /** The template running when the simulator started: already up, so no start delay. */
  #initialTemplate: string | undefined;
  /** Without the default controller: the template whose status this class has written. */
  #drivenTemplate: string | undefined;

  constructor(options: OperatorDeploymentOptions) {
    this.#options = options;
    this.#controller = options.controllers?.get<DeploymentController>('deployment');
    this.#previousDelay = this.#controller?.readinessDelayMs;
    this.#previousPull = this.#controller?.failedPullStatus;
    const current = this.#read();
    if (current) {
      this.#initialTemplate = templateHash(specOf(current).template);
      if (deploymentReady(current)) this.#drivenTemplate = this.#initialTemplate;
    }
    if (this.#controller) {
      const previous = this.#previousDelay;
      this.#controller.readinessDelayMs = (deployment) => {
        if (!isOperatorDeployment(deployment, options.namespace)) return previous ? previous(deployment) : 0;
        return templateHash(specOf(deployment).template) === this.#initialTemplate
          ? 0
          : options.startSeconds * 1000;
      };
      const previousPull = this.#previousPull;
      // The operator's pod pulls its image from the simulated registry: a tag or digest it does
      // not hold leaves the pod in ImagePullBackOff, and the operator (strategy Recreate, its
      // old pod gone) does not run until the image is fixed.
      this.#controller.failedPullStatus = (deployment, pod) =>
        isOperatorDeployment(deployment, options.namespace)
          ? failedReleasePullStatus(pod, options.releases)
          : previousPull?.(deployment, pod);
    }
  }

  /** The operator process as of now; drives the Deployment status when nobody else does. */
  observe(): OperatorProcess | undefined {
    const deployment = this.#read();
    if (!deployment) return undefined;
    const template = templateHash(specOf(deployment).template);
    const ready = deploymentReady(deployment);
    // Once another template has been seen, every later pod (even of a rollback) starts slowly.
    if (template !== this.#initialTemplate) this.#initialTemplate = undefined;
    if (!this.#controller) this.#drive(deployment, template);
    return { ready, version: operatorVersionOf(deployment, this.#options.releases), template };
  }

  detach(): void {
    if (this.#controller && this.#previousDelay) this.#controller.readinessDelayMs = this.#previousDelay;
    if (this.#controller && this.#previousPull) this.#controller.failedPullStatus = this.#previousPull;
  }

  #read(): KubeObject | undefined {
    return this.#options.kube.get('apps/v1', 'Deployment', this.#options.namespace, OPERATOR_NAME);
  }

  #drive(deployment: KubeObject, template: string): void {
    if (
      this.#drivenTemplate === template &&
      statusOf(deployment).observedGeneration === deployment.metadata.generation
    )
      return;
    const restarting = this.#drivenTemplate !== template;
    this.#drivenTemplate = template;
    if (!restarting) {
      this.#writeStatus(deployment, true);
      return;
    }
    this.#writeStatus(deployment, false);
    // No Deployment controller: no pod either, but an image the registry does not hold never runs.
    const probe = podFromTemplate(
      specOf(deployment).template,
      OPERATOR_NAME,
      this.#options.namespace,
      {},
      deployment,
    );
    if (failedReleasePullStatus(probe, this.#options.releases)) return;
    this.#options.timers.after(this.#options.startSeconds, () => {
      const current = this.#read();
      if (!current || templateHash(specOf(current).template) !== template) return;
      this.#writeStatus(current, true);
    });
  }

  #writeStatus(deployment: KubeObject, ready: boolean): void {
    const desired = desiredReplicas(deployment);
    const readyCount = ready ? desired : 0;
    const previous = statusOf(deployment);
    const now = nowTimestamp();
    const condition = (type: string, status: string, reason: string, message: string) => {
      const conditions = Array.isArray(previous.conditions) ? previous.conditions.filter(isRecord) : [];
      const old = conditions.find((c) => c.type === type);
      return {
        type,
        status,
        reason,
        message,
        lastUpdateTime: now,
        lastTransitionTime: old && old.status === status ? old.lastTransitionTime : now,
      };
    };
    const replicaSet = `${OPERATOR_NAME}-${templateHash(specOf(deployment).template)}`;
    const status: Record<string, unknown> = {
      observedGeneration: deployment.metadata.generation,
      replicas: desired,
      updatedReplicas: desired,
      readyReplicas: readyCount,
      availableReplicas: readyCount,
      unavailableReplicas: desired - readyCount,
      conditions: [
        ready
          ? condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.')
          : condition(
              'Available',
              'False',
              'MinimumReplicasUnavailable',
              'Deployment does not have minimum availability.',
            ),
        ready
          ? condition(
              'Progressing',
              'True',
              'NewReplicaSetAvailable',
              `ReplicaSet "${replicaSet}" has successfully progressed.`,
            )
          : condition(
              'Progressing',
              'True',
              'ReplicaSetUpdated',
              `ReplicaSet "${replicaSet}" is progressing.`,
            ),
      ],
    };
    if (ready) status.unavailableReplicas = null;
    this.#options.kube.patchStatus(deployment, status);
  }
}
