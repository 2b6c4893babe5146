/**
 * The simulated OperatorHub catalog of the Redis Enterprise operator: which
 * ClusterServiceVersions (CSVs) each channel of the package offers. Built from the simulated
 * world's own release list (world/releases.ts), not from ctl's catalog.
 *
 * Sources: DOCS `kubernetes/upgrade/upgrade-olm.md` ("If you wish to upgrade to the most recent
 * version, set your Update channel to "production". If you wish to upgrade to an older version,
 * select it for your Update channel"); DOCS `kubernetes/deployment/openshift/openshift-operatorhub.md`
 * ("Update the channel with the version you're installing"; the operator "provided by Redis
 * marked as Certified"). Chosen here, not documented: one channel per release line named
 * `<major>.<minor>.<patch>` (`7.8.6`) holding that line's releases, `production` holding every
 * release; the package name `redis-enterprise-operator-cert` in catalog `certified-operators`
 * of `openshift-marketplace` (Red Hat's certified catalog); CSV names
 * `redis-enterprise-operator.v<version>` (SIMULATOR.md's startingCSV example).
 */

import { releasedOperatorVersions } from '../world/releases.js';
import { compareNumbers, operatorNumbers } from '../world/versions.js';

export const OLM_PACKAGE = 'redis-enterprise-operator-cert';
export const OLM_CATALOG_SOURCE = 'certified-operators';
export const OLM_CATALOG_NAMESPACE = 'openshift-marketplace';
export const PRODUCTION_CHANNEL = 'production';
/** The Subscription's name as the OpenShift console creates it: the package name. */
export const OLM_SUBSCRIPTION_NAME = OLM_PACKAGE;

const CSV_PREFIX = 'redis-enterprise-operator.v';

export function csvName(operatorVersion: string): string {
  return `${CSV_PREFIX}${operatorVersion}`;
}

/** `redis-enterprise-operator.v7.8.2-6` -> `7.8.2-6`; undefined for another package's CSV. */
export function versionOfCsv(name: string): string | undefined {
  if (!name.startsWith(CSV_PREFIX)) return undefined;
  const version = name.slice(CSV_PREFIX.length);
  return operatorNumbers(version) ? version : undefined;
}

function releaseLine(version: string): string | undefined {
  const numbers = operatorNumbers(version);
  return numbers ? numbers.slice(0, 3).join('.') : undefined;
}

/** Every channel: `production` and one per release line, newest line last. */
export function olmChannels(): string[] {
  const lines: string[] = [];
  for (const version of releasedOperatorVersions()) {
    const line = releaseLine(version);
    if (line && !lines.includes(line)) lines.push(line);
  }
  return [PRODUCTION_CHANNEL, ...lines];
}

/** The operator versions a channel offers, oldest first; empty for an unknown channel. */
export function channelVersions(channel: string): string[] {
  const all = [...releasedOperatorVersions()].sort((a, b) =>
    compareNumbers(operatorNumbers(a) ?? [], operatorNumbers(b) ?? []),
  );
  if (channel === PRODUCTION_CHANNEL) return all;
  return all.filter((version) => releaseLine(version) === channel);
}

/** The channel's head: the newest version it offers. */
export function channelHead(channel: string): string | undefined {
  return channelVersions(channel).at(-1);
}
