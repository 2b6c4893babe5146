/**
 * Parsing, ordering and formatting of the three version kinds an upgrade deals with:
 *
 * - operator versions, `7.22.0-6` (also the helm chart version and, with a `v`, the git tag);
 * - cluster (Redis Software, "RS") image tags, `7.4.6-22`, `8.0.18-36.14` (RS 8.0.18, build 36,
 *   operator build 14) and the old OpenShift forms `7.4.6-22.rhel8-openshift`;
 * - database versions as REDB `spec.redisVersion` takes them: `7.2`, `8.0`, or the policy words
 *   `major` and `latest`.
 *
 * Every part is compared as a number, never as text: 7.22 is newer than 7.8. Parsers return
 * `undefined` for anything malformed; the `require*` variants turn that into a UsageError for
 * values the user typed. Numbers with leading zeros are rejected so that every accepted string
 * has exactly one canonical spelling (the one `format*` produces, minus any leading `v`).
 */

import { UsageError } from '../errors.js';
import { parseImageReference } from './image-reference.js';

/** A release number `major.minor.patch`, e.g. `[7, 22, 0]`. */
export type Release = readonly [major: number, minor: number, patch: number];

/** An operator version `major.minor.patch-build`, e.g. `7.22.0-6`. */
export interface OperatorVersion {
  readonly release: Release;
  readonly build: number;
}

/** A cluster image tag: `<rs>-<build>[.<operatorBuild>][.<suffix>]`. */
export interface ImageTag {
  /** The Redis Software release the image holds. */
  readonly rs: Release;
  /** The Redis Software build number. */
  readonly build: number;
  /** From 8.0.18 on, the build of the operator the image was made for (`8.0.18-36.14` -> 14). */
  readonly operatorBuild?: number;
  /** Old OpenShift tags name their base image, e.g. `rhel8-openshift`. */
  readonly suffix?: string;
}

/** A concrete database version `major.minor`, e.g. `{ major: 7, minor: 4 }`. */
export interface DatabaseVersion {
  readonly major: number;
  readonly minor: number;
}

/** The upgrade-policy words REDB `spec.redisVersion` accepts instead of a version. */
export type DatabasePolicy = 'major' | 'latest';

/** What REDB `spec.redisVersion` may hold: a concrete version or a policy word. */
export type DatabaseVersionSpec = DatabaseVersion | { readonly policy: DatabasePolicy };

/** -1, 0 or 1, like a sort comparator restricted to its sign. */
export type Ordering = -1 | 0 | 1;

// At most nine digits keeps every number a safe integer; no leading zeros keeps spellings unique.
const NUM = '(0|[1-9][0-9]{0,8})';
const RELEASE = `${NUM}\\.${NUM}\\.${NUM}`;
const SUFFIX = '([a-z][a-z0-9]*(?:-[a-z0-9]+)*)';

const RELEASE_RE = new RegExp(`^${RELEASE}$`);
const OPERATOR_RE = new RegExp(`^v?${RELEASE}-${NUM}$`);
const IMAGE_TAG_RE = new RegExp(`^v?${RELEASE}-${NUM}(?:\\.${NUM})?(?:\\.${SUFFIX})?$`);
const DATABASE_RE = new RegExp(`^${NUM}\\.${NUM}$`);
// Status fields (REDB `status.version`, REST `version`) may carry a patch level; it is dropped.
const DATABASE_LENIENT_RE = new RegExp(`^${NUM}\\.${NUM}(?:\\.${NUM})?$`);

const DATABASE_POLICIES: readonly DatabasePolicy[] = ['major', 'latest'];

function sign(n: number): Ordering {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function compareNumbers(a: number, b: number): Ordering {
  return sign(a - b);
}

function toRelease(major: string, minor: string, patch: string): Release {
  return [Number(major), Number(minor), Number(patch)];
}

// ---------------------------------------------------------------------------------------------
// Releases (major.minor.patch)

/** Parses `7.22.0`; `undefined` if malformed. */
export function parseRelease(s: string): Release | undefined {
  const m = RELEASE_RE.exec(s);
  return m ? toRelease(m[1]!, m[2]!, m[3]!) : undefined;
}

/** Formats `[7, 22, 0]` as `7.22.0`. */
export function formatRelease(r: Release): string {
  return `${r[0]}.${r[1]}.${r[2]}`;
}

/**
 * Reads an RS release from any of the forms it appears in: `7.4.6`, a node's
 * `software_version` `7.4.6-22`, or a full image tag `8.0.18-36.14`; `undefined` if malformed.
 */
export function parseRsVersion(s: string): Release | undefined {
  return parseRelease(s) ?? parseImageTag(s)?.rs;
}

/** Orders releases numerically, part by part. */
export function compareReleases(a: Release, b: Release): Ordering {
  return compareNumbers(a[0], b[0]) || compareNumbers(a[1], b[1]) || compareNumbers(a[2], b[2]);
}

// ---------------------------------------------------------------------------------------------
// Operator versions

/** Parses `7.22.0-6` or `v7.22.0-6`; `undefined` if malformed. */
export function parseOperatorVersion(s: string): OperatorVersion | undefined {
  const m = OPERATOR_RE.exec(s);
  return m ? { release: toRelease(m[1]!, m[2]!, m[3]!), build: Number(m[4]) } : undefined;
}

/** Formats an operator version without a leading `v`, e.g. `7.22.0-6`. */
export function formatOperatorVersion(v: OperatorVersion): string {
  return `${formatRelease(v.release)}-${v.build}`;
}

/** Orders operator versions by release, then build. */
export function compareOperatorVersions(a: OperatorVersion, b: OperatorVersion): Ordering {
  return compareReleases(a.release, b.release) || compareNumbers(a.build, b.build);
}

/**
 * Reads the operator version from an image reference such as `redislabs/operator:7.8.2-6` or
 * `registry.connect.redhat.com/redislabs/redis-enterprise-operator:8.0.20-23@sha256:...`.
 * `undefined` when the reference has no tag or the tag is not an operator version (a pure
 * digest reference says nothing about the version).
 */
export function operatorVersionFromImage(image: string): OperatorVersion | undefined {
  const { tag } = parseImageReference(image);
  return tag === undefined ? undefined : parseOperatorVersion(tag);
}

/**
 * Parses an operator version the user typed. Throws UsageError (exit 2) naming the flag and
 * showing the expected form.
 */
export function requireOperatorVersion(s: string, flagName: string): OperatorVersion {
  const parsed = parseOperatorVersion(s.trim());
  if (parsed) return parsed;
  throw new UsageError(`${flagName}: "${s}" is not an operator version`, {
    hint: 'Use the form MAJOR.MINOR.PATCH-BUILD, e.g. 7.8.2-6 (a leading v, as in v7.8.2-6, is accepted).',
  });
}

// ---------------------------------------------------------------------------------------------
// Cluster image tags

/**
 * Parses a cluster image tag: `7.4.6-22`, `8.0.18-36.14`, `7.4.6-22.rhel8-openshift`,
 * `6.2.10-90.rhel7-openshift` (a leading `v` is tolerated); `undefined` if malformed.
 */
export function parseImageTag(s: string): ImageTag | undefined {
  const m = IMAGE_TAG_RE.exec(s);
  if (!m) return undefined;
  const tag: { -readonly [K in keyof ImageTag]: ImageTag[K] } = {
    rs: toRelease(m[1]!, m[2]!, m[3]!),
    build: Number(m[4]),
  };
  if (m[5] !== undefined) tag.operatorBuild = Number(m[5]);
  if (m[6] !== undefined) tag.suffix = m[6];
  return tag;
}

/** Formats an image tag, e.g. `8.0.18-36.14` or `7.4.6-22.rhel8-openshift`. */
export function formatImageTag(t: ImageTag): string {
  const operatorBuild = t.operatorBuild === undefined ? '' : `.${t.operatorBuild}`;
  const suffix = t.suffix === undefined ? '' : `.${t.suffix}`;
  return `${formatRelease(t.rs)}-${t.build}${operatorBuild}${suffix}`;
}

/**
 * Orders image tags by RS release, then build, then operator build, then suffix. A tag without
 * an operator build or suffix sorts before one with it; only the first two keys matter for
 * "which RS is newer", the rest keep the order total.
 */
export function compareImageTags(a: ImageTag, b: ImageTag): Ordering {
  return (
    compareReleases(a.rs, b.rs) ||
    compareNumbers(a.build, b.build) ||
    compareOptional(a.operatorBuild, b.operatorBuild, compareNumbers) ||
    compareOptional(a.suffix, b.suffix, (x, y) => (x < y ? -1 : x > y ? 1 : 0))
  );
}

function compareOptional<T>(a: T | undefined, b: T | undefined, compare: (x: T, y: T) => Ordering): Ordering {
  if (a === undefined) return b === undefined ? 0 : -1;
  if (b === undefined) return 1;
  return compare(a, b);
}

/** The RS release an image tag holds (`8.0.18-36.14` -> `[8, 0, 18]`); `undefined` if malformed. */
export function rsVersionOfTag(tag: string | ImageTag): Release | undefined {
  return (typeof tag === 'string' ? parseImageTag(tag) : tag)?.rs;
}

/** Parses a cluster image tag the user typed; throws UsageError (exit 2) if malformed. */
export function requireImageTag(s: string, flagName: string): ImageTag {
  const parsed = parseImageTag(s.trim());
  if (parsed) return parsed;
  throw new UsageError(`${flagName}: "${s}" is not a cluster image tag`, {
    hint: 'Use the form MAJOR.MINOR.PATCH-BUILD[.OPERATOR_BUILD], e.g. 7.8.2-60 or 8.0.18-36.14.',
  });
}

// ---------------------------------------------------------------------------------------------
// Database versions

/** Parses REDB `spec.redisVersion`: `7.2`, `8.0`, `major` or `latest`; `undefined` otherwise. */
export function parseDatabaseVersion(s: string): DatabaseVersionSpec | undefined {
  return remembered(parsedSpecs, s, () => {
    if ((DATABASE_POLICIES as readonly string[]).includes(s)) return { policy: s as DatabasePolicy };
    const m = DATABASE_RE.exec(s);
    return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
  });
}

/**
 * Reads the concrete major.minor from a status value that may carry a patch level
 * (`7.2.4` -> 7.2, `7.4` -> 7.4); `undefined` for policy words and malformed values.
 */
export function databaseVersionOf(s: string): DatabaseVersion | undefined {
  return remembered(readVersions, s, () => {
    const m = DATABASE_LENIENT_RE.exec(s);
    return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
  });
}

/**
 * The versions read so far, by text: a plan reads the version of each of 10,000 databases a few
 * times over, and they hold a handful of distinct values. The results are frozen (their types
 * are readonly), so one can be handed to every caller. Bounded: a text not yet seen is read as
 * before once the map is full.
 */
const parsedSpecs = new Map<string, DatabaseVersionSpec | undefined>();
const readVersions = new Map<string, DatabaseVersion | undefined>();
const REMEMBERED_VERSIONS = 1000;

function remembered<T extends object>(
  seen: Map<string, T | undefined>,
  text: string,
  read: () => T | undefined,
): T | undefined {
  const known = seen.get(text);
  if (known !== undefined || seen.has(text)) return known;
  const value = read();
  const frozen = value === undefined ? undefined : Object.freeze(value);
  if (seen.size < REMEMBERED_VERSIONS) seen.set(text, frozen);
  return frozen;
}

/** True when the spec is a policy word rather than a concrete version. */
export function isDatabasePolicy(spec: DatabaseVersionSpec): spec is { readonly policy: DatabasePolicy } {
  return 'policy' in spec;
}

/** Formats `{major: 7, minor: 4}` as `7.4` and a policy as its word. */
export function formatDatabaseVersion(spec: DatabaseVersionSpec): string {
  return isDatabasePolicy(spec) ? spec.policy : `${spec.major}.${spec.minor}`;
}

/**
 * Orders concrete database versions numerically (8.10 > 8.9). Policy words have no place in
 * this order: resolve them against a cluster's bundled versions first.
 */
export function compareDatabaseVersions(a: DatabaseVersion, b: DatabaseVersion): Ordering {
  return compareNumbers(a.major, b.major) || compareNumbers(a.minor, b.minor);
}

/** Parses a database version the user typed; throws UsageError (exit 2) if malformed. */
export function requireDatabaseVersion(s: string, flagName: string): DatabaseVersionSpec {
  const parsed = parseDatabaseVersion(s.trim());
  if (parsed) return parsed;
  throw new UsageError(`${flagName}: "${s}" is not a database version`, {
    hint: 'Use MAJOR.MINOR, e.g. 7.4, or one of the policy words major, latest.',
  });
}
