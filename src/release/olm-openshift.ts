/**
 * The OpenShift versions on which OperatorHub offers a release's certified OLM bundle: each
 * bundle's `com.redhat.openshift.versions` annotation (redhat-openshift-ecosystem/
 * certified-operators, `operators/redis-enterprise-operator-cert/<bundle>/metadata/annotations.yaml`),
 * kept per bundle in the catalog (`olmOpenshiftVersions`). It is often narrower than the release
 * notes' table (7.22.2-43.0: v4.15-v4.19, while the notes list 4.20 as supported), and under OLM
 * it decides: OperatorHub does not show a bundle outside its range.
 *
 * The annotation's forms (Red Hat's certification docs, "Managing OpenShift Versions"):
 * `v4.15-v4.19` a range, `v4.15` that version or later, `=v4.15` that version only.
 */

import { releaseEntryFor } from './catalog.js';

export interface OpenshiftRange {
  /** The annotation as the bundle states it. */
  annotation: string;
  /** The bundle it came from (`7.22.2-45.1`). */
  bundle: string;
  min: string;
  /** Undefined: no upper bound. */
  max?: string | undefined;
}

function compareMinor(a: string, b: string): number {
  const [a1 = 0, a2 = 0] = a.split('.').map(Number);
  const [b1 = 0, b2 = 0] = b.split('.').map(Number);
  return a1 - b1 || a2 - b2;
}

/** Reads `v4.18-v4.21`, `v4.15`, `=v4.15`; undefined when malformed. */
export function parseOpenshiftVersions(annotation: string, bundle = ''): OpenshiftRange | undefined {
  const text = annotation.trim().replace(/^["']|["']$/g, '');
  const exact = /^=v?(\d+\.\d+)$/.exec(text);
  if (exact) return { annotation: text, bundle, min: exact[1]!, max: exact[1]! };
  const range = /^v?(\d+\.\d+)(?:-v?(\d+\.\d+))?$/.exec(text);
  if (!range) return undefined;
  return { annotation: text, bundle, min: range[1]!, max: range[2] };
}

/** The range of the release's newest bundle that states one; undefined when none does. */
export function olmOpenshiftRange(operator: string): OpenshiftRange | undefined {
  const entry = releaseEntryFor(operator);
  const stated = entry?.olmOpenshiftVersions ?? {};
  const bundles = Object.keys(stated).sort((a, b) => {
    const build = (v: string) => Number(v.split('.').at(-1));
    return build(a) - build(b);
  });
  const newest = bundles.at(-1);
  return newest === undefined ? undefined : parseOpenshiftVersions(stated[newest]!, newest);
}

/** Whether OperatorHub offers the release's bundle on this OpenShift (`4.20`); undefined when unknown. */
export function olmOffersOn(operator: string, openshift: string): boolean | undefined {
  const range = olmOpenshiftRange(operator);
  if (!range) return undefined;
  if (compareMinor(openshift, range.min) < 0) return false;
  return range.max === undefined || compareMinor(openshift, range.max) <= 0;
}

/** `4.15-4.19`, `4.15 or later`: a range for messages. */
export function describeOpenshiftRange(range: OpenshiftRange): string {
  if (range.max === undefined) return `${range.min} or later`;
  return range.max === range.min ? range.min : `${range.min}-${range.max}`;
}
