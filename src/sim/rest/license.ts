/**
 * The cluster's licence as the management API tells it: `GET /v1/license` (redis/docs
 * content/operate/rs/references/rest-api/requests/license/_index.md, "Get license"), and the
 * same facts the simulated operator mirrors into the REC's `status.licenseStatus`
 * (src/sim/operator/cluster-objects.ts licenseStatus), so the two never disagree.
 *
 * The documented answer: `license` and `key` (the licence text), `cluster_name` (the FQDN),
 * `expired`, `activation_date`, `expiration_date`, `features`, `owner`, `shards_limit`,
 * `ram_shards_limit` and `flash_shards_limit` ("as of v7.2"), `ram_shards_in_use`,
 * `flash_shards_in_use`; 404 "No license is installed". Permission `view_license`, which every
 * management role but none has (rest-api/permissions.md, "Roles list per permission").
 *
 * An `Invalid` licence: "If you do not provide a valid license, the cluster behaves as if the
 * license was deleted" (the same page, "Update license"), so GET answers the 404 of no licence.
 * Ours, since the docs do not say: that 404's `error_code`, the owner, and no features (the
 * simulator has no Auto Tiering; every shard is a RAM one: rest/shards.ts).
 */

import { rsAtLeast } from './access.js';

export type LicenseState = 'Valid' | 'Invalid' | 'Expired';

/** What a scenario's licence is: its state, dates and shard limit (set when the cluster is seeded). */
export interface ClusterLicense {
  state: LicenseState;
  /** The licence text (what spec.license or the licence Secret holds). */
  text: string;
  activationDate: string;
  expirationDate: string;
  shardsLimit: number;
}

/** The first RS whose licence has limits by shard type (the "as of v7.2" fields). */
const LIMITS_BY_SHARD_TYPE_SINCE = [7, 2, 0] as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Seconds precision, `2019-12-31T00:00:00Z`, as the documented example writes dates. */
function isoSeconds(time: number): string {
  return new Date(time).toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * The licence of a scenario: activated 30 days ago, expiring in a year (a week ago when
 * Expired). The limit is ours (a scenario states only the licence's state): four shards a node,
 * never below the trial's four (rs/clusters/configure/license-keys.md) nor below what the
 * databases use, since a valid licence holds them.
 */
export function scenarioLicense(
  state: LicenseState,
  text: string,
  nodes: number,
  now: Date,
  shardsInUse: number,
): ClusterLicense {
  const expired = state === 'Expired';
  return {
    state,
    text,
    activationDate: isoSeconds(now.getTime() - 30 * DAY_MS),
    expirationDate: isoSeconds(now.getTime() + (expired ? -7 : 365) * DAY_MS),
    shardsLimit: Math.max(4, nodes * 4, shardsInUse),
  };
}

export interface LicenseAnswer {
  status: number;
  body: unknown;
}

/** GET /v1/license of a cluster of RS `serverVersion`, named `clusterName`, with `shardsInUse` shards. */
export function licenseAnswer(
  license: ClusterLicense | undefined,
  serverVersion: string,
  clusterName: string,
  shardsInUse: number,
): LicenseAnswer {
  if (!license || license.state === 'Invalid')
    return { status: 404, body: { error_code: 'license_not_found', description: 'No license is installed' } };
  const byShardType = rsAtLeast(serverVersion, [...LIMITS_BY_SHARD_TYPE_SINCE]);
  return {
    status: 200,
    body: {
      license: license.text,
      key: license.text,
      cluster_name: clusterName,
      expired: license.state === 'Expired',
      activation_date: license.activationDate,
      expiration_date: license.expirationDate,
      features: [],
      owner: 'Simulated Ltd.',
      shards_limit: license.shardsLimit,
      ...(byShardType ? { ram_shards_limit: license.shardsLimit, flash_shards_limit: 0 } : {}),
      ram_shards_in_use: shardsInUse,
      flash_shards_in_use: 0,
    },
  };
}
