/**
 * The update edges of the certified OLM bundles, from the catalog's `olm` section (read at the
 * source: scripts/read-olm-bundles.mjs, redhat-openshift-ecosystem/certified-operators). OLM
 * upgrades an installed CSV only to a CSV that declares an edge from it: its spec.replaces names
 * it, its spec.skips lists it, or its olm.skipRange covers its version
 * (olm.operatorframework.io "Creating an update graph"; operator-framework/api
 * ClusterServiceVersionSpec `replaces`, `skips`). The certified Redis bundles use spec.skips only,
 * and a maintenance bundle published after a newer line's bundle is in none of that newer line's
 * lists: a hole (docs/checks.md "OLM update edges").
 */

import { activeCatalog, catalogGeneration, type OlmBundleEntry } from './catalog-data.js';

export type OlmEdge =
  /** The target CSV declares an edge from the installed one. */
  | { kind: 'edge'; via: 'skips' | 'replaces' | 'skipRange' }
  /** The catalog knows the target CSV, and it declares no edge from the installed one. */
  | { kind: 'none' }
  /** The catalog does not know the target CSV: ctl cannot tell. */
  | { kind: 'unknown' };

let indexed:
  | {
      generation: number;
      prefix: string;
      byBundle: Map<string, OlmBundleEntry>;
      /** The newest rebuild of each release (`7.8.6-20` -> `7.8.6-20.1`). */
      newestOfRelease: Map<string, string>;
    }
  | undefined;

function index() {
  if (indexed?.generation !== catalogGeneration()) {
    const olm = activeCatalog().document.olm;
    const bundles = olm?.bundles ?? [];
    const newestOfRelease = new Map<string, string>();
    for (const { bundle } of bundles) {
      const release = releaseOf(bundle);
      const known = newestOfRelease.get(release);
      if (known === undefined || compare(numbers(bundle), numbers(known)) > 0)
        newestOfRelease.set(release, bundle);
    }
    indexed = {
      generation: catalogGeneration(),
      prefix: olm?.csvPrefix ?? 'redis-enterprise-operator.v',
      byBundle: new Map(bundles.map((b) => [b.bundle, b])),
      newestOfRelease,
    };
  }
  return indexed;
}

/** `7.8.6-20.1` -> `7.8.6-20`; `6.2.18-41c` -> `6.2.18-41c`. */
function releaseOf(bundle: string): string {
  return /^(\d+\.\d+\.\d+-\d+)\.\d+$/.exec(bundle)?.[1] ?? bundle;
}

/**
 * The catalog's bundle a CSV names: itself when the catalog holds it; for a name without a
 * rebuild number (`redis-enterprise-operator.v7.8.6-20`, as a catalog with one bundle per
 * release names it), the newest rebuild of that release.
 */
function resolveBundle(csv: string): string | undefined {
  const bundle = bundleOfCsv(csv);
  if (bundle === undefined) return undefined;
  const { byBundle, newestOfRelease } = index();
  if (byBundle.has(bundle)) return bundle;
  return releaseOf(bundle) === bundle ? newestOfRelease.get(bundle) : undefined;
}

/** `redis-enterprise-operator.v7.8.2-6.8` -> `7.8.2-6.8`; undefined for another package's CSV. */
export function bundleOfCsv(csv: string): string | undefined {
  const { prefix } = index();
  return csv.startsWith(prefix) ? csv.slice(prefix.length) : undefined;
}

/** The catalog's entry for a CSV, when it knows the bundle. */
export function olmBundleEntry(csv: string): OlmBundleEntry | undefined {
  const bundle = resolveBundle(csv);
  return bundle === undefined ? undefined : index().byBundle.get(bundle);
}

/** Whether the catalog says OLM has an update edge from `fromCsv` to `toCsv`. */
export function catalogOlmEdge(fromCsv: string, toCsv: string): OlmEdge {
  const entry = olmBundleEntry(toCsv);
  const from = resolveBundle(fromCsv) ?? bundleOfCsv(fromCsv);
  if (!entry || from === undefined) return { kind: 'unknown' };
  if (entry.replaces === from) return { kind: 'edge', via: 'replaces' };
  if (entry.skips.includes(from)) return { kind: 'edge', via: 'skips' };
  if (entry.skipRange !== undefined) {
    const covered = inSkipRange(from, entry.skipRange);
    if (covered === undefined) return { kind: 'unknown' };
    if (covered) return { kind: 'edge', via: 'skipRange' };
  }
  return { kind: 'none' };
}

/**
 * Whether a bundle version is in a semver range of comparators (`>=7.4.2 <7.8.2-6`, all of them
 * must hold); undefined for a form this reader does not know (`||`, `x` ranges, `~`, `^`).
 */
export function inSkipRange(bundle: string, range: string): boolean | undefined {
  const version = numbers(bundle);
  const parts = range.trim().split(/\s+/);
  let holds = true;
  for (const part of parts) {
    const m = /^(>=|<=|>|<|=)?v?(\d+\.\d+\.\d+(?:-[0-9a-z.]+)?)$/.exec(part);
    if (!m) return undefined;
    const order = compare(version, numbers(m[2]!));
    const op = m[1] ?? '=';
    const ok =
      op === '>='
        ? order >= 0
        : op === '>'
          ? order > 0
          : op === '<='
            ? order <= 0
            : op === '<'
              ? order < 0
              : order === 0;
    holds &&= ok;
  }
  return holds;
}

function numbers(version: string): number[] {
  return (version.match(/\d+/g) ?? []).map(Number);
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}
