/**
 * `openshift/scc.yaml` of each operator release: the SecurityContextConstraints
 * `redis-enterprise-scc-v2`, written anew from the facts (redis-facts.md §12), not copied.
 *
 * - The SCC grants what the Redis Enterprise node container asks for: the SYS_RESOURCE
 *   capability (file-descriptor limits and OOM scores of shards) and UID/GID 1001
 *   (K8S `openshift/scc.yaml`, its description annotation).
 * - Its content changed at 7.22: `allowPrivilegeEscalation` is false at v7.8.6-15 and true at
 *   v7.22.0-7 (K8S `openshift/scc.yaml` at both tags). The first 7.22 release, 7.22.0-6, is taken
 *   as the boundary: no release between 7.8.6-15 and 7.22.0-6 exists.
 * - `redis-enterprise-scc-v2` first appears at 6.4.2-6 (DOCS `kubernetes/upgrade/openshift-cli.md`).
 * - The helm chart installs it itself up to chart 7.8.6-15 (`openshift.scc.install: true`);
 *   from 7.22.0-11 the default is false (K8S helm chart values.yaml history).
 */

import { compareVersions } from '../rest/model.js';
import type { KubeManifest } from './operator-objects.js';

export const SCC_NAME = 'redis-enterprise-scc-v2';
export const SCC_API_VERSION = 'security.openshift.io/v1';
export const SCC_KIND = 'SecurityContextConstraints';

/** From this release on, the SCC allows privilege escalation (see above). */
export const SCC_ESCALATION_FROM = '7.22.0-6';
/** From this chart on, `openshift.scc.install` defaults to false. */
export const CHART_SCC_INSTALL_UNTIL = '7.22.0-11';

export function sccAllowsEscalation(release: string): boolean {
  return compareVersions(release, SCC_ESCALATION_FROM) >= 0;
}

/** The chart's default for `openshift.scc.install` at this chart version. */
export function chartInstallsScc(chartVersion: string): boolean {
  return compareVersions(chartVersion, CHART_SCC_INSTALL_UNTIL) < 0;
}

/** The SCC as `openshift/scc.yaml` of `release` defines it: no users, no groups (bound separately). */
export function sccManifest(release: string): KubeManifest {
  return {
    apiVersion: SCC_API_VERSION,
    kind: SCC_KIND,
    metadata: {
      name: SCC_NAME,
      annotations: {
        'kubernetes.io/description':
          'Lets Redis Enterprise node pods add SYS_RESOURCE and run as UID/GID 1001 (ctl simulator).',
      },
    },
    allowedCapabilities: ['SYS_RESOURCE'],
    allowHostDirVolumePlugin: false,
    allowHostIPC: false,
    allowHostNetwork: false,
    allowHostPID: false,
    allowHostPorts: false,
    allowPrivilegeEscalation: sccAllowsEscalation(release),
    allowPrivilegedContainer: false,
    readOnlyRootFilesystem: false,
    runAsUser: { type: 'MustRunAs', uid: 1001 },
    fsGroup: { type: 'MustRunAs', ranges: [{ min: 1001, max: 1001 }] },
    seLinuxContext: { type: 'MustRunAs' },
    seccompProfiles: ['runtime/default'],
    supplementalGroups: { type: 'RunAsAny' },
  };
}

export const SCC_CHART_TEMPLATE = 'templates/openshift/scc.yaml';

/**
 * The chart's `templates/openshift/scc.yaml`: the SCC, rendered only with
 * `openshift.mode` and `openshift.scc.install`. A `helm upgrade` to a chart whose default is
 * false no longer renders it, so helm deletes it (helm removes what a release stops rendering).
 */
export function sccChartTemplate(version: string, toYaml: (object: unknown) => string): string {
  return `{{- if and .Values.openshift.mode .Values.openshift.scc.install }}\n${toYaml(sccManifest(version))}{{- end }}\n`;
}
