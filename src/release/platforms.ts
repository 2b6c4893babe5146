/**
 * Which Kubernetes and OpenShift versions an operator release supports, from the active
 * catalog (each release's `kubernetes` / `openshift` lists, from the "Supported distributions"
 * table of its notes or of the feature release its notes refer to, `platformsFrom`).
 *
 * The tables list the versions supported "at the time of this release" and mark the ones a
 * release dropped (end of life). So a version older than every listed one is not supported; a
 * version newer than every listed one was not out yet when the release shipped: it is not in
 * the list, which ctl reports as a warning, not as a failure.
 */

import { releaseEntryFor } from './catalog.js';

export type PlatformKind = 'kubernetes' | 'openshift';

export type PlatformVerdict =
  | { status: 'supported' | 'deprecated' | 'unsupported' | 'newer'; listed: string[] }
  | { status: 'unknown'; listed: string[] };

/** `v1.29.3`, `1.29`, `4.16.12` -> `1.29` / `4.16`; undefined when unreadable. */
export function minorVersionOf(version: string | undefined): string | undefined {
  const match = /^v?(\d+)\.(\d+)(?:[.+-]|$)/.exec(version?.trim() ?? '');
  return match ? `${Number(match[1])}.${Number(match[2])}` : undefined;
}

function compareMinor(a: string, b: string): number {
  const [a1 = 0, a2 = 0] = a.split('.').map(Number);
  const [b1 = 0, b2 = 0] = b.split('.').map(Number);
  return a1 - b1 || a2 - b2;
}

/** The verdict of an operator release on a platform version (`1.29`, `4.16`). */
export function platformVerdict(operator: string, kind: PlatformKind, version: string): PlatformVerdict {
  const support = releaseEntryFor(operator)?.[kind];
  if (!support || support.supported.length + (support.deprecated?.length ?? 0) === 0)
    return { status: 'unknown', listed: [] };
  const deprecated = support.deprecated ?? [];
  const listed = [...support.supported, ...deprecated].sort(compareMinor);
  if (support.supported.includes(version)) return { status: 'supported', listed };
  if (deprecated.includes(version)) return { status: 'deprecated', listed };
  if (compareMinor(version, listed.at(-1)!) > 0) return { status: 'newer', listed };
  return { status: 'unsupported', listed };
}

/** `1.33-1.36 (1.32 deprecated)`: a release's list for messages. */
export function describeSupport(operator: string, kind: PlatformKind): string {
  const support = releaseEntryFor(operator)?.[kind];
  if (!support) return 'not known';
  const supported = [...support.supported].sort(compareMinor);
  const range =
    supported.length > 1 ? `${supported[0]}-${supported.at(-1)}` : (supported[0] ?? 'none listed');
  const deprecated = [...(support.deprecated ?? [])].sort(compareMinor);
  return deprecated.length > 0 ? `${range} (${deprecated.join(', ')} deprecated)` : range;
}
