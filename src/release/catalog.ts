/**
 * What we know about Redis Enterprise releases: which cluster image each operator release
 * ships, which database versions each Redis Software (RS) release bundles, which RS upgrade
 * paths are supported, and the version thresholds where the upgrade procedure changes. The
 * releases, their images, platforms and bundled databases are data (src/release/catalog.json,
 * docs/catalog.schema.json, held by catalog-data.ts with what --catalog adds); this module
 * answers questions from them. The rules (thresholds, upgrade paths) stay code.
 *
 * Nothing here talks to a cluster. Lookups for versions the catalog does not know return
 * `undefined` (never throw), so a newer operator still works when the user supplies
 * `--cluster-version` / `--db-version` themselves.
 *
 * Sources (see shared/research/redis-facts.md):
 * - NOTES: the "Downloads" section of each Redis Enterprise for Kubernetes release-notes page,
 *   redis/docs `content/operate/kubernetes/release-notes/**` (commit 63f31f69, 2026-08-21; the
 *   releases after it read again on 2026-11-26, each entry's `source`).
 * - TAGS: the OpenShift example REC (`openshift/rec_rhel.yaml`) at each git tag of
 *   RedisLabs/redis-enterprise-k8s-docs (snapshot 2c2f61dd, 2026-06-16).
 * - LIFECYCLE: redis/docs `content/operate/rs/installing-upgrading/product-lifecycle.md`
 *   ("Supported cluster version upgrade paths", "Bundled Redis database versions"), and for the
 *   6.2/6.4 target columns an older revision of `content/embeds/rs-upgrade-paths.md`.
 */

import {
  compareImageTags,
  compareOperatorVersions,
  compareReleases,
  formatImageTag,
  formatOperatorVersion,
  type ImageTag,
  type OperatorVersion,
  parseImageTag,
  parseOperatorVersion,
  parseRsVersion,
  type Release,
} from './versions.js';
import { activeCatalog, catalogGeneration, type ReleaseEntry } from './catalog-data.js';

/** An operator version as a string (`7.8.2-6`, `v7.8.2-6`) or already parsed. */
export type OperatorVersionInput = string | OperatorVersion;

/** An RS version as `7.4.6`, `7.4.6-22`, a full image tag, or already parsed. */
export type RsVersionInput = string | Release;

/** Where the cluster runs; OpenShift used differently named images for older releases. */
export type Platform = 'kubernetes' | 'openshift';

// ---------------------------------------------------------------------------------------------
// Thresholds. Each is the first operator (or RS) version the rule applies to.

/**
 * Upgrades to RHEL9_TARGETS_FROM or later need at least this operator running. Every release
 * note from 7.8.2 to 8.2.0: "Upgrades from versions earlier than 7.4.2-2 are not supported".
 */
export const MIN_OPERATOR_FOR_RHEL9_TARGETS = '7.4.2-2';

/**
 * From this operator on the cluster runs RHEL9 images, so the upgrade needs
 * MIN_OPERATOR_FOR_RHEL9_TARGETS, databases >= MIN_DATABASE_FOR_RHEL9_TARGETS and RHEL9 builds
 * of user-defined modules (NOTES `7-8-2-releases/_index.md`).
 */
export const RHEL9_TARGETS_FROM = '7.8.2-6';

/** Databases must be at least this version before upgrading to RHEL9_TARGETS_FROM or later (NOTES `7-8-2-releases/_index.md`). */
export const MIN_DATABASE_FOR_RHEL9_TARGETS = '7.2';

/**
 * From this operator on, pods run unprivileged; on OpenShift the SCC `redis-enterprise-scc-v2`
 * is removed and unbound (DOCS `operate/kubernetes/security/allow-resource-adjustment.md`).
 */
export const UNPRIVILEGED_FROM = '7.22.0-6';

/**
 * From this operator release on, the admission webhook is `redis-enterprise-admission`; before
 * it, `redb-admission` (DOCS embed `k8s-642-redb-admission-webhook-name-change.md`). Build 0 so
 * that every build of 6.4.2 counts.
 */
export const WEBHOOK_RENAMED_AT = '6.4.2-0';

/**
 * From this operator on (needed on every participating cluster), Active-Active database
 * versions are upgraded through the REAADB (DOCS `operate/kubernetes/upgrade/upgrade-redis-cluster.md`).
 */
export const ACTIVE_ACTIVE_UPGRADE_FROM = '8.0.2-2';

/**
 * Upgrading the cluster to this RS or later rotates the JWT signing secret, so every token
 * issued before is invalid (DOCS `release-notes/rs-8-2-releases/rs-8-2-0-46.md`: "8.0.22 and
 * 8.2.0"; 8.2.0 > 8.0.22, so one threshold covers both).
 */
export const TOKENS_INVALIDATED_FROM_RS = '8.0.22';

/** OpenShift tags end in `.rhel7-openshift` before, `.rhel8-openshift` from, this operator (TAGS: 6.2.10-4 rhel7, 6.2.10-34 rhel8). */
export const OPENSHIFT_RHEL8_TAGS_FROM = '6.2.10-34';

/**
 * The last operator release with a RHEL7 OpenShift image. A cluster running a `.rhel7-openshift`
 * image keeps RHEL7 images up to this release ("When upgrading existing clusters running on
 * RHEL7-based images, make sure to select a RHEL7-based image for the new version"), and moves
 * to RHEL8 only after reaching it ("upgrade to version 7.2.4-2 with a RHEL7-based image, then you'll
 * be able to migrate to a RHEL8-based image"), DOCS `kubernetes/7.4.6/upgrade/openshift-cli.md`.
 * 7.2.4-15 (RS 7.2.4-138): "RHEL7-based OpenShift images are no longer available".
 */
export const LAST_OPENSHIFT_RHEL7_RELEASE = '7.2.4-2';

/** From this operator on, OpenShift uses the Kubernetes tag unchanged (TAGS: 7.8.4-8 still suffixed, 7.8.4-9 not). */
export const OPENSHIFT_PLAIN_TAGS_FROM = '7.8.4-9';

/**
 * Clusters below RS 6.2.10 go to this operator release first before 6.2.18 or later
 * (DOCS `operate/kubernetes/7.4.6/upgrade/upgrade-redis-cluster.md`).
 */
export const HOP_BEFORE_6_2_18 = '6.2.10-45';

// ---------------------------------------------------------------------------------------------
// Operator releases and their cluster image tags: the active catalog (src/release/catalog.json,
// plus --catalog; src/release/catalog-data.ts). Releases from 7.4.2-2 on come from NOTES, where
// a release re-published with newer RS maintenance images lists several tags. Older releases
// come from TAGS, whose OpenShift tag is given without its `.rhelN-openshift` suffix: that the
// plain tag is the Kubernetes image is an inference.

interface CatalogEntry {
  readonly operator: OperatorVersion;
  readonly key: string;
  readonly tags: readonly ImageTag[];
  /** The newest tag: a release re-published with maintenance images defaults to the latest one. */
  readonly defaultTag: ImageTag;
  readonly data: ReleaseEntry;
}

function mustParse<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`release catalog: malformed ${what}`);
  return value;
}

const op = (s: string): OperatorVersion => mustParse(parseOperatorVersion(s), `operator version ${s}`);
const rs = (s: string): Release => mustParse(parseRsVersion(s), `RS version ${s}`);

function toEntry(data: ReleaseEntry): CatalogEntry {
  const tags = data.clusterTags.map((t) => mustParse(parseImageTag(t), `image tag ${t}`));
  const newest = [...tags].sort(compareImageTags).at(-1);
  const parsed = op(data.operator);
  return {
    operator: parsed,
    key: formatOperatorVersion(parsed),
    tags,
    defaultTag: mustParse(newest, 'tag list'),
    data,
  };
}

let indexed:
  { generation: number; list: readonly CatalogEntry[]; byVersion: Map<string, CatalogEntry> } | undefined;

/** The active catalog's releases, oldest first, indexed once per catalog (catalogGeneration). */
function index() {
  if (indexed?.generation !== catalogGeneration()) {
    const list = activeCatalog()
      .document.releases.map(toEntry)
      .sort((a, b) => compareOperatorVersions(a.operator, b.operator));
    indexed = { generation: catalogGeneration(), list, byVersion: new Map(list.map((e) => [e.key, e])) };
  }
  return indexed;
}

const catalogEntries = (): readonly CatalogEntry[] => index().list;

/** The catalog's data of an operator release; undefined when it does not know it. */
export function releaseEntryFor(v: OperatorVersionInput): ReleaseEntry | undefined {
  return entryFor(v)?.data;
}

/** The day the active catalog was last checked against its sources (`2026-11-26`). */
export function catalogUpdated(): string {
  return activeCatalog().document.updated;
}

function toOperator(v: OperatorVersionInput): OperatorVersion | undefined {
  return typeof v === 'string' ? parseOperatorVersion(v) : v;
}

function requireOperator(v: OperatorVersionInput): OperatorVersion {
  const parsed = toOperator(v);
  // Malformed input here is a programming error: user input is checked by requireOperatorVersion.
  if (!parsed) throw new TypeError(`not an operator version: "${String(v)}"`);
  return parsed;
}

function rsOf(v: RsVersionInput): Release | undefined {
  return typeof v === 'string' ? parseRsVersion(v) : v;
}

export function atLeast(v: OperatorVersionInput, threshold: string): boolean {
  return compareOperatorVersions(requireOperator(v), op(threshold)) >= 0;
}

function entryFor(v: OperatorVersionInput): CatalogEntry | undefined {
  const parsed = toOperator(v);
  return parsed && index().byVersion.get(formatOperatorVersion(parsed));
}

/** Every operator version in the catalog, oldest first, e.g. `['6.0.12-5', ..., '8.2.0-13']`. */
export function knownOperatorVersions(): string[] {
  return catalogEntries().map((entry) => entry.key);
}

/** The newest operator version in the catalog. */
export function latestOperatorVersion(): string {
  return catalogEntries().at(-1)!.key;
}

/** True when the catalog has facts for this operator version (`v7.8.2-6` counts as `7.8.2-6`). */
export function isKnownOperatorVersion(v: OperatorVersionInput): boolean {
  return entryFor(v) !== undefined;
}

/**
 * The default cluster image tag (REC `spec.redisEnterpriseImageSpec.versionTag`) for an
 * operator release: the newest RS image listed for it (7.8.2-6 -> `7.8.2-60`, not the first
 * published `7.8.2-34`). On OpenShift, releases before OPENSHIFT_PLAIN_TAGS_FROM get the
 * `.rhelN-openshift` suffix (applying it to a re-published maintenance image is an inference).
 * `undefined` for versions the catalog does not know: the caller then requires
 * `--cluster-version`.
 */
export function clusterTagFor(
  operatorVersion: OperatorVersionInput,
  platform: Platform = 'kubernetes',
  currentTag?: string,
): string | undefined {
  const entry = entryFor(operatorVersion);
  if (!entry) return undefined;
  const tag = entry.defaultTag;
  if (platform === 'openshift' && tag.suffix === undefined) {
    const suffix = openshiftSuffixFor(entry.operator, currentTag);
    if (suffix === 'rhel8-openshift') {
      const special = entry.data.openshiftClusterTag;
      if (special) return special;
    }
    if (suffix) return formatImageTag({ ...tag, suffix });
  }
  const variant = variantOf(currentTag);
  if (variant && tag.suffix === undefined && entry.data.variants?.includes(variant))
    return formatImageTag({ ...tag, suffix: variant });
  return formatImageTag(tag);
}

/**
 * The image variant a cluster runs (`minimal` for `8.0.18-36.14.minimal`): a tag suffix other
 * than the OpenShift RHEL ones, which clusterTagFor maps by its own rules. The target keeps the
 * variant when its notes publish it (`variants` in the catalog): a cluster on the minimal base
 * image, maybe from a mirror that holds only minimal images, stays on it (NOTES 8.0.18-11 on:
 * "`<tag>.minimal` for minimal base image").
 */
export function variantOf(tag: string | undefined): string | undefined {
  const suffix = tag ? parseImageTag(tag)?.suffix : undefined;
  return suffix && !/^rhel\d+-openshift$/.test(suffix) ? suffix : undefined;
}

/** True when an OpenShift cluster image tag is a RHEL7 build (`6.2.18-65.rhel7-openshift`). */
export function isRhel7OpenshiftTag(tag: string | undefined): boolean {
  return tag !== undefined && /\.rhel7-openshift$/.test(tag);
}

/**
 * For a cluster on a RHEL7 OpenShift image: `undefined` when `target` still has a RHEL7 image,
 * else the release to go to first (with its RHEL7 tag), after which a RHEL8 image may follow.
 */
export function rhel7HopFor(
  target: OperatorVersionInput,
  currentTag: string | undefined,
): { operator: string; clusterTag: string } | undefined {
  if (!isRhel7OpenshiftTag(currentTag)) return undefined;
  if (compareOperatorVersions(requireOperator(target), op(LAST_OPENSHIFT_RHEL7_RELEASE)) <= 0)
    return undefined;
  const hop = entryFor(LAST_OPENSHIFT_RHEL7_RELEASE)!;
  // A cluster already on the last RHEL7 release's RS has made this hop: it may now move to RHEL8.
  const current = parseImageTag(currentTag ?? '');
  if (current && compareReleases(current.rs, hop.defaultTag.rs) >= 0) return undefined;
  return { operator: hop.key, clusterTag: formatImageTag({ ...hop.defaultTag, suffix: 'rhel7-openshift' }) };
}

/** Every cluster image tag listed for an operator release, oldest first; `undefined` if unknown. */
export function clusterTagsFor(operatorVersion: OperatorVersionInput): string[] | undefined {
  return entryFor(operatorVersion)?.tags.map(formatImageTag);
}

function openshiftSuffixFor(operator: OperatorVersion, currentTag?: string): string | undefined {
  if (compareOperatorVersions(operator, op(OPENSHIFT_PLAIN_TAGS_FROM)) >= 0) return undefined;
  if (compareOperatorVersions(operator, op(OPENSHIFT_RHEL8_TAGS_FROM)) < 0) return 'rhel7-openshift';
  // RHEL7 clusters stay on RHEL7 images while the target still has one (LAST_OPENSHIFT_RHEL7_RELEASE).
  if (
    isRhel7OpenshiftTag(currentTag) &&
    compareOperatorVersions(operator, op(LAST_OPENSHIFT_RHEL7_RELEASE)) <= 0
  )
    return 'rhel7-openshift';
  return 'rhel8-openshift';
}

/** The cluster image repository by platform (DOCS `deployment/helm.md`; K8S `openshift/rec_rhel.yaml`). */
export function clusterImageRepositoryFor(platform: Platform): string {
  return platform === 'openshift'
    ? 'registry.connect.redhat.com/redislabs/redis-enterprise'
    : 'redislabs/redis';
}

/** The helm chart version for an operator release: the same string (`--version 7.8.2-6`). */
export function chartVersionFor(operatorVersion: OperatorVersionInput): string {
  return formatOperatorVersion(requireOperator(operatorVersion));
}

/**
 * The RedisLabs/redis-enterprise-k8s-docs git tag holding an operator release's bundle: usually
 * `v<version>`, but `6.2.10-4`, `7.8.6-1` and `7.22.2-39` were tagged without the `v` (the
 * catalog's upstreamTag, read from the tags by scripts/catalog-refresh.mjs); the tags v7.4.6-9 and
 * v7.8.6-11 hold the 8.0.6-8 and 8.0.10-21 bundles, and 7.4.6-6 has no tag at all
 * (redis-facts.md §12), so for those three releases there is no trustworthy tag (`undefined`;
 * the plan requires `--bundle` or names the nearest release that has one, see taggedNeighboursOf).
 */
export function gitTagFor(operatorVersion: OperatorVersionInput): string | undefined {
  const version = formatOperatorVersion(requireOperator(operatorVersion));
  const tag = entryFor(version)?.data.upstreamTag;
  if (tag === null) return undefined;
  return tag ?? `v${version}`;
}

/** Why gitTagFor has no tag for a release, in words; `undefined` when it has one. */
export function missingTagReason(operatorVersion: OperatorVersionInput): string | undefined {
  const version = formatOperatorVersion(requireOperator(operatorVersion));
  const data = entryFor(version)?.data;
  if (data?.upstreamTag !== null) return undefined;
  return (
    data.upstreamTagNote ??
    `RedisLabs/redis-enterprise-k8s-docs has no trustworthy git tag for ${version}, so its bundle cannot be downloaded`
  );
}

/**
 * The catalogued releases of `operatorVersion`'s RS line (x.y.z) whose bundle has a trustworthy
 * tag, nearest first: the newer maintenance releases oldest first (they carry the same line's
 * fixes), then the older ones newest first; empty when the line has none. Which of them a hint may
 * name depends on the cluster too (advisories, platform support): src/planning/release-neighbour.ts.
 */
export function taggedNeighboursOf(operatorVersion: OperatorVersionInput): string[] {
  const version = requireOperator(operatorVersion);
  const line = catalogEntries().filter(
    (entry) =>
      compareReleases(entry.operator.release, version.release) === 0 &&
      entry.key !== formatOperatorVersion(version) &&
      gitTagFor(entry.key) !== undefined,
  );
  const newer = line.filter((entry) => compareOperatorVersions(entry.operator, version) > 0);
  const older = line.filter((entry) => compareOperatorVersions(entry.operator, version) < 0).reverse();
  return [...newer, ...older].map((entry) => entry.key);
}

const UPSTREAM_RAW = 'https://raw.githubusercontent.com/RedisLabs/redis-enterprise-k8s-docs';

/** A file of a release's upstream tree (bundle.yaml, admission/webhook.yaml, ...) at the release's git tag. */
export function upstreamFileUrl(operatorVersion: string, file: string): string {
  return `${UPSTREAM_RAW}/${gitTagFor(operatorVersion) ?? `v${operatorVersion}`}/${file}`;
}

// ---------------------------------------------------------------------------------------------
// Thresholds as questions.

/** The oldest operator that may upgrade straight to `target`; `undefined` when none is documented. */
export function minimumOperatorFor(target: OperatorVersionInput): string | undefined {
  return atLeast(target, RHEL9_TARGETS_FROM) ? MIN_OPERATOR_FOR_RHEL9_TARGETS : undefined;
}

/** The oldest database version allowed when upgrading to `target`; `undefined` when none is documented. */
export function minimumDatabaseVersionFor(target: OperatorVersionInput): string | undefined {
  return atLeast(target, RHEL9_TARGETS_FROM) ? MIN_DATABASE_FOR_RHEL9_TARGETS : undefined;
}

/** True when `target` runs RHEL9 images, so user-defined modules need RHEL9 builds. */
export function requiresRhel9Modules(target: OperatorVersionInput): boolean {
  return atLeast(target, RHEL9_TARGETS_FROM);
}

/** True when `target` runs pods unprivileged (on OpenShift: remove the old SCC binding). */
export function requiresUnprivileged(target: OperatorVersionInput): boolean {
  return atLeast(target, UNPRIVILEGED_FROM);
}

/** The ValidatingWebhookConfiguration name an operator release uses (without helm's `-<namespace>`). */
export function webhookNameFor(
  operatorVersion: OperatorVersionInput,
): 'redb-admission' | 'redis-enterprise-admission' {
  return atLeast(operatorVersion, WEBHOOK_RENAMED_AT) ? 'redis-enterprise-admission' : 'redb-admission';
}

/** The webhook entry name inside that configuration (the one whose caBundle is patched). */
export function webhookEntryNameFor(
  operatorVersion: OperatorVersionInput,
): 'redb.admission.redislabs' | 'redisenterprise.admission.redislabs' {
  return atLeast(operatorVersion, WEBHOOK_RENAMED_AT)
    ? 'redisenterprise.admission.redislabs'
    : 'redb.admission.redislabs';
}

/** True when this operator upgrades Active-Active database versions through the REAADB. */
export function supportsActiveActiveUpgrade(operatorVersion: OperatorVersionInput): boolean {
  return atLeast(operatorVersion, ACTIVE_ACTIVE_UPGRADE_FROM);
}

/** True when upgrading the cluster to `targetRs` invalidates API tokens issued before it. */
export function upgradeInvalidatesTokens(targetRs: RsVersionInput): boolean {
  const target = rsOf(targetRs);
  return target !== undefined && compareReleases(target, rs(TOKENS_INVALIDATED_FROM_RS)) >= 0;
}

// ---------------------------------------------------------------------------------------------
// Bundled database versions (the catalog's bundledDatabases, from LIFECYCLE "Bundled Redis
// database versions"; then the release entries, for an RS release only a --catalog knows).

interface ReleaseRange {
  readonly label: string;
  readonly lo: Release;
  readonly hi: Release;
}

function line(major: number, minor: number): ReleaseRange {
  return {
    label: `${major}.${minor}.x`,
    lo: [major, minor, 0],
    hi: [major, minor, Number.POSITIVE_INFINITY],
  };
}

function span(label: string, lo: Release, hi: Release): ReleaseRange {
  return { label, lo, hi };
}

function contains(range: ReleaseRange, r: Release): boolean {
  return compareReleases(range.lo, r) <= 0 && compareReleases(r, range.hi) <= 0;
}

/** A bundledDatabases row's `rs`: `x.y.z` is that release, `x.y` the whole line. */
function rowContains(rowRs: string, r: Release): boolean {
  const parts = rowRs.split('.').map(Number);
  if (parts.length === 2) return parts[0] === r[0] && parts[1] === r[1];
  return compareReleases(rs(rowRs), r) === 0;
}

function bundledRowFor(
  rsVersion: RsVersionInput,
): { versions: readonly string[]; default: string } | undefined {
  const r = rsOf(rsVersion);
  if (!r) return undefined;
  const row = (activeCatalog().document.bundledDatabases ?? []).find((entry) => rowContains(entry.rs, r));
  if (row) return row;
  const release = [...catalogEntries()]
    .reverse()
    .find(
      (entry) =>
        compareReleases(entry.defaultTag.rs, r) === 0 &&
        entry.data.databaseVersions !== undefined &&
        entry.data.defaultDatabaseVersion !== undefined,
    );
  return release
    ? { versions: release.data.databaseVersions!, default: release.data.defaultDatabaseVersion! }
    : undefined;
}

/** Database versions an RS release bundles, oldest first (`'8.0.18'` -> 6.2 ... 8.6); `undefined` if unknown. */
export function bundledDatabaseVersions(rsVersion: RsVersionInput): string[] | undefined {
  const row = bundledRowFor(rsVersion);
  return row ? [...row.versions] : undefined;
}

/**
 * The database version an RS release gives new and upgraded databases ("Default DB version
 * (upgraded/new databases)", DOCS rs/installing-upgrading/upgrading/upgrade-database.md): ctl's
 * default database target. Not always the newest bundled (RS 6.2: default 6.0, 6.2 bundled).
 * `undefined` if unknown.
 */
export function defaultDatabaseVersion(rsVersion: RsVersionInput): string | undefined {
  return bundledRowFor(rsVersion)?.default;
}

// ---------------------------------------------------------------------------------------------
// RS upgrade paths (LIFECYCLE, "Supported cluster version upgrade paths").

const TO_6_2 = line(6, 2);
const TO_6_4 = line(6, 4);
const TO_7_2 = line(7, 2);
const TO_7_4 = line(7, 4);
const TO_7_8 = line(7, 8);
const TO_7_22 = line(7, 22);
const TO_8_0_EARLY = span('8.0.2-8.0.10', [8, 0, 0], [8, 0, 10]);
const TO_8_0_LATE = span('8.0.16 and later', [8, 0, 16], [8, 0, Number.POSITIVE_INFINITY]);
const TO_8_2 = line(8, 2);
const TARGET_COLUMNS = [TO_6_2, TO_6_4, TO_7_2, TO_7_4, TO_7_8, TO_7_22, TO_8_0_EARLY, TO_8_0_LATE, TO_8_2];

const UPGRADE_PATHS: readonly { from: ReleaseRange; to: readonly ReleaseRange[] }[] = [
  { from: line(6, 0), to: [TO_6_2, TO_6_4, TO_7_2] },
  { from: span('6.2.4-6.2.8', [6, 2, 0], [6, 2, 9]), to: [TO_6_2, TO_6_4, TO_7_2, TO_7_4] },
  {
    from: span('6.2.10-6.2.18', [6, 2, 10], [6, 2, Number.POSITIVE_INFINITY]),
    to: [TO_6_2, TO_6_4, TO_7_2, TO_7_4, TO_7_8],
  },
  { from: line(6, 4), to: [TO_6_4, TO_7_2, TO_7_4, TO_7_8, TO_7_22, TO_8_0_EARLY] },
  { from: line(7, 2), to: [TO_7_2, TO_7_4, TO_7_8, TO_7_22, TO_8_0_EARLY, TO_8_0_LATE, TO_8_2] },
  { from: line(7, 4), to: [TO_7_4, TO_7_8, TO_7_22, TO_8_0_EARLY, TO_8_0_LATE, TO_8_2] },
  { from: line(7, 8), to: [TO_7_8, TO_7_22, TO_8_0_EARLY, TO_8_0_LATE, TO_8_2] },
  { from: line(7, 22), to: [TO_7_22, TO_8_0_EARLY, TO_8_0_LATE, TO_8_2] },
  { from: span('8.0.2-8.0.10', [8, 0, 0], [8, 0, 10]), to: [TO_8_0_EARLY, TO_8_0_LATE, TO_8_2] },
  { from: span('8.0.16 and later', [8, 0, 16], [8, 0, Number.POSITIVE_INFINITY]), to: [TO_8_0_LATE, TO_8_2] },
  { from: line(8, 2), to: [TO_8_2] },
];

/** The Kubernetes docs add a hop the RS table lacks: below 6.2.10, go to 6.2.10-45 before 6.2.18+. */
const HOP_RULE = { below: rs('6.2.10'), targetFrom: rs('6.2.18') };

/** The answer of checkUpgradePath. */
export interface UpgradePathResult {
  /** True when the cluster may go from one RS release to the other directly. */
  supported: boolean;
  /** False when the documented table has no row or column for a version: the answer is a guess. */
  known: boolean;
  /** Why it is not supported, for the check's message. */
  reason?: string;
  /** The operator version to upgrade to first, when an intermediate hop makes the path work. */
  via?: string;
}

type Direct = { supported: boolean; known: boolean; reason?: string; hop?: string };

function directPath(from: Release, to: Release): Direct {
  const fromText = from.join('.');
  const toText = to.join('.');
  const order = compareReleases(from, to);
  if (order === 0) return { supported: true, known: true };
  if (order > 0) {
    return {
      supported: false,
      known: true,
      reason: `RS ${toText} is older than ${fromText}: downgrades are not supported`,
    };
  }
  const row = UPGRADE_PATHS.find((p) => contains(p.from, from));
  if (!row) {
    return { supported: false, known: false, reason: `no documented upgrade path from RS ${fromText}` };
  }
  const sameLine = from[0] === to[0] && from[1] === to[1];
  if (!sameLine && !TARGET_COLUMNS.some((column) => contains(column, to))) {
    return { supported: false, known: false, reason: `no documented upgrade path to RS ${toText}` };
  }
  if (compareReleases(from, HOP_RULE.below) < 0 && compareReleases(to, HOP_RULE.targetFrom) >= 0) {
    return {
      supported: false,
      known: true,
      reason: `RS ${fromText} cannot go straight to ${toText}: upgrade to operator ${HOP_BEFORE_6_2_18} first`,
      hop: HOP_BEFORE_6_2_18,
    };
  }
  // Maintenance releases within one major.minor line always upgrade directly; the table
  // only spells this out for the lines that are also targets.
  if (sameLine) return { supported: true, known: true };
  if (row.to.some((c) => contains(c, to))) return { supported: true, known: true };
  const allowed = row.to.map((c) => c.label).join(', ');
  return {
    supported: false,
    known: true,
    reason: `RS ${row.from.label} can upgrade directly only to ${allowed}, not to ${toText}`,
  };
}

/**
 * Whether a cluster may upgrade directly from one RS release to another, per the documented
 * table (plus the Kubernetes-only 6.2.10-45 hop). Accepts `7.4.6`, `7.4.6-22` or image tags.
 * When the direct path is not supported, `via` names the newest catalogued operator release
 * to upgrade to first (from which the target is reachable directly, when one exists).
 * Same release (e.g. a newer build) is supported; a downgrade is not.
 */
export function checkUpgradePath(fromRs: RsVersionInput, toRs: RsVersionInput): UpgradePathResult {
  const from = rsOf(fromRs);
  const to = rsOf(toRs);
  if (!from || !to) {
    const bad = from ? toRs : fromRs;
    return { supported: false, known: false, reason: `cannot read an RS version from "${String(bad)}"` };
  }
  const direct = directPath(from, to);
  if (direct.supported || !direct.known || compareReleases(from, to) > 0) return withoutHop(direct);
  const via = direct.hop ?? intermediateFor(from, to);
  return via === undefined ? withoutHop(direct) : { ...withoutHop(direct), via };
}

function withoutHop({ hop: _hop, ...rest }: Direct): UpgradePathResult {
  return rest;
}

function intermediateFor(from: Release, to: Release): string | undefined {
  // Only releases whose bundle has a trustworthy tag: a hop the plan would then refuse helps no one.
  const reachable = catalogEntries().filter((entry) => {
    if (gitTagFor(entry.key) === undefined) return false;
    const hop = entry.defaultTag.rs;
    return compareReleases(from, hop) < 0 && compareReleases(hop, to) < 0 && directPath(from, hop).supported;
  });
  const completing = reachable.filter((entry) => directPath(entry.defaultTag.rs, to).supported);
  return (completing.at(-1) ?? reachable.at(-1))?.key;
}
