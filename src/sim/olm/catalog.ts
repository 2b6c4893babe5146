/**
 * The simulated OperatorHub catalog of the Redis Enterprise operator: which
 * ClusterServiceVersions (CSVs) each channel of the package offers, what each CSV is named and
 * which older CSVs it skips. Built from the simulated world (world/world.ts: the certified
 * bundles of world/olm-bundles.ts plus a scenario's `releases:`), not from ctl's catalog.
 *
 * Sources: Red Hat's certified-operators `operators/redis-enterprise-operator-cert/<bundle>/`
 * (`metadata/annotations.yaml`: package `redis-enterprise-operator-cert`, the channels of each
 * bundle, default channel `production`; the CSV: name `redis-enterprise-operator.v<bundle>`, no
 * `replaces`, a `spec.skips` list) and DOCS `kubernetes/upgrade/upgrade-olm.md`. What they show
 * is written in world/olm-bundles.ts and docs/simulator-internals.md "OperatorHub":
 * - channels: one per release line (`7.4.6`), `production` (the bundles of the line that was
 *   newest when they were published), and from 7.22.2-21 on one per bundle (`7.22.2-43.0`).
 *   A channel name the catalog does not have offers nothing: OLM answers ResolutionFailed.
 * - skips: what each certified CSV lists (every older release from a floor, except the
 *   maintenance releases of older lines published after it).
 *
 * Chosen here:
 * - CSV names: `redis-enterprise-operator.v<version>` when the scenario's startingCSV has no
 *   rebuild suffix; with one (`...v7.4.6-2.3`), the installed release's CSV keeps that suffix
 *   and every other release's CSV is its certified bundle's name (`...v7.8.6-19.0`), so ctl
 *   must read the names from the catalog;
 * - the installed CSV's incoming edges follow scenario key `operator.olm.skips`: `catalog` (the
 *   default: as the certified CSVs list it), `all` (every newer CSV), `none`, or the releases
 *   named.
 */

import { type SimWorld, worldOf } from '../world/world.js';
import { offeredOn, openshiftRangeOf } from '../world/olm-openshift.js';
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
export type OlmSkips = 'catalog' | 'all' | 'none' | string[];

/** What a scenario decides about its catalog (the resolved `operator.olm`). */
export interface CatalogSettings {
  /** The Subscription's channel (offers nothing when the catalog has no such channel). */
  channel: string;
  /** The installed release (operator.version). */
  installedVersion: string;
  /** The startingCSV's rebuild suffix (`.3`), or '' when it has none. */
  installedSuffix: string;
  skips: OlmSkips;
  /** The releases the catalog offers; default: the built-in world. */
  world?: SimWorld;
  /**
   * The cluster's OpenShift version (`4.16.8`): OperatorHub offers only the bundles whose
   * `com.redhat.openshift.versions` includes it (world/olm-openshift.ts). The installed release
   * stays listed (its CSV is there). Absent: every bundle.
   */
  openshift?: string | null;
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
  readonly #world: SimWorld;

  constructor(settings: CatalogSettings) {
    this.#settings = settings;
    this.#world = settings.world ?? worldOf(undefined);
  }

  /** The releases behind the catalog. */
  get world(): SimWorld {
    return this.#world;
  }

  #versions(): string[] {
    return this.#world.operatorVersions().sort(byVersion);
  }

  /** The channels a release's bundle is in: its line, `production` if so, its own. */
  channelsOf(version: string): string[] {
    if (!this.#world.inCatalog(version)) return [];
    const bundle = this.#world.bundleOf(version);
    if (!this.#offered(version, bundle.bundle)) return [];
    const line = releaseLine(version);
    return [
      ...(line ? [line] : []),
      ...(bundle.production ? [PRODUCTION_CHANNEL] : []),
      ...(bundle.ownChannel ? [bundle.bundle] : []),
    ];
  }

  #offered(version: string, bundle: string): boolean {
    const { openshift, installedVersion } = this.#settings;
    if (!openshift || version === installedVersion) return true;
    return offeredOn(openshiftRangeOf(bundle), openshift);
  }

  /** Every channel: `production`, one per release line (oldest first), then the bundles' own. */
  channels(): string[] {
    const lines: string[] = [];
    const own: string[] = [];
    for (const version of this.#versions()) {
      for (const channel of this.channelsOf(version)) {
        if (channel === PRODUCTION_CHANNEL) continue;
        const list = RELEASE_LINE.test(channel) ? lines : own;
        if (!list.includes(channel)) list.push(channel);
      }
    }
    return [PRODUCTION_CHANNEL, ...lines, ...own];
  }

  /** The operator versions a channel offers, oldest first; none for a channel the catalog lacks. */
  channelVersions(channel: string): string[] {
    return this.#versions().filter((version) => this.channelsOf(version).includes(channel));
  }

  /** The channel's head: the newest version it offers (each newer bundle skips the older ones of its channel). */
  channelHead(channel: string): string | undefined {
    return this.channelVersions(channel).at(-1);
  }

  /** `status.defaultChannel` of the PackageManifest: the newest bundle's default, `production`. */
  defaultChannel(): string {
    return PRODUCTION_CHANNEL;
  }

  /** The CSV name of a release (the rebuild-suffix rule above). */
  csvName(version: string): string {
    const { installedVersion, installedSuffix } = this.#settings;
    if (!installedSuffix) return `${CSV_PREFIX}${version}`;
    if (version === installedVersion) return `${CSV_PREFIX}${version}${installedSuffix}`;
    const bundle = this.#world.bundleOf(version).bundle;
    return `${CSV_PREFIX}${CSV_VERSION.test(bundle) ? bundle : `${version}.0`}`;
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
    return this.#versions()
      .filter((older) => isNewerVersion(version, older))
      .filter((older) =>
        older === installedVersion ? this.#skipsInstalled(version) : this.#world.bundleSkips(version, older),
      )
      .map((older) => this.csvName(older));
  }

  #skipsInstalled(version: string): boolean {
    const { skips, installedVersion } = this.#settings;
    if (skips === 'catalog') return this.#world.bundleSkips(version, installedVersion);
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
  world?: SimWorld,
  openshift?: string | null,
): OlmCatalog {
  return new OlmCatalog({
    channel: olm.channel,
    installedVersion,
    installedSuffix: parseCsvName(olm.startingCSV)?.suffix ?? '',
    skips: olm.skips,
    ...(world ? { world } : {}),
    openshift: openshift ?? null,
  });
}
