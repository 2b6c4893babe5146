/**
 * Releases newer than the catalog that the helm repository offers (issue 25): the chart
 * repository's `index.yaml` (helm's repository format: `entries.<chart>[].version`, the chart
 * version, which is the operator version for Redis's chart: src/release/catalog.ts
 * chartVersionFor). Read only for a helm install (or `--method helm`), from `--helm-repo` /
 * CTL_HELM_REPO or the default repository of the default chart, with a short deadline: the
 * answer only informs the plan, so an unreachable repository (an air-gapped cluster) costs a
 * few seconds and a debug line, never an error.
 */

import type { Io } from '../io/io.js';
import { parseYaml, yamlProblem } from '../io/yaml-from-outside.js';
import { download, MIB } from '../kube/download.js';
import { isKnownOperatorVersion, latestOperatorVersion } from '../release/catalog.js';
import { compareOperatorVersions, formatOperatorVersion, parseOperatorVersion } from '../release/versions.js';
import type { AvailableRelease } from './catalog-notes.js';
import { helmLocation } from './resolve.js';
import type { Snapshot } from './snapshot.js';
import type { TargetSelection } from './target.js';

/**
 * The index is read within 5 s, the whole answer (a deadline that streams do not stretch), and
 * at most 16 MiB (Redis's repository index is a few KiB; the large public ones are a few MiB).
 */
export const HELM_INDEX_LIMITS = { what: 'the helm index', maxBytes: 16 * MIB, deadlineMs: 5_000 } as const;

/**
 * The chart versions of `chart` in an index.yaml text that are operator versions. Text that is
 * not YAML throws the parser's error (yamlProblem describes it without quoting the text).
 */
export function chartVersionsOf(indexText: string, chart: string): string[] {
  const index = parseYaml(indexText) as { entries?: Record<string, { version?: unknown }[]> } | null;
  const entries = index?.entries?.[chart] ?? [];
  return operatorVersionsOf(
    entries.flatMap((entry) => (typeof entry.version === 'string' ? [entry.version] : [])),
  );
}

/** The chart versions that are operator versions, in ctl's own form. */
function operatorVersionsOf(chartVersions: readonly string[]): string[] {
  return chartVersions
    .map((version) => parseOperatorVersion(version))
    .filter((v) => v !== undefined)
    .map(formatOperatorVersion);
}

/** Releases of the repository newer than the catalog's newest, that the catalog does not know. */
export function newerThanCatalog(versions: string[], foundIn: string): AvailableRelease[] {
  const newest = parseOperatorVersion(latestOperatorVersion())!;
  return [...new Set(versions)]
    .filter(
      (v) => !isKnownOperatorVersion(v) && compareOperatorVersions(parseOperatorVersion(v)!, newest) > 0,
    )
    .sort((a, b) => compareOperatorVersions(parseOperatorVersion(b)!, parseOperatorVersion(a)!))
    .map((operator) => ({ operator, clusterVersion: null, foundIn }));
}

export async function helmAvailableReleases(
  snapshot: Snapshot,
  selection: Pick<TargetSelection, 'method' | 'helm'>,
  io?: Io,
): Promise<AvailableRelease[]> {
  const helmInstall =
    selection.method === 'helm' ||
    (selection.method === 'auto' && snapshot.operator?.helmRelease && !snapshot.olm);
  if (!helmInstall) return [];
  const { repo, chart } = helmLocation(snapshot, selection.helm);
  if (!repo) return [];
  const foundIn = `helm repository ${repo}, chart ${chart}`;
  // The plan's probe of the target's chart read this index already (target-available.ts).
  const read = snapshot.artifacts?.find(
    (answer) => answer.index?.repo === repo && answer.index.chart === chart,
  );
  if (read?.index) return newerThanCatalog(operatorVersionsOf(read.index.versions), foundIn);
  const url = `${repo.replace(/\/+$/, '')}/index.yaml`;
  let text: string;
  try {
    ({ text } = await download(url, HELM_INDEX_LIMITS, { io }));
  } catch (error) {
    io?.debug(1, `newer releases: cannot read ${url}: ${(error as Error).message}`);
    return [];
  }
  try {
    return newerThanCatalog(chartVersionsOf(text, chart), foundIn);
  } catch (error) {
    // Where and what, never the index's lines (yaml-from-outside.ts): it comes from the network.
    io?.debug(1, `newer releases: ${url} is not a helm repository index (not YAML: ${yamlProblem(error)})`);
    return [];
  }
}
