/**
 * The certified OperatorHub bundles of the Redis Enterprise operator, as the simulated catalog
 * offers them (src/sim/olm/catalog.ts). Read at the source, not from ctl: Red Hat's
 * redhat-openshift-ecosystem/certified-operators, `operators/redis-enterprise-operator-cert/<bundle>/`
 * at commit 3b7b563 (2026-08-22): `metadata/annotations.yaml` (channels) and
 * `manifests/redis-enterprise-operator-cert.clusterserviceversion.yaml` (spec.skips).
 *
 * One entry per operator release: the newest rebuild the repository holds (`7.4.6-2.8`; older
 * rebuilds of a release are superseded by it). What the bundles show (docs/simulator-internals.md
 * "OperatorHub"):
 * - channels: every bundle is in its release line's channel (`7.4.6`). A bundle of the newest
 *   release line at the time also goes to `production`; maintenance bundles of older lines do
 *   not (7.2.4-12.6 on, 7.4.6-6 on, 7.8.6-1.2 on, 7.22.2-31 on, 8.0.20-26.2). `production` is
 *   still fed (8.2.0-12.0, 8.2.0-13.0) and is still the default channel of the newest bundle.
 *   From 7.22.2-21.1 on, every bundle also has a channel of its own named after it
 *   (`7.22.2-43.0`); so has 7.22.0-11.3, which has no other.
 * - skips: a bundle skips the bundles published before it, from a floor on (7.4.2-12 to
 *   7.4.6-9 skip nothing older than 6.2.10-45, 7.8.2-6 on nothing older than 7.4.2-2.0). So a
 *   newer line does not skip maintenance bundles of an older line published after it: those
 *   are the holes below (8.2.0-13.0 does not skip 7.22.2-43.0 or 7.8.6-19.0). A release in a
 *   hole has no edge to that bundle. (The claim that 7.22.2-43.0 misses 7.4.6 rebuilds is not
 *   what the bundle says: it skips every 7.4.6 bundle in the repository.)
 *
 * Bundles published after that commit (release notes, "OLM operator bundle"; annotations of
 * 7.22.2-45.1 read from the search tool's index): 7.4.6-11.0 (August 2026), 7.8.6-20.1,
 * 7.22.2-45.1, 8.0.20-27.1, 8.2.0-15.1 (September), 7.4.6-12.0 and 8.2.0-18.0 (October). Their
 * channels follow the pattern above; their skips are taken as "every bundle published
 * before", with the month order of the notes (inferred, not read), except 8.2.0-18.0, whose
 * CSV was read at commit 0eb3663: it does not skip 7.4.6-12.0 (published the same month), so
 * no bundle at all has an edge from 7.4.6-12.
 */

export interface OlmBundleFacts {
  /** The bundle's version, the CSV name's tail: `7.22.2-43.0`. */
  bundle: string;
  /** In `production` besides its release line's channel. */
  production: boolean;
  /** Has a channel of its own named after the bundle. */
  ownChannel: boolean;
  /** Older releases it does not skip although above its floor (published after it). */
  holes: readonly string[];
}

const B = (bundle: string, production: boolean, ownChannel: boolean, holes: readonly string[] = []) => ({
  bundle,
  production,
  ownChannel,
  holes,
});

const L746 = ['7.4.6-6', '7.4.6-7', '7.4.6-9'];
const L786_LATE = ['7.8.6-11', '7.8.6-13', '7.8.6-14', '7.8.6-15', '7.8.6-16', '7.8.6-19'];
const L7222_LATE = [
  '7.22.2-31',
  '7.22.2-32',
  '7.22.2-37',
  '7.22.2-38',
  '7.22.2-39',
  '7.22.2-40',
  '7.22.2-42',
  '7.22.2-43',
];

/**
 * The 7.4.6 maintenance bundles published after the snapshot (7.4.6-11.0 in August, 7.4.6-12.0 in
 * October). No bundle of the snapshot can name them: 7.8.6-19.0's spec.skips ends at
 * redis-enterprise-operator.v7.4.6-9.0, and neither 7.22.2-43.0, 8.0.20-26.2 nor 8.2.0-13.0
 * lists a 7.4.6-11 or 7.4.6-12 CSV (certified-operators at 3b7b563). So they are holes of every
 * bundle the snapshot holds.
 */
const AFTER_SNAPSHOT_746 = ['7.4.6-11', '7.4.6-12'];
const AFTER_SNAPSHOT = new Set([
  ...AFTER_SNAPSHOT_746,
  '7.8.6-20',
  '7.22.2-45',
  '8.0.20-27',
  '8.2.0-15',
  '8.2.0-18',
]);

/** Keyed by operator release, oldest first. */
export const OLM_BUNDLES: ReadonlyMap<string, OlmBundleFacts> = withSnapshotHoles([
  ['6.2.8-2', B('6.2.8-2', true, false)],
  ['6.2.8-11', B('6.2.8-11', true, false)],
  ['6.2.8-15', B('6.2.8-15', true, false)],
  ['6.2.10-4', B('6.2.10-4', true, false)],
  ['6.2.10-34', B('6.2.10-34', true, false)],
  ['6.2.10-45', B('6.2.10-45', true, false)],
  ['6.2.12-1', B('6.2.12-1', true, false)],
  ['6.2.18-3', B('6.2.18-3a', true, false)],
  ['6.2.18-41', B('6.2.18-41c', true, false)],
  ['6.4.2-4', B('6.4.2-4.0', true, false)],
  ['6.4.2-5', B('6.4.2-5.0', true, false)],
  ['6.4.2-6', B('6.4.2-6.0', true, false)],
  ['6.4.2-8', B('6.4.2-8.11', true, false)],
  ['7.2.4-2', B('7.2.4-2.0', true, false, ['6.4.2-8'])],
  ['7.2.4-7', B('7.2.4-7.0', true, false, ['6.4.2-8'])],
  ['7.2.4-12', B('7.2.4-12.39', true, false)],
  ['7.2.4-15', B('7.2.4-15.41', false, false)],
  ['7.2.4-16', B('7.2.4-16.2', false, false)],
  ['7.4.2-2', B('7.4.2-2.6', true, false, ['6.4.2-8', '7.2.4-12', '7.2.4-15', '7.2.4-16'])],
  ['7.4.2-12', B('7.4.2-12.0', true, false, ['6.4.2-8', '7.2.4-12', '7.2.4-15', '7.2.4-16'])],
  ['7.4.6-2', B('7.4.6-2.8', true, false, ['7.2.4-12', '7.2.4-15', '7.2.4-16'])],
  ['7.4.6-6', B('7.4.6-6.4', false, false, ['7.2.4-15', '7.2.4-16'])],
  ['7.4.6-7', B('7.4.6-7.5', false, false, ['7.2.4-16'])],
  ['7.4.6-9', B('7.4.6-9.0', false, false)],
  ['7.4.6-11', B('7.4.6-11.0', false, false)],
  ['7.4.6-12', B('7.4.6-12.0', false, false)],
  ['7.8.2-6', B('7.8.2-6.8', true, false, L746)],
  ['7.8.4-8', B('7.8.4-8.0', true, false, L746)],
  ['7.8.4-9', B('7.8.4-9.0', true, false, L746)],
  ['7.8.6-1', B('7.8.6-1.2', true, false, L746)],
  ['7.8.6-2', B('7.8.6-2.2', false, false, L746)],
  ['7.8.6-3', B('7.8.6-3.2', false, false, ['7.4.6-7', '7.4.6-9'])],
  ['7.8.6-5', B('7.8.6-5.1', false, false, ['7.4.6-7', '7.4.6-9'])],
  ['7.8.6-8', B('7.8.6-8.1', false, false, ['7.4.6-7', '7.4.6-9'])],
  ['7.8.6-11', B('7.8.6-11.0', false, false)],
  ['7.8.6-13', B('7.8.6-13.0', false, false)],
  ['7.8.6-14', B('7.8.6-14.0', false, false)],
  ['7.8.6-15', B('7.8.6-15.0', false, false)],
  ['7.8.6-16', B('7.8.6-16.0', false, false)],
  ['7.8.6-19', B('7.8.6-19.0', false, false)],
  ['7.8.6-20', B('7.8.6-20.1', false, false, ['7.4.6-12'])],
  [
    '7.22.0-7',
    B('7.22.0-7.0', true, false, [
      ...L746,
      '7.8.6-1',
      '7.8.6-2',
      '7.8.6-3',
      '7.8.6-5',
      '7.8.6-8',
      ...L786_LATE,
    ]),
  ],
  ['7.22.0-11', B('7.22.0-11.3', true, true, [...L746, '7.8.6-3', '7.8.6-5', '7.8.6-8', ...L786_LATE])],
  [
    '7.22.0-15',
    B('7.22.0-15.0', true, false, ['7.4.6-7', '7.4.6-9', '7.8.6-5', '7.8.6-8', ...L786_LATE, '7.22.0-11']),
  ],
  [
    '7.22.0-16',
    B('7.22.0-16.0', true, false, ['7.4.6-7', '7.4.6-9', '7.8.6-5', '7.8.6-8', ...L786_LATE, '7.22.0-11']),
  ],
  ['7.22.0-17', B('7.22.0-17.0', true, false, ['7.4.6-7', '7.4.6-9', '7.8.6-8', ...L786_LATE, '7.22.0-11'])],
  ['7.22.2-21', B('7.22.2-21.1', true, true, ['7.4.6-7', '7.4.6-9', ...L786_LATE])],
  ['7.22.2-22', B('7.22.2-22.0', true, true, ['7.4.6-7', '7.4.6-9', ...L786_LATE])],
  ['7.22.2-31', B('7.22.2-31.1', false, true, ['7.4.6-7', '7.4.6-9', ...L786_LATE])],
  ['7.22.2-32', B('7.22.2-32.1', false, true, ['7.4.6-9', ...L786_LATE])],
  ['7.22.2-37', B('7.22.2-37.1', false, true, L786_LATE.slice(1))],
  ['7.22.2-38', B('7.22.2-38.0', false, true, L786_LATE.slice(2))],
  ['7.22.2-39', B('7.22.2-39.0', false, true, L786_LATE.slice(3))],
  ['7.22.2-40', B('7.22.2-40.0', false, true, L786_LATE.slice(4))],
  ['7.22.2-42', B('7.22.2-42.0', false, true, L786_LATE.slice(5))],
  ['7.22.2-43', B('7.22.2-43.0', false, true)],
  ['7.22.2-45', B('7.22.2-45.1', false, true, ['7.4.6-12'])],
  ['8.0.2-2', B('8.0.2-2.9', true, true, ['7.4.6-7', '7.4.6-9', ...L786_LATE, ...L7222_LATE])],
  ['8.0.2-6', B('8.0.2-6.1', true, true, ['7.4.6-7', '7.4.6-9', ...L786_LATE, ...L7222_LATE])],
  ['8.0.6-8', B('8.0.6-8.0', true, true, ['7.4.6-9', ...L786_LATE, ...L7222_LATE.slice(1)])],
  ['8.0.10-21', B('8.0.10-21.0', true, true, [...L786_LATE, ...L7222_LATE.slice(2)])],
  ['8.0.10-22', B('8.0.10-22.0', true, true, [...L786_LATE.slice(1), ...L7222_LATE.slice(3)])],
  ['8.0.10-23', B('8.0.10-23.0', true, true, [...L786_LATE.slice(1), ...L7222_LATE.slice(3)])],
  ['8.0.16-24', B('8.0.16-24.4', true, true, [...L786_LATE.slice(2), ...L7222_LATE.slice(4)])],
  ['8.0.16-25', B('8.0.16-25.0', true, true, [...L786_LATE.slice(2), ...L7222_LATE.slice(4)])],
  ['8.0.18-11', B('8.0.18-11.0', true, true, [...L786_LATE.slice(3), ...L7222_LATE.slice(5)])],
  ['8.0.18-14', B('8.0.18-14.2', true, true, [...L786_LATE.slice(3), ...L7222_LATE.slice(5)])],
  ['8.0.20-21', B('8.0.20-21.0', true, true, [...L786_LATE.slice(3), ...L7222_LATE.slice(5)])],
  ['8.0.20-23', B('8.0.20-23.0', true, true, [...L786_LATE.slice(3), ...L7222_LATE.slice(6)])],
  ['8.0.20-25', B('8.0.20-25.0', true, true, [...L786_LATE.slice(3), '7.22.2-43'])],
  ['8.0.20-26', B('8.0.20-26.2', false, true, [...L786_LATE.slice(3), '7.22.2-43'])],
  ['8.0.20-27', B('8.0.20-27.1', false, true, ['7.4.6-12'])],
  ['8.2.0-12', B('8.2.0-12.0', true, true, ['7.8.6-19', '7.22.2-43', '8.0.20-26'])],
  ['8.2.0-13', B('8.2.0-13.0', true, true, ['7.8.6-19', '7.22.2-43', '8.0.20-26'])],
  ['8.2.0-15', B('8.2.0-15.1', true, true, ['7.4.6-12'])],
  // Read, not inferred: 8.2.0-18.0's spec.skips (certified-operators commit 0eb3663) ends with
  // 7.4.6-11.0, 7.8.6-20.1, 7.22.2-45.1, 8.0.20-27.1 and 8.2.0-15.1; it lists no 7.4.6-12.0 and
  // has no spec.replaces, so OLM offers 7.4.6-12 no update to it.
  ['8.2.0-18', B('8.2.0-18.0', true, true, ['7.4.6-12'])],
]);

/** Adds the bundles published after the snapshot to the holes of every bundle it holds. */
function withSnapshotHoles(entries: [string, OlmBundleFacts][]): Map<string, OlmBundleFacts> {
  return new Map(
    entries.map(([operator, facts]) => [
      operator,
      AFTER_SNAPSHOT.has(operator) ? facts : { ...facts, holes: [...facts.holes, ...AFTER_SNAPSHOT_746] },
    ]),
  );
}

/**
 * The oldest release a bundle skips: 7.4.2-12 to 7.4.6-9 skip nothing before 6.2.10-45, 7.8.2-6
 * on nothing before 7.4.2-2 (the first entry of their spec.skips); older bundles skip every
 * older release.
 */
export function skipFloor(numbers: readonly number[]): string | undefined {
  const [major = 0, minor = 0] = numbers;
  if (major > 7 || (major === 7 && minor >= 8)) return '7.4.2-2';
  if (major === 7 && minor === 4 && !(numbers[2] === 2 && (numbers[3] ?? 0) < 12)) return '6.2.10-45';
  return undefined;
}
