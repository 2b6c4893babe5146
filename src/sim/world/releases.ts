/**
 * The simulated world's release facts: which operator releases exist, which Redis Software
 * (RS) image each one rolls a cluster to, which database versions each RS release bundles,
 * where the admission webhook was renamed, from which release Active-Active versions upgrade
 * through the REAADB, and when tokens are invalidated.
 *
 * Written from the sources, not from ctl's catalog (SIMULATOR.md "Independence"): when ctl
 * gets a fact wrong, a test against the simulator must be able to fail. Sources:
 * - CSV-NOTES: shared/reference/redis-enterprise-k8s/operator-release-images.csv, the
 *   "Downloads" section of each release-notes page in redis/docs
 *   `content/operate/kubernetes/release-notes/**` (commit 63f31f69).
 * - CSV-TAGS: shared/reference/redis-enterprise-k8s/k8s-docs-tags.csv, the OpenShift example
 *   REC (`openshift/rec_rhel.yaml`) at each git tag of RedisLabs/redis-enterprise-k8s-docs.
 * - FACTS: shared/research/redis-facts.md, §12 first.
 */

import { compareNumbers, isNewerDatabase, operatorAtLeast, operatorNumbers, rsOfTag } from './versions.js';

/**
 * Each operator release with the cluster image tags published for it, oldest first. A release
 * re-published with newer RS maintenance builds lists them all; the operator's built-in
 * default is the newest (each re-publication ships an operator whose default is its own image).
 * 6.0.12-5 .. 7.2.4-16: CSV-TAGS (the OpenShift tag without its `.rhelN-openshift` suffix).
 * 7.2.4-12 and 7.2.4-15 were re-published with builds 105..130 and 144 (FACTS §12, DOCS
 * `kubernetes/release-notes/7-2-4-releases/*`). 7.4.2-2 on: CSV-NOTES. CSV-TAGS has
 * `8.0.18-23` for 8.0.18-11 where CSV-NOTES has `8.0.18-23.11`; the notes win.
 *
 * Read again on 2026-11-26 (redis/docs as stored by the search tool's index; the "Downloads"
 * section of each page): 7.4.6-11 `7-4-6-releases/7-4-6-11-august2026.md` (7.4.6-283),
 * 7.4.6-12 `7-4-6-12-october2026.md` (7.4.6-293), 7.8.6-20 `7-8-6-releases/7-8-6-20-september2026.md`
 * (7.8.6-315), 7.22.2-45 `7-22-2-releases/7-22-2-45-september2026.md` (7.22.2-189), 8.0.20-27
 * `8-0-20-releases/8-0-20-27-september2026.md` (8.0.20-108.27), 8.2.0-15
 * `8-2-0-releases/8-2-0-15-september2026.md` (8.2.0-78.15), 8.2.0-18 `8-2-0-18-october2026.md`
 * (8.2.0-78.18). There is no 8.2.0-8: `8-2-0-8-july2026.md` was the pre-release draft of
 * 8.2.0-12, renamed by redis/docs commit f0a8f08 ("build number", 2026-07-21) before any
 * release ("TODO: swap to the GA build numbers"); no certified bundle 8.2.0-8 exists either.
 */
export const RELEASES: readonly (readonly [operator: string, clusterTags: readonly string[]])[] = [
  ['6.0.12-5', ['6.0.12-57']],
  ['6.0.20-4', ['6.0.20-69']],
  ['6.0.20-12', ['6.0.20-97']],
  ['6.2.4-1', ['6.2.4-55']],
  ['6.2.8-2', ['6.2.8-41']],
  ['6.2.8-11', ['6.2.8-53']],
  ['6.2.8-15', ['6.2.8-64']],
  ['6.2.10-4', ['6.2.10-90']],
  ['6.2.10-34', ['6.2.10-107']],
  ['6.2.10-45', ['6.2.10-129']],
  ['6.2.12-1', ['6.2.12-82']],
  ['6.2.18-3', ['6.2.18-58']],
  // Re-published with 6.2.18-72 (previous-releases/k8s-6-2-18-41-jan-2023.md, "Images").
  ['6.2.18-41', ['6.2.18-65', '6.2.18-72']],
  ['6.4.2-4', ['6.4.2-43']],
  ['6.4.2-5', ['6.4.2-61']],
  ['6.4.2-6', ['6.4.2-81']],
  // Re-published with 6.4.2-103 and 6.4.2-115 (previous-releases/6-4-2-8-dec23.md, 6-4-2-8-oct24.md).
  ['6.4.2-8', ['6.4.2-94', '6.4.2-103', '6.4.2-115']],
  ['7.2.4-2', ['7.2.4-52']],
  ['7.2.4-7', ['7.2.4-64']],
  ['7.2.4-12', ['7.2.4-92', '7.2.4-105', '7.2.4-109', '7.2.4-117', '7.2.4-118', '7.2.4-122', '7.2.4-130']],
  ['7.2.4-15', ['7.2.4-138', '7.2.4-144']],
  ['7.2.4-16', ['7.2.4-153']],
  ['7.4.2-2', ['7.4.2-54', '7.4.2-104']],
  ['7.4.2-12', ['7.4.2-129']],
  ['7.4.6-2', ['7.4.6-22', '7.4.6-77', '7.4.6-102']],
  ['7.4.6-6', ['7.4.6-102', '7.4.6-233', '7.4.6-268']],
  ['7.4.6-7', ['7.4.6-272', '7.4.6-275']],
  ['7.4.6-9', ['7.4.6-279']],
  ['7.4.6-11', ['7.4.6-283']],
  ['7.4.6-12', ['7.4.6-293']],
  ['7.8.2-6', ['7.8.2-34', '7.8.2-60']],
  ['7.8.4-8', ['7.8.4-66']],
  ['7.8.4-9', ['7.8.4-95']],
  ['7.8.6-1', ['7.8.6-13', '7.8.6-36', '7.8.6-60']],
  ['7.8.6-2', ['7.8.6-95']],
  ['7.8.6-3', ['7.8.6-119']],
  ['7.8.6-5', ['7.8.6-152']],
  ['7.8.6-8', ['7.8.6-207']],
  ['7.8.6-11', ['7.8.6-253']],
  ['7.8.6-13', ['7.8.6-256']],
  ['7.8.6-14', ['7.8.6-260']],
  ['7.8.6-15', ['7.8.6-263']],
  ['7.8.6-16', ['7.8.6-286']],
  ['7.8.6-19', ['7.8.6-303']],
  ['7.8.6-20', ['7.8.6-315']],
  ['7.22.0-7', ['7.22.0-28']],
  ['7.22.0-11', ['7.22.0-95']],
  ['7.22.0-15', ['7.22.0-216']],
  ['7.22.0-16', ['7.22.0-241']],
  ['7.22.0-17', ['7.22.0-250']],
  ['7.22.2-21', ['7.22.2-14']],
  ['7.22.2-22', ['7.22.2-20']],
  ['7.22.2-31', ['7.22.2-41']],
  ['7.22.2-32', ['7.22.2-55']],
  ['7.22.2-37', ['7.22.2-79']],
  ['7.22.2-38', ['7.22.2-93']],
  ['7.22.2-39', ['7.22.2-116']],
  ['7.22.2-40', ['7.22.2-133']],
  ['7.22.2-42', ['7.22.2-170']],
  ['7.22.2-43', ['7.22.2-179']],
  ['7.22.2-45', ['7.22.2-189']],
  ['8.0.2-2', ['8.0.2-17']],
  ['8.0.2-6', ['8.0.2-41']],
  ['8.0.6-8', ['8.0.6-54']],
  ['8.0.10-21', ['8.0.10-64']],
  ['8.0.10-22', ['8.0.10-76']],
  ['8.0.10-23', ['8.0.10-81']],
  ['8.0.16-24', ['8.0.16-29']],
  ['8.0.16-25', ['8.0.16-33']],
  ['8.0.18-11', ['8.0.18-23.11']],
  ['8.0.18-14', ['8.0.18-36.14']],
  ['8.0.20-21', ['8.0.20-19.21']],
  ['8.0.20-23', ['8.0.20-44.23']],
  ['8.0.20-25', ['8.0.20-68.25']],
  ['8.0.20-26', ['8.0.20-96.26']],
  ['8.0.20-27', ['8.0.20-108.27']],
  ['8.2.0-12', ['8.2.0-25.12']],
  ['8.2.0-13', ['8.2.0-46.13']],
  ['8.2.0-15', ['8.2.0-78.15']],
  ['8.2.0-18', ['8.2.0-78.18']],
];

/**
 * OpenShift images whose tag the sources give and the suffix rule below would not produce. None
 * now: 7.4.6-6 was `7.4.6-232.rhel8-openshift` in March 2025 (FACTS §12), but its June 2025
 * re-publication (`7-4-6-releases/7-4-6-6-june25.md`, "OpenShift images") ships
 * `7.4.6-268.rhel8-openshift`, the newest tag plus the suffix, which the rule gives.
 */
const OPENSHIFT_TAGS: ReadonlyMap<string, string> = new Map();

const BY_OPERATOR: ReadonlyMap<string, readonly string[]> = new Map(
  RELEASES.map(([operator, tags]) => [operator, tags]),
);

/**
 * The node `software_version` of a cluster an operator release runs (`8.0.20-26` ->
 * `8.0.20-96`): its default tag without the operator build; undefined for an unknown release.
 */
export function softwareVersionOf(operatorVersion: string): string | undefined {
  const tag = defaultClusterTag(operatorVersion, 'kubernetes');
  return tag === undefined ? undefined : /^(\d+\.\d+\.\d+-\d+)/.exec(tag)?.[1];
}

/** Every operator release the simulated world knows, oldest first (the artifacts it serves). */
export function releasedOperatorVersions(): string[] {
  return RELEASES.map(([operator]) => operator);
}

/**
 * The RS image tag an operator release rolls a cluster to when auto-upgrade is on (its
 * built-in default): the newest published for it. OpenShift tags carry `.rhel7-openshift`
 * before 6.2.10-34 and `.rhel8-openshift` before 7.8.4-9 (CSV-TAGS: 6.2.8-15 rhel7, 6.2.10-34
 * rhel8, 7.8.4-8 suffixed, 7.8.4-9 plain). Undefined for a release the world does not know.
 */
export function defaultClusterTag(
  operatorVersion: string,
  platform: 'kubernetes' | 'openshift',
): string | undefined {
  const tags = BY_OPERATOR.get(operatorVersion);
  if (!tags) return undefined;
  const newest = tags.at(-1)!;
  if (platform !== 'openshift') return newest;
  const listed = OPENSHIFT_TAGS.get(operatorVersion);
  if (listed) return listed;
  if (operatorAtLeast(operatorVersion, '7.8.4-9')) return newest;
  return `${newest}.${operatorAtLeast(operatorVersion, '6.2.10-34') ? 'rhel8' : 'rhel7'}-openshift`;
}

/**
 * Database versions an RS release bundles, oldest first, and the default for new and upgraded
 * databases: DOCS `content/embeds/rs-bundled-db-versions.md` (the table embedded in
 * `operate/rs/8.0/installing-upgrading/upgrading/upgrade-database.md`, "Default Redis
 * database versions"), also FACTS §3. RS 6.2.x defaults to 6.0, not to its newest.
 */
const BUNDLED: readonly {
  from: readonly number[];
  to: readonly number[];
  versions: readonly string[];
  default: string;
}[] = [
  {
    from: [8, 0, 18],
    to: [8, 2, 0],
    versions: ['6.2', '7.2', '7.4', '8.0', '8.2', '8.4', '8.6'],
    default: '8.6',
  },
  { from: [8, 0, 10], to: [8, 0, 16], versions: ['6.2', '7.2', '7.4', '8.0', '8.2', '8.4'], default: '8.4' },
  { from: [8, 0, 2], to: [8, 0, 6], versions: ['6.2', '7.2', '7.4', '8.0', '8.2'], default: '8.2' },
  { from: [7, 8, 0], to: [7, 22, 999], versions: ['6.2', '7.2', '7.4'], default: '7.4' },
  { from: [7, 2, 4], to: [7, 4, 999], versions: ['6.0', '6.2', '7.2'], default: '7.2' },
  { from: [6, 4, 2], to: [6, 4, 2], versions: ['6.0', '6.2'], default: '6.2' },
  { from: [6, 2, 0], to: [6, 2, 999], versions: ['6.0', '6.2'], default: '6.0' },
];

function bundledRow(clusterTag: string): (typeof BUNDLED)[number] | undefined {
  const rs = rsOfTag(clusterTag);
  return rs && BUNDLED.find((r) => compareNumbers(r.from, rs) <= 0 && compareNumbers(rs, r.to) <= 0);
}

/** The default database version of the RS release of a cluster image tag; undefined when unknown. */
export function defaultDatabaseVersion(clusterTag: string): string | undefined {
  return bundledRow(clusterTag)?.default;
}

/** Database versions bundled by the RS release of a cluster image tag; empty when unknown. */
export function bundledDatabaseVersions(clusterTag: string): readonly string[] {
  return bundledRow(clusterTag)?.versions ?? [];
}

/**
 * Cluster images from RS 7.8.2 on (those of operator 7.8.2-6) run RHEL9: every database must be
 * at 7.2 or later and every module in use needs a build for a platform that RAMP's RLEC_OS_MAP
 * maps to rhel9 (`rhel9/...`, `rocky9/...`; docs/simulator-internals.md), or the upgrade freezes
 * (DOCS `kubernetes/release-notes/7-8-2-releases/_index.md`; FACTS §3).
 */
export const RHEL9_FROM_RS: readonly number[] = [7, 8, 2];
export const MIN_DATABASE_ON_RHEL9 = '7.2';

export function clusterTagRunsRhel9(clusterTag: string): boolean {
  const rs = rsOfTag(clusterTag);
  return rs !== undefined && compareNumbers(rs, RHEL9_FROM_RS) >= 0;
}

/** True when a database at `version` is too old for a RHEL9 cluster image. */
export function databaseTooOldForRhel9(version: string): boolean {
  return isNewerDatabase(MIN_DATABASE_ON_RHEL9, version);
}

/**
 * The ValidatingWebhookConfiguration and its webhook entry: `redis-enterprise-admission` /
 * `redisenterprise.admission.redislabs` from 6.4.2 on, `redb-admission` /
 * `redb.admission.redislabs` before (FACTS §1: K8S `admission/webhook.yaml` now and at
 * v6.2.10-45; DOCS embed `k8s-642-redb-admission-webhook-name-change.md`).
 */
export function admissionWebhookName(
  operatorVersion: string,
): 'redis-enterprise-admission' | 'redb-admission' {
  return renamedWebhook(operatorVersion) ? 'redis-enterprise-admission' : 'redb-admission';
}

export function admissionWebhookEntryName(
  operatorVersion: string,
): 'redisenterprise.admission.redislabs' | 'redb.admission.redislabs' {
  return renamedWebhook(operatorVersion) ? 'redisenterprise.admission.redislabs' : 'redb.admission.redislabs';
}

function renamedWebhook(operatorVersion: string): boolean {
  const n = operatorNumbers(operatorVersion);
  // Every build of 6.4.2 counts; an unreadable version is taken as a current one.
  return n === undefined || compareNumbers(n.slice(0, 3), [6, 4, 2]) >= 0;
}

/**
 * Active-Active database versions upgrade through the REAADB from operator 8.0.2-2 on
 * (DOCS `operate/kubernetes/upgrade/upgrade-redis-cluster.md`; FACTS §3).
 */
export function upgradesActiveActiveThroughReaadb(operatorVersion: string): boolean {
  return operatorAtLeast(operatorVersion, '8.0.2-2');
}
