/**
 * Where a module on a simulated cluster came from, as the simulated world sees it: bundled with
 * the cluster's Redis Software (RS) release, uploaded by the user (custom, user-defined), or a
 * deprecated module that an older RS release shipped and later ones dropped.
 *
 * The simulator's own reading of the sources, not ctl's (SIMULATOR.md "Independence"), all in
 * redis/docs (commit 63f31f69):
 * - The modules each RS release ships: the "Redis modules" / "Compatible Redis modules" lists
 *   of `content/operate/rs/release-notes/**`: every release from 6.x to 8.x ships RediSearch
 *   (`search`), RedisJSON (`ReJSON`), RedisTimeSeries (`timeseries`) and RedisBloom (`bf`), one
 *   build per database feature set (e.g. rs-7-4-2-releases/rs-7-4-6-22.md, rs-7-8-releases/
 *   rs-7-8-6-303.md, rs-7-22-releases/rs-7-22-2-179.md, rs-8-0-releases/rs-8-0-2-17.md);
 *   from RS 8 they are the bundled modules (kubernetes/re-databases/modules.md, "Available
 *   bundled modules"; module names as its `Name` column gives them).
 * - RedisGraph (`graph`): shipped for the 6.x feature sets up to RS 7.8 (rs-7-4-6-22.md,
 *   rs-7-8-6-303.md: "RedisGraph v2.10 ... end-of-life has been announced"); absent from the
 *   RS 7.22 lists on; the module object's `module_name` values list `graph` up to the 7.8
 *   reference (rs/7.8/references/rest-api/objects/module.md) and no longer from 7.22.
 * - RedisGears 2 (`redisgears_2`, the name its module declares: RedisGears/RedisGears
 *   `redis_module! { name: "redisgears_2" }`): shipped with RS 7.2.4 (rs-7-2-4-52.md
 *   "RedisGears 2.0.11") and 7.4 ("RedisGears 2.0 preview ... will not be promoted to GA and
 *   will be removed"); absent from the RS 7.8 lists on.
 * - Both are the "deprecated modules, such as RedisGraph and RedisGears v2" of the RS 8.0 known
 *   limitations (rs-8-0-releases/_index.md).
 * - The module object's `is_bundled`: "Whether module came bundled with a version of Redis
 *   Enterprise" (rs/7.4, 7.8, 7.22 references/rest-api/objects/module.md; "... of Redis
 *   Software" from 8.0), in every reference version: a custom upload answers false, a module
 *   that came with RS (today's or an older one's, as a deprecated module did) answers true.
 */

import { compareNumbers, type VersionNumbers } from './versions.js';

export const MODULE_KINDS = ['bundled', 'custom', 'deprecated'] as const;
export type ModuleKind = (typeof MODULE_KINDS)[number];

interface ShippedModule {
  /** `module_name` as the management API reports it. */
  name: string;
  /** The first RS release that ships it (inclusive); undefined: every release we simulate. */
  from?: VersionNumbers;
  /** The first RS release that no longer ships it. */
  until?: VersionNumbers;
  deprecated: boolean;
}

const SHIPPED: readonly ShippedModule[] = [
  { name: 'search', deprecated: false },
  { name: 'ReJSON', deprecated: false },
  { name: 'timeseries', deprecated: false },
  { name: 'bf', deprecated: false },
  { name: 'graph', until: [7, 22], deprecated: true },
  { name: 'redisgears_2', from: [7, 2], until: [7, 8], deprecated: true },
];

function shipped(name: string): ShippedModule | undefined {
  const lower = name.toLowerCase();
  return SHIPPED.find((module) => module.name.toLowerCase() === lower);
}

/** Whether RS `rs` (`[major, minor, ...]`) ships the module; unknown RS: the four standard ones. */
export function shipsModule(rs: VersionNumbers | undefined, name: string): boolean {
  const module = shipped(name);
  if (!module) return false;
  if (!rs) return !module.deprecated;
  if (module.from && compareNumbers(rs, module.from) < 0) return false;
  if (module.until && compareNumbers(rs, module.until) >= 0) return false;
  return true;
}

/** The module names RS `rs` ships, for messages. */
export function modulesShippedWith(rs: VersionNumbers | undefined): string[] {
  return SHIPPED.filter((module) => shipsModule(rs, module.name)).map((module) => module.name);
}

export function isDeprecatedModule(name: string): boolean {
  return shipped(name)?.deprecated === true;
}

/**
 * A scenario module without a `kind`: deprecated for RedisGraph and RedisGears 2 (whether or not
 * the cluster's RS still ships them), bundled when the cluster's RS ships a module of that name,
 * custom otherwise. By name, not version: the RS lists give feature-set lines (RediSearch 2.8),
 * and a scenario's version is usually illustrative.
 */
export function defaultModuleKind(name: string, rs: VersionNumbers | undefined): ModuleKind {
  if (isDeprecatedModule(name)) return 'deprecated';
  return shipsModule(rs, name) ? 'bundled' : 'custom';
}

/**
 * Why a scenario's kind cannot be, on a cluster running `rs`; undefined when it can. A module
 * the world knows is bundled only where its RS ships it; one it does not know is taken as the
 * scenario says (a scenario's own, as a release it does not know is).
 */
export function moduleKindProblem(
  name: string,
  kind: ModuleKind,
  rs: VersionNumbers | undefined,
): string | undefined {
  if (kind === 'bundled' && shipped(name) && !shipsModule(rs, name))
    return `Redis Software ${rs ? rs.join('.') : 'of this cluster'} ships no module "${name}" (it ships ${modulesShippedWith(rs).join(', ')}): use kind custom (an upload) or deprecated`;
  if (kind === 'deprecated' && !isDeprecatedModule(name))
    return `"${name}" is not a deprecated module: Redis Software deprecated ${SHIPPED.filter(
      (m) => m.deprecated,
    )
      .map((m) => m.name)
      .join(' and ')}`;
  return undefined;
}

/** The module object's `is_bundled`: came with a version of RS (bundled, deprecated) or uploaded. */
export function reportsBundled(kind: ModuleKind): boolean {
  return kind !== 'custom';
}
