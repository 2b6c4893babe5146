/**
 * The simulated OperatorHub catalog of the Redis Enterprise operator: which
 * ClusterServiceVersions (CSVs) each channel of the package offers, what each CSV is named and
 * which older CSVs it skips. Built from the simulated world's own release list
 * (world/releases.ts), not from ctl's catalog.
 *
 * Sources: DOCS `kubernetes/upgrade/upgrade-olm.md` ("If you wish to upgrade to the most recent
 * version, set your Update channel to "production". If you wish to upgrade to an older version,
 * select it for your Update channel"); Red Hat's certified bundle, certified-operators
 * `operators/redis-enterprise-operator-cert/7.22.0-11.2/metadata/annotations.yaml` (package
 * `redis-enterprise-operator-cert`, channels `7.22.0,production`, default channel `production`:
 * one channel per release line `<major>.<minor>.<patch>` holding that line's releases, and
 * `production` holding every release) and `.../manifests/redis-enterprise-operator-cert.clusterserviceversion.yaml`
 * (CSV name `redis-enterprise-operator.v7.22.0-11.2`: the operator release and a rebuild suffix
 * `.N`; no `replaces`, a `spec.skips` list of older CSVs instead).
 *
 * Chosen here (docs/simulator.md "OperatorHub"):
 * - a Subscription channel that is neither `production` nor a release line (SIMULATOR.md's
 *   `stable`) is added to the catalog offering every release, like `production`;
 * - CSV names: `redis-enterprise-operator.v<version>` when the scenario's startingCSV has no
 *   rebuild suffix; with one (`...v7.4.6-2.3`), the installed release's CSV keeps that suffix
 *   and every other release's CSV ends in `.0`, so ctl must read the names from the catalog;
 * - skips: each CSV skips every older CSV, except that the installed (starting) CSV is skipped
 *   only by the releases scenario key `operator.olm.skips` names (`all`, the default: every
 *   newer one; `none`: no CSV has an edge from the installed one).
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
/** `7.22.0-11` and an optional rebuild suffix `.2`. */
const CSV_VERSION = /^(\d+\.\d+\.\d+-\d+)(\.\d+)?$/;
const RELEASE_LINE = /^\d+\.\d+\.\d+$/;

/** Which newer releases' CSVs list the installed CSV in their spec.skips. */
export type OlmSkips = 'all' | 'none' | string[];

/** What a scenario decides about its catalog (the resolved `operator.olm`). */
export interface CatalogSettings {
  /** The Subscription's channel: added (every release) when neither production nor a release line. */
  channel: string;
  /** The installed release (operator.version). */
  installedVersion: string;
  /** The startingCSV's rebuild suffix (`.3`), or '' when it has none. */
  installedSuffix: string;
  skips: OlmSkips;
}

/** `redis-enterprise-operator.v7.4.6-2.3` -> { version: `7.4.6-2`, suffix: `.3` }; undefined for another name. */
export function parseCsvName(name: string): { version: string; suffix: string } | undefined {
  if (!name.startsWith(CSV_PREFIX)) return undefined;
  const match = CSV_VERSION.exec(name.slice(CSV_PREFIX.length));
  if (!match?.[1] || !operatorNumbers(match[1])) return undefined;
  return { version: match[1], suffix: match[2] ?? '' };
}

function releaseLine(version: string): string | undefined {
  const numbers = operatorNumbers(version);
  return numbers ? numbers.slice(0, 3).join('.') : undefined;
}

const byVersion = (a: string, b: string): number =>
  compareNumbers(operatorNumbers(a) ?? [], operatorNumbers(b) ?? []);

function isNewerVersion(a: string, b: string): boolean {
  return byVersion(a, b) > 0;
}

/** The catalog one scenario's OperatorHub shows. */
export class OlmCatalog {
  readonly #settings: CatalogSettings;

  constructor(settings: CatalogSettings) {
    this.#settings = settings;
  }

  /** Every channel: `production`, one per release line (newest line last), then the scenario's own. */
  channels(): string[] {
    const lines: string[] = [];
    for (const version of releasedOperatorVersions()) {
      const line = releaseLine(version);
      if (line && !lines.includes(line)) lines.push(line);
    }
    const channels = [PRODUCTION_CHANNEL, ...lines];
    const own = this.#settings.channel;
    return channels.includes(own) || RELEASE_LINE.test(own) ? channels : [...channels, own];
  }

  /**
   * The operator versions a channel offers, oldest first: a release line's releases; every
   * release for `production` and any other name of ours; none for an unknown channel.
   */
  channelVersions(channel: string): string[] {
    const all = [...releasedOperatorVersions()].sort(byVersion);
    if (!this.channels().includes(channel)) return [];
    if (!RELEASE_LINE.test(channel)) return all;
    return all.filter((version) => releaseLine(version) === channel);
  }

  /** The channel's head: the newest version it offers. */
  channelHead(channel: string): string | undefined {
    return this.channelVersions(channel).at(-1);
  }

  /** The CSV name of a release (the rebuild-suffix rule above). */
  csvName(version: string): string {
    const { installedVersion, installedSuffix } = this.#settings;
    if (!installedSuffix) return `${CSV_PREFIX}${version}`;
    return `${CSV_PREFIX}${version}${version === installedVersion ? installedSuffix : '.0'}`;
  }

  /** spec.version of a release's CSV: the release and its rebuild suffix (`7.22.0-11.2`). */
  bundleVersion(version: string): string {
    return this.csvName(version).slice(CSV_PREFIX.length);
  }

  /** The release of one of this catalog's CSVs; undefined for another name. */
  versionOfCsv(name: string): string | undefined {
    const parsed = parseCsvName(name);
    return parsed && this.csvName(parsed.version) === name ? parsed.version : undefined;
  }

  /** spec.skips of a release's CSV: the older CSVs it replaces, the installed one per the knob. */
  skipsOf(version: string): string[] {
    const { installedVersion } = this.#settings;
    return [...releasedOperatorVersions()]
      .sort(byVersion)
      .filter((older) => isNewerVersion(version, older))
      .filter((older) => older !== installedVersion || this.#skipsInstalled(version))
      .map((older) => this.csvName(older));
  }

  #skipsInstalled(version: string): boolean {
    const { skips } = this.#settings;
    if (skips === 'all') return true;
    if (skips === 'none') return false;
    return skips.includes(version);
  }

  /**
   * What OLM offers a Subscription on `channel` with `installedCsv`: the newest CSV of the
   * channel that skips it (operator-framework docs "Creating an update graph": a CSV upgrades
   * the ones it replaces or skips; OLM resolves to the newest such entry). Undefined: no edge
   * from the installed CSV, the Subscription stays AtLatestKnown.
   */
  replacementOf(installedCsv: string, channel: string): string | undefined {
    const next = [...this.channelVersions(channel)]
      .reverse()
      .find((version) => this.skipsOf(version).includes(installedCsv));
    return next ? this.csvName(next) : undefined;
  }
}

/** The catalog of a scenario's resolved `operator.olm` over the installed `operator.version`. */
export function scenarioCatalog(
  olm: { channel: string; startingCSV: string; skips: OlmSkips },
  installedVersion: string,
): OlmCatalog {
  return new OlmCatalog({
    channel: olm.channel,
    installedVersion,
    installedSuffix: parseCsvName(olm.startingCSV)?.suffix ?? '',
    skips: olm.skips,
  });
}
