/**
 * OpenShift's version as a real cluster answers it: the cluster-scoped ClusterVersion `version`
 * (config.openshift.io/v1) that `oc get clusterversion` and `oc adm upgrade` read. Shape from
 * openshift/api `config/v1/types_cluster_version.go`: status.desired {version, image},
 * status.history newest first with state Completed|Partial, startedTime, completionTime,
 * version, image, verified; conditions Available/Progressing/Failing. OpenShift 4.N runs
 * Kubernetes 1.(N+13) (4.16 on 1.29, 4.22 on 1.35: the pairs of redis/docs
 * `supported_k8s_distributions.md`).
 */

import { createHash } from 'node:crypto';

const OFFSET = 13;

/** `4.16` or `4.16.8` -> `1.29`. */
export function kubernetesOfOpenShift(version: string): string {
  const minor = Number(version.split('.')[1] ?? '0');
  return `1.${minor + OFFSET}`;
}

/** `1.29` -> `4.16.0`. */
export function openShiftOfKubernetes(kubernetes: string): string {
  const minor = Number(kubernetes.split('.')[1] ?? '0');
  return `4.${Math.max(minor - OFFSET, 0)}.0`;
}

/** `4.16` -> `4.16.0`: ClusterVersion always names a full release. */
export function fullOpenShiftVersion(version: string): string {
  return version.split('.').length === 2 ? `${version}.0` : version;
}

/** The release image a real cluster names: quay.io's ocp-release by digest. */
function releaseImage(version: string): string {
  const digest = createHash('sha256').update(`ocp-release ${version}`).digest('hex');
  return `quay.io/openshift-release-dev/ocp-release@sha256:${digest}`;
}

const INSTALLED_AT = '2026-01-05T09:00:00Z';

export function clusterVersionObject(version: string): Record<string, unknown> {
  const image = releaseImage(version);
  const minor = version.split('.').slice(0, 2).join('.');
  const condition = (type: string, status: string, message?: string) => ({
    type,
    status,
    lastTransitionTime: INSTALLED_AT,
    ...(message ? { message } : {}),
  });
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterVersion',
    metadata: { name: 'version' },
    spec: {
      channel: `stable-${minor}`,
      clusterID: '6f1c7c2e-1d2b-4c55-9a3e-5b0c2a6d7e01',
    },
    status: {
      desired: { version, image, channels: [`candidate-${minor}`, `fast-${minor}`, `stable-${minor}`] },
      history: [
        {
          state: 'Completed',
          startedTime: INSTALLED_AT,
          completionTime: INSTALLED_AT,
          version,
          image,
          verified: false,
        },
      ],
      observedGeneration: 1,
      versionHash: 'simulated',
      conditions: [
        condition('Available', 'True', `Done applying ${version}`),
        condition('Failing', 'False'),
        condition('Progressing', 'False', `Cluster version is ${version}`),
        condition('RetrievedUpdates', 'False', 'The simulated cluster reaches no update service'),
      ],
      availableUpdates: null,
    },
  };
}
