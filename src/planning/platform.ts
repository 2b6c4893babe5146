/**
 * Check `platform-supported` (CLI.md "Check ids"): does the target release support the
 * cluster's Kubernetes version, or on OpenShift its OpenShift version (src/release/platforms.ts)?
 *
 * Kubernetes: from GET /version (the snapshot's kubernetesVersion). OpenShift: the
 * ClusterVersion `version` (config.openshift.io/v1), read where the user may read it; the
 * support tables list OpenShift versions for OpenShift clusters, so an unreadable one is a
 * warning (the Kubernetes version is named, nothing is guessed), never a failure.
 *
 * Under OLM, OperatorHub offers a release only on the OpenShift versions its certified bundle's
 * `com.redhat.openshift.versions` names (src/release/olm-openshift.ts), often a narrower range
 * than the notes' table: the narrower range wins, so a target OperatorHub would not show on
 * this OpenShift fails.
 */

import { describeSupport, minorVersionOf, type PlatformKind, platformVerdict } from '../release/platforms.js';
import { knownOperatorVersions } from '../release/catalog.js';
import { describeOpenshiftRange, olmOffersOn, olmOpenshiftRange } from '../release/olm-openshift.js';
import { compareOperatorVersions, parseOperatorVersion } from '../release/versions.js';
import type { Snapshot } from './snapshot.js';
import type { Target } from './target.js';
import {
  type CtlTarget,
  ctlPlanTargets,
  ctlPlanTo,
  ctlTargetOf,
  kubectl,
  oc,
} from './equivalent-commands.js';

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

/**
 * On a hop before the last (Target.onTheWayTo, multi-hop.md): what the final target says of the
 * same platform version, for the waypoint's message. The waypoint is a stop the path needs, not a
 * release to trade for a newer one: the cluster runs it from this hop until the next, and "both
 * your Kubernetes version and Redis operator version need to be supported at all times" (redis/docs
 * content/operate/kubernetes/upgrade/_index.md, "Upgrade compatibility"), so the waypoint is
 * judged on its own table, and the advice names the final target's verdict instead of proposing
 * "a newer operator release".
 */
function finalTargetSays(final: string, kind: PlatformKind, version: string): string {
  const name = NAMES[kind];
  switch (platformVerdict(final, kind, version).status) {
    case 'supported':
      return `${final}, the final target, supports ${name} ${version}`;
    case 'deprecated':
      return `${final}, the final target, supports ${name} ${version} as deprecated`;
    case 'newer':
      return `${final}, the final target, does not list ${name} ${version} either (newer than its table)`;
    case 'unsupported':
      return `${final}, the final target, does not support ${name} ${version} either (the last hop fails on it)`;
    case 'unknown':
      return `the catalog lists no ${name} versions for ${final}, the final target`;
  }
}

/** The waypoint's words: it runs here from this hop until the next, on the way to `final`. */
function waypointNote(operator: string, final: string, kind: PlatformKind, version: string): string {
  return `; the cluster runs ${operator} on it from this hop until the next, a stop on the way to ${final}: ${finalTargetSays(final, kind, version)}`;
}

export function checkPlatformSupported(
  snapshot: Snapshot,
  target: Pick<Target, 'operator' | 'onTheWayTo'>,
): Outcome {
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
          ? `Check \`${oc(snapshot.kubeTarget, 'get', 'clusterversion', 'version')}\` against the release notes (ctl reads it where it may get clusterversions.config.openshift.io).`
          : `Check \`${kubectl(snapshot.kubeTarget, 'version')}\` against the release notes.`,
    };
  }
  const verdict = platformVerdict(target.operator, kind, version);
  // Set on a hop before the last: the release the run goes on to after this one.
  const final = target.onTheWayTo;
  if (kind === 'openshift' && snapshot.olm && verdict.status !== 'unsupported') {
    const olm = olmVerdict(target.operator, version, ctlTargetOf(snapshot), final);
    if (olm) return olm;
  }
  switch (verdict.status) {
    case 'supported':
      return { status: 'pass', message: `${target.operator} supports ${name} ${version}`, fix: '' };
    case 'deprecated':
      return {
        status: 'warn',
        message: `${target.operator} supports ${name} ${version} as deprecated (supported: ${support})${final ? waypointNote(target.operator, final, kind, version) : ''}`,
        fix: !final
          ? `Plan an upgrade of ${name} to a supported version; a later operator release may drop ${version}.`
          : platformVerdict(final, kind, version).status === 'supported'
            ? `Nothing to change for this stop: a deprecated version is still supported, and ${final} supports it.`
            : `Plan an upgrade of ${name} to a version ${final} supports; the last hop judges ${final} on it.`,
      };
    case 'newer':
      return {
        status: 'warn',
        message: `${name} ${version} is newer than every version ${target.operator} lists (${support}): not in its support table${final ? waypointNote(target.operator, final, kind, version) : ''}`,
        fix: final
          ? `Check the ${target.operator} release notes for ${name} ${version} before the run: the upgrade docs ask for a supported ${name} at all times, and the run goes on to ${final} only after this hop.`
          : `A newer operator release may support ${name} ${version}; check its release notes.`,
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
        message: `${target.operator} does not support ${name} ${version} (it supports ${support})${final ? waypointNote(target.operator, final, kind, version) : ''}`,
        fix:
          (final
            ? `Upgrade ${name} to a version ${target.operator} supports first`
            : `Upgrade ${name} first`) +
          (older
            ? final
              ? `, or stop at ${supporting} instead of going on to ${final} (${ctlPlanTo(ctlTargetOf(snapshot), supporting!)})`
              : `, or upgrade the operator no further than ${supporting} (${ctlPlanTo(ctlTargetOf(snapshot), supporting!)})`
            : '') +
          ', or pass --ignore-check platform-supported to accept the risk.',
      };
    }
  }
}

function compareMinor(a: string, b: string): number {
  const [a1 = 0, a2 = 0] = a.split('.').map(Number);
  const [b1 = 0, b2 = 0] = b.split('.').map(Number);
  return a1 - b1 || a2 - b2;
}

/** The newest catalogued release whose bundle OperatorHub offers on this OpenShift, within the notes' support too. */
export function newestOfferedOnOpenshift(version: string): string | undefined {
  return knownOperatorVersions()
    .filter(
      (v) =>
        olmOffersOn(v, version) === true &&
        ['supported', 'deprecated'].includes(platformVerdict(v, 'openshift', version).status),
    )
    .at(-1);
}

/** Under OLM: a fail when the bundle's range leaves this OpenShift out; undefined when the range says nothing against it. */
function olmVerdict(
  operator: string,
  version: string,
  kube: CtlTarget,
  final: string | undefined,
): Outcome | undefined {
  if (olmOffersOn(operator, version) !== false) return undefined;
  const range = olmOpenshiftRange(operator)!;
  const instead = newestOfferedOnOpenshift(version);
  // On a hop before the last, the release is a stop the path to `final` needs: the newest
  // release offered here may be `final` itself, or one whose path stops here too. The target
  // list (ctl upgrade plan without --to) judges each target with its hops.
  const choose = final
    ? `OLM installs ${operator} on the way to ${final}: choose a target whose hops OperatorHub offers here (${ctlPlanTargets(kube)} lists the targets with their hops)`
    : instead
      ? `Choose a release OperatorHub offers here (${ctlPlanTo(kube, instead)})`
      : 'Choose another release';
  return {
    status: 'fail',
    message: `OperatorHub does not offer ${operator} on OpenShift ${version}: its bundle ${range.bundle} names com.redhat.openshift.versions ${range.annotation} (OpenShift ${describeOpenshiftRange(range)}), narrower than the notes' ${describeSupport(operator, 'openshift')}`,
    fix:
      choose +
      (range.max !== undefined && compareMinor(version, range.max) > 0
        ? ''
        : `, or upgrade OpenShift to ${describeOpenshiftRange(range)} first`) +
      '; or pass --ignore-check platform-supported to accept the risk.',
  };
}
