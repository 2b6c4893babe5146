import type { ControllerManager } from '../kube/controllers/controller.js';
import type { DeploymentController } from '../kube/controllers/deployment.js';
import { templateHash } from '../kube/controllers/pods.js';
import { clone, type KubeObject } from '../kube/types.js';
import type { Scenario } from '../scenario.js';
import {
  componentImage,
  componentRepository,
  OTHER_IMAGE_SPECS,
  pinsImage,
  SERVICES_RIGGER_CONTAINER,
  servicesRiggerName,
  type SimImageSpec,
} from './cluster-objects.js';
import { failedReleasePullStatus } from './image-pull.js';
import { asString, getPath, type KubeAccess, specOf } from './kube-access.js';

/**
 * The services rigger's Deployment (`<rec>-services-rigger`) and its image. The operator
 * writes the image its spec names (`spec.redisEnterpriseServicesRiggerImageSpec`, REC CRD)
 * whenever that spec pins one, and otherwise moves it to its own release's rigger when it
 * upgrades the cluster. The Deployment controller then rolls it, and its new pod pulls the
 * image from the simulated registry (src/sim/world/registry.ts): a tag or digest the registry
 * does not hold leaves that pod in ImagePullBackOff, the old pod still running (RollingUpdate),
 * as `kubectl get pods` shows on a real cluster.
 */
export class ServicesRigger {
  readonly #kube: KubeAccess;
  readonly #scenario: Scenario;
  readonly #controller: DeploymentController | undefined;
  readonly #previousPull: DeploymentController['failedPullStatus'] | undefined;
  /** The template the simulation began with: its image was pulled before, it runs. */
  readonly #seededTemplate: string | undefined;

  constructor(options: {
    kube: KubeAccess;
    scenario: Scenario;
    controllers: ControllerManager | undefined;
    releases: readonly string[];
  }) {
    this.#kube = options.kube;
    this.#scenario = options.scenario;
    this.#controller = options.controllers?.get<DeploymentController>('deployment');
    const seeded = this.#read();
    this.#seededTemplate = seeded ? templateHash(specOf(seeded).template) : undefined;
    const controller = this.#controller;
    if (controller) {
      const previous = controller.failedPullStatus;
      this.#previousPull = previous;
      controller.failedPullStatus = (deployment, pod) =>
        this.#isRigger(deployment)
          ? templateHash(specOf(deployment).template) === this.#seededTemplate
            ? undefined
            : failedReleasePullStatus(pod, options.releases)
          : previous(deployment, pod);
    }
  }

  /**
   * Writes the rigger image the cluster resource asks for: the pinned image spec's when it pins
   * one; otherwise, with `operatorVersion` (a cluster upgrade starts), the operator's default.
   */
  sync(rec: KubeObject, operatorVersion?: string): void {
    const deployment = this.#read();
    if (!deployment) return;
    const spec = imageSpecAt(rec, OTHER_IMAGE_SPECS.rigger.field);
    if (!pinsImage(spec) && operatorVersion === undefined) return;
    const image = componentImage(
      spec,
      componentRepository('rigger', this.#scenario.platform),
      operatorVersion ?? '',
    );
    const template = clone(specOf(deployment).template) as {
      spec?: { containers?: { name?: string; image?: string }[] };
    };
    const container = template.spec?.containers?.find((c) => c.name === SERVICES_RIGGER_CONTAINER);
    if (!container || container.image === image) return;
    container.image = image;
    this.#kube.patch(deployment, { spec: { template } });
  }

  detach(): void {
    if (this.#controller && this.#previousPull) this.#controller.failedPullStatus = this.#previousPull;
  }

  #isRigger(deployment: KubeObject): boolean {
    return (
      deployment.metadata.namespace === this.#scenario.namespace &&
      deployment.metadata.name === servicesRiggerName(this.#scenario.cluster.name)
    );
  }

  #read(): KubeObject | undefined {
    return this.#kube.get(
      'apps/v1',
      'Deployment',
      this.#scenario.namespace,
      servicesRiggerName(this.#scenario.cluster.name),
    );
  }
}

/** The image spec at `path` below the cluster resource's spec, as strings (anything else as absent). */
export function imageSpecAt(rec: KubeObject, path: readonly string[]): SimImageSpec | undefined {
  const spec = getPath(rec, ['spec', ...path]);
  if (spec === undefined || spec === null || typeof spec !== 'object') return undefined;
  return {
    repository: asString(getPath(spec, ['repository'])),
    versionTag: asString(getPath(spec, ['versionTag'])),
    digestHash: asString(getPath(spec, ['digestHash'])),
  };
}
