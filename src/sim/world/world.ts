/**
 * One scenario's simulated world of releases: the built-in facts (releases.ts, olm-bundles.ts,
 * platforms.ts) plus the releases its `releases:` key adds (SIMULATOR.md "third round"). The
 * OperatorHub catalog, the helm repository, the bundle server and the simulated operator all
 * ask this object, so a release that only the scenario knows is offered and run like a real
 * one, and ctl can meet a release its own catalog lacks.
 */

import { OLM_BUNDLES, type OlmBundleFacts, skipFloor } from './olm-bundles.js';
import { PLATFORM_SUPPORT, type PlatformSupport, type ReleasePlatforms } from './platforms.js';
import {
  bundledDatabaseVersions as builtInBundled,
  defaultClusterTag as builtInDefaultTag,
  defaultDatabaseVersion as builtInDefaultDatabase,
  RELEASES,
} from './releases.js';
import { compareNumbers, operatorNumbers, parseClusterTag } from './versions.js';

/** A release a scenario adds (its `releases:` entries; names fixed by SIMULATOR.md). */
export interface ScenarioRelease {
  operator: string;
  /** The RS image tag the release ships (`8.2.0-80.25`). */
  rs: string;
  databaseVersions?: readonly string[];
  defaultDatabaseVersion?: string;
  kubernetes?: PlatformSupport;
  /** Ours: the OpenShift versions, like `kubernetes`. */
  openshift?: PlatformSupport;
  /** Ours: image variants published beside the RS tag (`minimal`: `<rs>.minimal`). */
  variants?: readonly string[];
}

/** The `.minimal` RS images exist from operator 8.0.18-11 on (its notes' "Downloads" first name them). */
export const MINIMAL_FROM = '8.0.18-11';
export const MINIMAL_VARIANT = 'minimal';

const byOperator = (a: string, b: string): number =>
  compareNumbers(operatorNumbers(a) ?? [], operatorNumbers(b) ?? []);

const EMPTY_SUPPORT: PlatformSupport = { supported: [], deprecated: [] };

export class SimWorld {
  readonly #extra: ReadonlyMap<string, ScenarioRelease>;
  readonly #versions: readonly string[];

  constructor(extra: readonly ScenarioRelease[] = []) {
    this.#extra = new Map(extra.map((release) => [release.operator, release]));
    const all = new Set([...RELEASES.map(([operator]) => operator), ...this.#extra.keys()]);
    this.#versions = [...all].sort(byOperator);
  }

  /** Every operator release of this world, oldest first. */
  operatorVersions(): string[] {
    return [...this.#versions];
  }

  knows(operator: string): boolean {
    return this.#versions.includes(operator);
  }

  /** A release the scenario added (undefined for a built-in one). */
  scenarioRelease(operator: string): ScenarioRelease | undefined {
    return this.#extra.get(operator);
  }

  /** The RS tag the release rolls a cluster to (its built-in default), in the platform's form. */
  defaultClusterTag(operator: string, platform: 'kubernetes' | 'openshift'): string | undefined {
    return this.#extra.get(operator)?.rs ?? builtInDefaultTag(operator, platform);
  }

  /** Image variants published for the release's RS image (`minimal`). */
  variantsOf(operator: string): readonly string[] {
    const added = this.#extra.get(operator);
    if (added) return added.variants ?? [];
    return byOperator(operator, MINIMAL_FROM) >= 0 ? [MINIMAL_VARIANT] : [];
  }

  /**
   * The tag a cluster on `current` gets from release `operator`: the release's default tag
   * with the variant of the current tag when the release publishes that variant (a `.minimal`
   * cluster stays minimal), else the plain default.
   */
  clusterTagFor(
    operator: string,
    platform: 'kubernetes' | 'openshift',
    current?: string,
  ): string | undefined {
    const plain = this.defaultClusterTag(operator, platform);
    const variant = current ? variantOfTag(current) : undefined;
    if (!plain || !variant || !this.variantsOf(operator).includes(variant)) return plain;
    return `${plain}.${variant}`;
  }

  /**
   * Whether a registry holds RS image `tag`. The world knows which RS builds each release
   * published and which variants beside them (`.minimal`): a variant of a known build that its
   * release did not publish does not exist. Any other tag, including a build the world does not
   * know (a scenario's own) and the old `.rhelN-openshift` form, is taken as present.
   */
  clusterTagPublished(tag: string): boolean {
    const variant = variantOfTag(tag);
    if (!variant) return parseClusterTag(tag) !== undefined;
    const releases = this.#versions.filter((operator) =>
      this.#publishedTags(operator).some((published) => sameRs(published, tag)),
    );
    return releases.length === 0 || releases.some((operator) => this.variantsOf(operator).includes(variant));
  }

  /**
   * Every RS image tag this world's releases published, in both platforms' forms and with their
   * variants: what the simulated registry can name by digest (src/sim/world/registry.ts).
   */
  knownClusterTags(): string[] {
    const tags = new Set<string>();
    for (const operator of this.#versions) {
      const plain = [
        ...this.#publishedTags(operator),
        ...(['kubernetes', 'openshift'] as const).flatMap((platform) => {
          const tag = this.defaultClusterTag(operator, platform);
          return tag ? [tag] : [];
        }),
      ];
      for (const tag of plain) {
        tags.add(tag);
        for (const variant of this.variantsOf(operator)) tags.add(`${tag}.${variant}`);
      }
    }
    return [...tags];
  }

  #publishedTags(operator: string): readonly string[] {
    const added = this.#extra.get(operator);
    if (added) return [added.rs];
    return RELEASES.find(([version]) => version === operator)?.[1] ?? [];
  }

  /** Database versions bundled by the RS release of a cluster tag (a scenario release's own list first). */
  bundledDatabaseVersions(clusterTag: string): readonly string[] {
    return this.#releaseOfTag(clusterTag)?.databaseVersions ?? builtInBundled(clusterTag);
  }

  defaultDatabaseVersion(clusterTag: string): string | undefined {
    const added = this.#releaseOfTag(clusterTag);
    return (
      added?.defaultDatabaseVersion ?? added?.databaseVersions?.at(-1) ?? builtInDefaultDatabase(clusterTag)
    );
  }

  #releaseOfTag(clusterTag: string): ScenarioRelease | undefined {
    for (const release of this.#extra.values()) if (sameRs(release.rs, clusterTag)) return release;
    return undefined;
  }

  /** Kubernetes and OpenShift versions the release supports and deprecates. */
  platformsOf(operator: string): ReleasePlatforms {
    const added = this.#extra.get(operator);
    if (added)
      return { kubernetes: added.kubernetes ?? EMPTY_SUPPORT, openshift: added.openshift ?? EMPTY_SUPPORT };
    const column = PLATFORM_SUPPORT.find(([version]) => byOperator(version, operator) <= 0);
    return column
      ? { kubernetes: column[1], openshift: column[2] }
      : { kubernetes: EMPTY_SUPPORT, openshift: EMPTY_SUPPORT };
  }

  /**
   * Whether the OperatorHub catalog holds the release: a certified bundle of it exists
   * (olm-bundles.ts; none before 6.2.8-2), or the scenario added it.
   */
  inCatalog(operator: string): boolean {
    return this.#extra.has(operator) || OLM_BUNDLES.has(operator);
  }

  /**
   * The OLM bundle of a release (olm-bundles.ts). A release the certified repository does not
   * hold (6.0.x, 6.2.4-1, a scenario's own) gets the pattern of its time: the bundle `<operator>.0`
   * (6.x: no suffix), its line's channel, `production` when its line is this world's newest,
   * and a channel of its own from 7.22.2-21 on.
   */
  bundleOf(operator: string): OlmBundleFacts {
    const known = this.#extra.has(operator) ? undefined : OLM_BUNDLES.get(operator);
    if (known) return known;
    const modern = byOperator(operator, '6.4.2-4') >= 0;
    return {
      bundle: modern ? `${operator}.0` : operator,
      production: this.#onNewestLine(operator),
      ownChannel: byOperator(operator, '7.22.2-21') >= 0,
      holes: [],
    };
  }

  #onNewestLine(operator: string): boolean {
    const line = (version: string) => (operatorNumbers(version) ?? []).slice(0, 3);
    const newest = this.#versions.at(-1);
    return newest !== undefined && compareNumbers(line(operator), line(newest)) === 0;
  }

  /**
   * Whether the CSV of `newer` lists the CSV of `older` in spec.skips: every older release from
   * the bundle's floor on, except its holes (olm-bundles.ts). A scenario's release skips every
   * older one from its floor.
   */
  bundleSkips(newer: string, older: string): boolean {
    if (byOperator(older, newer) >= 0) return false;
    const floor = skipFloor(operatorNumbers(newer) ?? []);
    if (floor && byOperator(older, floor) < 0) return false;
    return !this.bundleOf(newer).holes.includes(older);
  }
}

/** `8.0.18-36.14.minimal` -> `minimal`; the old `rhel8-openshift` suffix is a form, not a variant. */
export function variantOfTag(tag: string): string | undefined {
  const suffix = parseClusterTag(tag)?.suffix;
  return suffix && !suffix.endsWith('-openshift') ? suffix : undefined;
}

/** Same RS release and build (`8.2.0-78.15` and `8.2.0-78.15.minimal`). */
function sameRs(a: string, b: string): boolean {
  const x = parseClusterTag(a);
  const y = parseClusterTag(b);
  return (
    x !== undefined &&
    y !== undefined &&
    compareNumbers([...x.rs, x.build, x.operatorBuild ?? -1], [...y.rs, y.build, y.operatorBuild ?? -1]) === 0
  );
}

const worlds = new WeakMap<object, SimWorld>();
const BUILT_IN = new SimWorld();

/** The world of a loaded scenario (its `releases:`), built once per scenario object. */
export function worldOf(scenario: { releases?: readonly ScenarioRelease[] } | undefined): SimWorld {
  if (!scenario?.releases?.length) return BUILT_IN;
  let world = worlds.get(scenario);
  if (!world) {
    world = new SimWorld(scenario.releases);
    worlds.set(scenario, world);
  }
  return world;
}
