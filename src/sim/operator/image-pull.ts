import { containersOf } from '../kube/controllers/pods.js';
import { isRecord, type KubeObject } from '../kube/types.js';
import type { Scenario } from '../scenario.js';
import { pullReleaseImage } from '../world/registry.js';
import { worldOf } from '../world/world.js';

/**
 * What the kubelet shows for a container whose image the registry does not have (a variant
 * tag its release never published, such as a `.minimal` tag before 8.0.18-11, as a mirror
 * without it would answer): the pod stays Pending and not ready, its container waiting with
 * reason ImagePullBackOff and the kubelet's message (kubernetes pkg/kubelet/images:
 * `Back-off pulling image "<image>"`), so `kubectl get pods` shows ImagePullBackOff and the
 * rollout stalls at that pod until the image spec is fixed.
 */
export function imagePullBackOffStatus(pod: KubeObject, image: string): Record<string, unknown> {
  const previous = isRecord(pod.status) ? pod.status : {};
  const containers = (
    isRecord(pod.spec) && Array.isArray(pod.spec.containers) ? pod.spec.containers : []
  ).filter(isRecord);
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    ...previous,
    phase: 'Pending',
    conditions: [
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: now },
      {
        type: 'Ready',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: now,
        reason: 'ContainersNotReady',
      },
      {
        type: 'ContainersReady',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: now,
        reason: 'ContainersNotReady',
      },
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now },
    ],
    // The kubelet starts each container whose image it has (the others of the pod run, not
    // ready while the pod is not); only the one it cannot pull waits. `kubectl get pods` then
    // shows that container's reason (kubernetes printers.go printPod: the first waiting container's reason wins).
    containerStatuses: containers.map((container) => {
      const pulling = container.image === image;
      return {
        name: container.name,
        image: container.image,
        imageID: '',
        ready: false,
        started: !pulling,
        restartCount: 0,
        state: pulling
          ? { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${String(image)}"` } }
          : { running: { startedAt: now } },
      };
    }),
  };
}

/**
 * The operator versions whose release images (operator, bootstrapper, services rigger,
 * call-home client) the simulated registry holds: every release of the scenario's world, and
 * the scenario's own operator version (it was pulled before the simulation began).
 */
export function releaseImageTags(scenario: Scenario): string[] {
  const versions = worldOf(scenario).operatorVersions();
  return versions.includes(scenario.operator.version) ? versions : [...versions, scenario.operator.version];
}

/**
 * The kubelet's answer for a new pod whose containers are all release images: the
 * ImagePullBackOff status of the first one the registry does not hold (the kubelet reports the
 * container it could not pull), undefined when every image pulls.
 */
export function failedReleasePullStatus(
  pod: KubeObject,
  releases: readonly string[],
): Record<string, unknown> | undefined {
  for (const container of containersOf({ spec: pod.spec })) {
    if (typeof container.image !== 'string') continue;
    if (!pullReleaseImage(container.image, releases).pulled)
      return imagePullBackOffStatus(pod, container.image);
  }
  return undefined;
}
