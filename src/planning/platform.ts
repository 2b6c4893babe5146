/**
 * Check `platform-supported` (CLI.md "Check ids"): does the target release support the
 * cluster's Kubernetes version, or on OpenShift its OpenShift version (src/release/platforms.ts)?
 *
 * Kubernetes: from GET /version (the snapshot's kubernetesVersion). OpenShift: the
 * ClusterVersion `version` (config.openshift.io/v1), read where the user may read it; the
 * support tables list OpenShift versions for OpenShift clusters, so an unreadable one is a
 * warning (the Kubernetes version is named, nothing is guessed), never a failure.
 */

import { describeSupport, minorVersionOf, type PlatformKind, platformVerdict } from '../release/platforms.js';
import { knownOperatorVersions } from '../release/catalog.js';
import { compareOperatorVersions, parseOperatorVersion } from '../release/versions.js';
import type { Snapshot } from './snapshot.js';
import type { Target } from './target.js';

interface Outcome {
  status: 'pass' | 'warn' | 'fail';
  message: string;
  fix: string;
}

/** The platform the support tables judge, and its version (`1.29`, `4.16`); version undefined when unread. */
export function clusterPlatformVersion(snapshot: Snapshot): {
  kind: PlatformKind;
  version?: string | undefined;
} {
  if (snapshot.platform === 'openshift')
    return { kind: 'openshift', version: minorVersionOf(snapshot.openshiftVersion) };
  return { kind: 'kubernetes', version: minorVersionOf(snapshot.kubernetesVersion) };
}

const NAMES: Record<PlatformKind, string> = { kubernetes: 'Kubernetes', openshift: 'OpenShift' };

/** The newest catalogued release that supports the platform version (for the fix). */
function newestSupporting(kind: PlatformKind, version: string): string | undefined {
  return knownOperatorVersions()
    .filter((v) => ['supported', 'deprecated'].includes(platformVerdict(v, kind, version).status))
    .at(-1);
}

export function checkPlatformSupported(snapshot: Snapshot, target: Target): Outcome {
  const { kind, version } = clusterPlatformVersion(snapshot);
  const name = NAMES[kind];
  const support = describeSupport(target.operator, kind);
  if (!version) {
    const k8s = minorVersionOf(snapshot.kubernetesVersion);
    return {
      status: 'warn',
      message: `the cluster's ${name} version is unknown${kind === 'openshift' && k8s ? ` (Kubernetes ${k8s})` : ''}; ${target.operator} supports ${name} ${support}`,
      fix:
        kind === 'openshift'
          ? 'Check `oc get clusterversion version` against the release notes (ctl reads it where it may get clusterversions.config.openshift.io).'
          : 'Check `kubectl version` against the release notes.',
    };
  }
  const verdict = platformVerdict(target.operator, kind, version);
  switch (verdict.status) {
    case 'supported':
      return { status: 'pass', message: `${target.operator} supports ${name} ${version}`, fix: '' };
    case 'deprecated':
      return {
        status: 'warn',
        message: `${target.operator} supports ${name} ${version} as deprecated (supported: ${support})`,
        fix: `Plan an upgrade of ${name} to a supported version; a later operator release may drop ${version}.`,
      };
    case 'newer':
      return {
        status: 'warn',
        message: `${name} ${version} is newer than every version ${target.operator} lists (${support}): not in its support table`,
        fix: `A newer operator release may support ${name} ${version}; check its release notes.`,
      };
    case 'unknown':
      return {
        status: 'warn',
        message: `the catalog lists no ${name} versions for ${target.operator}`,
        fix: `Check its release notes for ${name} ${version}, or load a catalog that lists them (--catalog).`,
      };
    case 'unsupported': {
      const supporting = newestSupporting(kind, version);
      const wanted = parseOperatorVersion(target.operator);
      const older =
        supporting && wanted && compareOperatorVersions(parseOperatorVersion(supporting)!, wanted) < 0;
      return {
        status: 'fail',
        message: `${target.operator} does not support ${name} ${version} (it supports ${support})`,
        fix:
          `Upgrade ${name} first` +
          (older
            ? `, or upgrade the operator no further than ${supporting} (ctl upgrade plan --to ${supporting})`
            : '') +
          ', or pass --ignore-check platform-supported to accept the risk.',
      };
    }
  }
}
