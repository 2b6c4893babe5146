/**
 * The simulator's own reading of version strings. Deliberately not ctl's parser
 * (src/release/versions.ts): the simulator stands in for the real world, so a bug in how ctl
 * reads versions must be able to fail a test (SIMULATOR.md "Independence").
 *
 * Forms, from redis-facts.md §1 (K8S tags, DOCS release notes):
 * - operator versions `7.22.0-6` (git tags add a `v`);
 * - cluster image tags `7.4.6-22`, `8.0.18-36.14` (from 8.0.18 on the operator build follows),
 *   and old OpenShift tags `7.4.6-22.rhel8-openshift`;
 * - database versions `7.2` (status fields may add a patch level: `7.2.4`).
 */

/** `[major, minor, patch, build, ...]`: compared number by number, never as text. */
export type VersionNumbers = readonly number[];

const OPERATOR = /^v?(\d+)\.(\d+)\.(\d+)-(\d+)$/;
const IMAGE_TAG = /^v?(\d+)\.(\d+)\.(\d+)-(\d+)(?:\.(\d+))?(?:\.([a-z][a-z0-9-]*))?$/;
const DATABASE = /^(\d+)\.(\d+)(?:\.\d+)?$/;

/** `7.8.2-6` -> [7, 8, 2, 6]; undefined when not an operator version. */
export function operatorNumbers(version: string): VersionNumbers | undefined {
  const m = OPERATOR.exec(version);
  return m ? m.slice(1, 5).map(Number) : undefined;
}

/** `7.8.2-6` as written by the operator's image tag, without a leading `v`. */
export function canonicalOperatorVersion(version: string): string | undefined {
  const n = operatorNumbers(version);
  return n ? `${n[0]}.${n[1]}.${n[2]}-${n[3]}` : undefined;
}

export interface SimImageTag {
  /** The Redis Software release, `[7, 8, 2]`. */
  rs: VersionNumbers;
  build: number;
  operatorBuild?: number;
  suffix?: string;
}

export function parseClusterTag(tag: string): SimImageTag | undefined {
  const m = IMAGE_TAG.exec(tag);
  if (!m) return undefined;
  const parsed: SimImageTag = { rs: [Number(m[1]), Number(m[2]), Number(m[3])], build: Number(m[4]) };
  if (m[5] !== undefined) parsed.operatorBuild = Number(m[5]);
  if (m[6] !== undefined) parsed.suffix = m[6];
  return parsed;
}

/** The RS release of a cluster image tag or a node's `software_version`. */
export function rsOfTag(tag: string): VersionNumbers | undefined {
  return parseClusterTag(tag)?.rs;
}

/** `7.2.4` or `7.2` -> [7, 2]; undefined for policy words and anything malformed. */
export function databaseNumbers(version: string): VersionNumbers | undefined {
  const m = DATABASE.exec(version);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** Sign of a - b, part by part; a missing part counts as -1 (so `8.0.18-36` < `8.0.18-36.14`). */
export function compareNumbers(a: VersionNumbers, b: VersionNumbers): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? -1;
    const y = b[i] ?? -1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** True when the operator version is at least `threshold` (both `x.y.z-b`); false if unreadable. */
export function operatorAtLeast(version: string, threshold: string): boolean {
  const a = operatorNumbers(version);
  const b = operatorNumbers(threshold);
  return a !== undefined && b !== undefined && compareNumbers(a, b) >= 0;
}

/** True when cluster image tag `candidate` is newer than `current` (RS, build, operator build). */
export function isNewerClusterTag(candidate: string, current: string): boolean {
  const a = parseClusterTag(candidate);
  const b = parseClusterTag(current);
  if (!a || !b) return false;
  return (
    compareNumbers([...a.rs, a.build, a.operatorBuild ?? -1], [...b.rs, b.build, b.operatorBuild ?? -1]) > 0
  );
}

/** True when database version `candidate` is newer than `current` (unreadable: false). */
export function isNewerDatabase(candidate: string, current: string): boolean {
  const a = databaseNumbers(candidate);
  const b = databaseNumbers(current);
  return a !== undefined && b !== undefined && compareNumbers(a, b) > 0;
}

/**
 * The operator version an image reference carries (`redislabs/operator:7.8.2-6`,
 * `registry:5000/x/operator:8.0.20-23@sha256:...`); undefined without a version tag.
 */
export function operatorVersionOfImage(image: string): string | undefined {
  const withoutDigest = image.split('@')[0] ?? '';
  const colon = withoutDigest.lastIndexOf(':');
  // A colon before the last slash belongs to a registry port, not to a tag.
  if (colon <= withoutDigest.lastIndexOf('/')) return undefined;
  return canonicalOperatorVersion(withoutDigest.slice(colon + 1));
}
