/**
 * Which OpenShift versions OperatorHub offers each certified bundle on: the bundle's
 * `com.redhat.openshift.versions` annotation (metadata/annotations.yaml of
 * redhat-openshift-ecosystem/certified-operators `operators/redis-enterprise-operator-cert/<bundle>/`).
 * Read at the source, not from ctl: commit 3b7b563 (2026-08-22) for the bundles it holds;
 * 7.22.2-45.1 (commit 6c7f544), 8.0.20-27.1 (4ecc905), 8.2.0-15.1 (ff7638f) and 8.2.0-18.0
 * (0eb3663) from the search tool's index. 7.4.6-11.0, 7.4.6-12.0 and 7.8.6-20.1 were not in the
 * index: they take their line's range (7.4.6-9.0: v4.12-v4.16, 7.8.6-19.0: v4.13-v4.18;
 * inferred, not read).
 *
 * Red Hat's form ("Managing OpenShift versions" of the certified-operator pipeline): `v4.12-v4.16`
 * is 4.12 to 4.16; `v4.6` alone is 4.6 and later; `=v4.6` is 4.6 only.
 */
const RANGES: Readonly<Record<string, string>> = {
  '6.2.8-2': 'v4.6-v4.8',
  '6.2.8-11': 'v4.6-v4.9',
  '6.2.8-15': 'v4.6-v4.9',
  '6.2.10-4': 'v4.6-v4.9',
  '6.2.10-34': 'v4.6',
  '6.2.10-45': 'v4.6',
  '6.2.12-1': 'v4.7-v4.11',
  '6.2.18-3a': 'v4.9-v4.11',
  '6.2.18-41c': 'v4.8-v4.11',
  '6.4.2-4.0': 'v4.8-v4.12',
  '6.4.2-5.0': 'v4.8-v4.12',
  '6.4.2-6.0': 'v4.10-v4.12',
  '6.4.2-8.11': 'v4.12-v4.12',
  '7.2.4-2.0': 'v4.10-v4.13',
  '7.2.4-7.0': 'v4.10-v4.13',
  '7.2.4-12.39': 'v4.11-v4.14',
  '7.2.4-15.41': 'v4.11-v4.14',
  '7.2.4-16.2': 'v4.11-v4.14',
  '7.4.2-2.6': 'v4.11-v4.14',
  '7.4.2-12.0': 'v4.11-v4.15',
  '7.4.6-2.8': 'v4.12-v4.16',
  '7.4.6-6.4': 'v4.12-v4.16',
  '7.4.6-7.5': 'v4.12-v4.16',
  '7.4.6-9.0': 'v4.12-v4.16',
  '7.4.6-11.0': 'v4.12-v4.16',
  '7.4.6-12.0': 'v4.12-v4.16',
  '7.8.2-6.8': 'v4.12-v4.16',
  '7.8.4-8.0': 'v4.12-v4.16',
  '7.8.4-9.0': 'v4.12-v4.18',
  '7.8.6-1.2': 'v4.13-v4.18',
  '7.8.6-2.2': 'v4.13-v4.18',
  '7.8.6-3.2': 'v4.13-v4.18',
  '7.8.6-5.1': 'v4.13-v4.18',
  '7.8.6-8.1': 'v4.13-v4.18',
  '7.8.6-11.0': 'v4.13-v4.18',
  '7.8.6-13.0': 'v4.13-v4.18',
  '7.8.6-14.0': 'v4.13-v4.18',
  '7.8.6-15.0': 'v4.13-v4.18',
  '7.8.6-16.0': 'v4.13-v4.18',
  '7.8.6-19.0': 'v4.13-v4.18',
  '7.8.6-20.1': 'v4.13-v4.18',
  '7.22.0-7.0': 'v4.15-v4.18',
  '7.22.0-11.3': 'v4.15-v4.18',
  '7.22.0-15.0': 'v4.15-v4.19',
  '7.22.0-16.0': 'v4.15-v4.19',
  '7.22.0-17.0': 'v4.15-v4.19',
  '7.22.2-21.1': 'v4.15-v4.19',
  '7.22.2-22.0': 'v4.15-v4.19',
  '7.22.2-31.1': 'v4.15-v4.19',
  '7.22.2-32.1': 'v4.15-v4.19',
  '7.22.2-37.1': 'v4.15-v4.19',
  '7.22.2-38.0': 'v4.15-v4.19',
  '7.22.2-39.0': 'v4.15-v4.19',
  '7.22.2-40.0': 'v4.15-v4.19',
  '7.22.2-42.0': 'v4.15-v4.19',
  '7.22.2-43.0': 'v4.15-v4.19',
  '7.22.2-45.1': 'v4.15-v4.19',
  '8.0.2-2.9': 'v4.16-v4.20',
  '8.0.2-6.1': 'v4.16-v4.20',
  '8.0.6-8.0': 'v4.17-v4.20',
  '8.0.10-21.0': 'v4.17-v4.20',
  '8.0.10-22.0': 'v4.17-v4.20',
  '8.0.10-23.0': 'v4.17-v4.20',
  '8.0.16-24.4': 'v4.17-v4.21',
  '8.0.16-25.0': 'v4.17-v4.21',
  '8.0.18-11.0': 'v4.18-v4.21',
  '8.0.18-14.2': 'v4.18-v4.21',
  '8.0.20-21.0': 'v4.18-v4.21',
  '8.0.20-23.0': 'v4.18-v4.21',
  '8.0.20-25.0': 'v4.18-v4.21',
  '8.0.20-26.2': 'v4.18-v4.21',
  '8.0.20-27.1': 'v4.18-v4.21',
  '8.2.0-12.0': 'v4.19-v4.22',
  '8.2.0-13.0': 'v4.19-v4.22',
  '8.2.0-15.1': 'v4.19-v4.22',
  '8.2.0-18.0': 'v4.19-v4.22',
};

/** The annotation of a certified bundle (`7.22.2-45.1`); undefined for one it does not name. */
export function openshiftRangeOf(bundle: string): string | undefined {
  return RANGES[bundle];
}

const minorOf = (version: string): number | undefined => {
  const m = /^v?4\.(\d+)/.exec(version.trim());
  return m?.[1] === undefined ? undefined : Number(m[1]);
};

/**
 * Whether OperatorHub offers a bundle with annotation `range` on OpenShift `openshift` (`4.16`
 * or `4.16.8`). No annotation, or a form not read here: offered (nothing narrows it).
 */
export function offeredOn(range: string | undefined, openshift: string): boolean {
  const minor = minorOf(openshift);
  if (range === undefined || minor === undefined) return true;
  const exact = /^=\s*(v4\.\d+)$/.exec(range.trim());
  if (exact?.[1]) return minorOf(exact[1]) === minor;
  const [low, high] = range.split('-');
  const from = low === undefined ? undefined : minorOf(low);
  if (from === undefined) return true;
  const to = high === undefined ? Infinity : (minorOf(high) ?? Infinity);
  return minor >= from && minor <= to;
}
