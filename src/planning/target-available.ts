/**
 * The `target-available` check: what the run will fetch for the target exists, so a missing
 * release fails the plan (exit 3) instead of the operator step, in the change window
 * (issue 30). By method:
 * - bundle: the bundle file or URL (`--bundle`/CTL_BUNDLE with `{version}` replaced, else the
 *   upstream release file) answers HEAD (or GET);
 * - helm: the repository's `index.yaml` lists the chart at the target's chart version (the
 *   version `helm upgrade --version` asks for: helm's own lookup, `helm.sh/helm/v3/pkg/repo`
 *   ChartRepository index entries);
 * - OLM: a channel of the package's PackageManifest holds the target CSV (OLM installs only
 *   what a catalog offers: operator-framework/operator-lifecycle-manager packagemanifest_types.go).
 * The probes are the only I/O (src/kube/artifact-probe.ts), made once before planning; the
 * check itself reads their answers from the snapshot, so it stays a pure function. No answer
 * (no network) warns: the plan cannot tell, and the run may still reach it.
 */

import type { Io } from '../io/io.js';
import { parseYaml, yamlProblem } from '../io/yaml-from-outside.js';
import { probeLocation } from '../kube/artifact-probe.js';
import { siblingLocation } from '../kube/bundle.js';
import { chartVersionFor } from '../release/catalog.js';
import { csvVersion } from './olm.js';
import { splitWebhooks } from './own-webhook.js';
import {
  helmLocation,
  methodOf,
  releaseBundle,
  type ResolvedUpgrade,
  type ResolvedVersions,
  resolveVersions,
} from './resolve.js';
import type { OperatorBasis, Snapshot } from './snapshot.js';
import type { Target } from './target.js';
import { ctlPlanTo, ctlTargetOf, oc, shellQuote } from './equivalent-commands.js';

/** One probe's answer, keyed by what was asked (artifactKey). */
export interface ArtifactAvailability {
  key: string;
  found: boolean | undefined;
  detail: string;
  /** What to do when the answer is no answer for a reason the network does not explain. */
  fix?: string;
  /** The run's download would refuse the bundle (its transport rules): what to do instead. */
  refusedFix?: string;
  /**
   * A chart's answer: the versions of the chart that the repository's index.yaml lists (those
   * written as strings), so that the plan's look for releases newer than the catalog
   * (helm-index.ts) reads the index once, not twice.
   */
  index?: { repo: string; chart: string; versions: string[] };
  /** A file of the release tree the run reads next to the bundle answered by `of` (its key). */
  releaseFile?: { of: string; file: string };
}

/** The files of the release tree, next to a target's bundle, that the run reads. */
export type ReleaseFilesRead = (snapshot: Snapshot, resolved: ResolvedVersions, target: Target) => string[];

type Artifact =
  | { kind: 'bundle'; location: string }
  | { kind: 'chart'; repo: string; chart: string; version: string }
  | { kind: 'olm' }
  | { kind: 'none'; why: string };

/** What decides a target's artifact: the method, the helm chart's place, the bundle, the target. */
type ArtifactInputs = Pick<ResolvedVersions, 'method' | 'helm' | 'bundle'> & { operator: { target: string } };

function artifactOf(resolved: ArtifactInputs): Artifact {
  if (resolved.method === 'olm') return { kind: 'olm' };
  if (resolved.method === 'helm') {
    const { repo, chart } = resolved.helm;
    if (!repo)
      return {
        kind: 'none',
        why: `helm finds chart ${chart} itself (a path, an oci:// reference or a repository you added)`,
      };
    return { kind: 'chart', repo, chart, version: chartVersionFor(resolved.operator.target) };
  }
  if (!resolved.bundle)
    return { kind: 'none', why: 'no bundle location is known for this release (see operator-method)' };
  return { kind: 'bundle', location: resolved.bundle };
}

/**
 * The files of the release tree, next to the bundle, that the run reads for this target besides
 * the bundle (src/kube/bundle.ts siblingLocation): people download bundle.yaml alone, as the
 * install page shows, and pass it as --bundle; the operator step would upgrade the operator and
 * the next step stop on a file that is not there. Planning's own approximation, for callers
 * without the steps; `ctl upgrade plan` and `run` ask the steps' own declarations instead
 * (src/steps/release-files.ts, which also covers OLM, the operator's state and the SCC):
 * - `admission/webhook.yaml`: the bundle method's admission step applies it where this operator's
 *   admission webhook is configured (src/steps/admission.ts);
 * - `multi-namespace-redb/role.yaml` and `role_binding.yaml`: the operator step applies them in
 *   each namespace the operator watches besides its own (src/steps/operator-redb-roles.ts,
 *   operatorReleaseFiles), read next to --bundle by any method.
 */
export function releaseTreeFilesRead(snapshot: Snapshot, resolved: ResolvedVersions): string[] {
  if (!resolved.bundle) return [];
  const files: string[] = [];
  const operatorNamespace = snapshot.operator?.namespace ?? snapshot.namespace;
  if (resolved.method === 'bundle' && splitWebhooks(snapshot.webhooks, operatorNamespace).own.length > 0)
    files.push('admission/webhook.yaml');
  if (snapshot.watchedNamespaces.some((n) => n !== snapshot.namespace))
    files.push('multi-namespace-redb/role.yaml', 'multi-namespace-redb/role_binding.yaml');
  return files;
}

function keyOf(artifact: Artifact): string | undefined {
  if (artifact.kind === 'bundle') return `bundle ${artifact.location}`;
  if (artifact.kind === 'chart') return `chart ${artifact.repo} ${artifact.chart} ${artifact.version}`;
  return undefined;
}

function indexUrl(repo: string): string {
  return `${repo.replace(/\/+$/, '')}/index.yaml`;
}

type ProbeOptions = { io?: Io | undefined; env?: NodeJS.ProcessEnv };

/**
 * Asks, once each, for what every target of the plan (each hop's, the final one's) needs, and
 * returns the snapshot with the answers. Probes run in parallel, each with its own deadline.
 */
export async function probeTargetArtifacts(
  snapshot: Snapshot,
  targets: readonly Target[],
  options: ProbeOptions = {},
): Promise<Snapshot> {
  return new ArtifactProbes(options).answer(snapshot, targets);
}

/**
 * The probes of one plan, each asked at most once. The final target's artifact depends only on
 * the flags, the method and the platform (OperatorBasis), so the plan asks for it while the rest
 * of the snapshot is read (`startFinal`); once the path is planned, `answer` asks only for what
 * the hops' other targets need and waits for all. Every answer is keyed by what was asked, so a
 * probe started early is the one the check reads, never a second request.
 */
export class ArtifactProbes {
  private readonly asked = new Map<string, Promise<ArtifactAvailability>>();

  constructor(private readonly options: ProbeOptions = {}) {}

  /** Asks for the final target's artifact, from what the snapshot's first answers settled. */
  startFinal(target: Target, basis: OperatorBasis): void {
    const artifact = artifactOf({
      method: methodOf(target, basis),
      helm: helmLocation({ ...basis, helmRelease: undefined }, target.helm),
      bundle: releaseBundle(target, basis.platform),
      operator: { target: target.operator },
    });
    const key = keyOf(artifact);
    if (key) this.ask(key, artifact);
  }

  /**
   * The snapshot with the answers for every target of the plan (each hop's, the final one's).
   * `filesRead`: which files next to a target's bundle the run reads; by default those planning
   * can tell (releaseTreeFilesRead), the command passes the steps' own (src/steps/release-files.ts).
   */
  async answer(
    snapshot: Snapshot,
    targets: readonly Target[],
    filesRead: ReleaseFilesRead = releaseTreeFilesRead,
  ): Promise<Snapshot> {
    const wanted = new Map<string, { artifact: Artifact; releaseFile?: { of: string; file: string } }>();
    for (const target of targets) {
      const resolved = resolveVersions(snapshot, target);
      const artifact = artifactOf(resolved);
      const key = keyOf(artifact);
      if (key) wanted.set(key, { artifact });
      // The release tree's files are read from beside the bundle (--bundle's folder, else the
      // upstream tag's) whichever method upgrades the operator (src/planning/plan.ts releaseFile).
      if (!resolved.bundle) continue;
      const tree = treeKey(resolved.bundle);
      for (const file of filesRead(snapshot, resolved, target)) {
        const sibling: Artifact = { kind: 'bundle', location: siblingLocation(resolved.bundle, file) };
        wanted.set(keyOf(sibling) as string, { artifact: sibling, releaseFile: { of: tree, file } });
      }
    }
    const answers = await Promise.all(
      [...wanted].map(async ([key, { artifact, releaseFile }]) => {
        const answer = await this.ask(key, artifact);
        return releaseFile ? { ...answer, releaseFile } : answer;
      }),
    );
    return { ...snapshot, artifacts: answers };
  }

  private ask(key: string, artifact: Artifact): Promise<ArtifactAvailability> {
    let answer = this.asked.get(key);
    if (!answer) {
      answer = probeArtifact(key, artifact, this.options);
      this.asked.set(key, answer);
    }
    return answer;
  }
}

/** One probe; never rejects (probeLocation answers "cannot tell" instead). */
async function probeArtifact(
  key: string,
  artifact: Artifact,
  options: ProbeOptions,
): Promise<ArtifactAvailability> {
  if (artifact.kind === 'bundle') {
    // The operator step reads the bundle with ctl's own download: its rules are the plan's.
    const { found, detail, refused } = await probeLocation(artifact.location, {
      ...options,
      downloadRules: true,
    });
    return { key, found, detail, ...(refused ? { refusedFix: refused.hint } : {}) };
  }
  if (artifact.kind !== 'chart') return { key, found: undefined, detail: '' };
  const index = await probeLocation(indexUrl(artifact.repo), { ...options, body: true });
  if (index.found !== true) return { key, found: index.found, detail: index.detail };
  return { key, ...chartInIndex(index.text ?? '', artifact) };
}

function chartInIndex(
  text: string,
  artifact: { repo: string; chart: string; version: string },
): Omit<ArtifactAvailability, 'key'> {
  let entries: unknown;
  try {
    entries = (parseYaml(text) as { entries?: Record<string, unknown> } | null)?.entries;
  } catch (error) {
    // Where and what, never the index's lines (yaml-from-outside.ts): it comes from the network.
    return {
      found: undefined,
      detail: `${indexUrl(artifact.repo)} is not a helm repository index (not YAML: ${yamlProblem(error)})`,
      fix: `Check that --helm-repo (or CTL_HELM_REPO) is the chart's repository: helm repo add and helm search repo ${shellQuote(artifact.chart)} --versions read the same index.yaml.`,
    };
  }
  const listed = (entries as Record<string, { version?: unknown }[] | undefined>)?.[artifact.chart] ?? [];
  const versions = listed.map((entry) => String(entry.version ?? '')).filter(Boolean);
  // helm accepts the version with or without a leading v.
  const found = versions.some((v) => v.replace(/^v/, '') === artifact.version);
  return {
    index: {
      repo: artifact.repo,
      chart: artifact.chart,
      versions: listed.flatMap((entry) => (typeof entry.version === 'string' ? [entry.version] : [])),
    },
    found,
    detail: found
      ? `${indexUrl(artifact.repo)} lists ${artifact.chart} ${artifact.version}`
      : `${indexUrl(artifact.repo)} has no ${artifact.chart} ${artifact.version}` +
        (versions.length > 0
          ? ` (it lists ${versions.slice(0, 5).join(', ')}${versions.length > 5 ? ', ...' : ''})`
          : ` (no chart ${artifact.chart} at all)`),
  };
}

export interface AvailabilityOutcome {
  status: 'pass' | 'warn' | 'fail';
  message: string;
  fix: string;
  /** false: a release that is not there cannot be upgraded to, whatever is ignored. */
  ignorable?: false;
  /** Why (said when --ignore-check names the check). */
  firmBecause?: string;
}

/** Why --ignore-check cannot get past a bundle the run's download refuses. */
const REFUSED = 'the operator step reads the bundle with the same rules, and would stop there';

/** Why --ignore-check cannot get past a release file the run applies that is not there. */
const MISSING_RELEASE_FILE = 'the run applies it after the operator is upgraded, and would stop there';

/** Why --ignore-check cannot get past a release that is not there. */
const NOT_THERE = 'the operator step installs this release, and it is not there to install';

/** The check itself: pure, from the probes' answers in the snapshot. */
export function checkTargetAvailable(snapshot: Snapshot, resolved: ResolvedUpgrade): AvailabilityOutcome {
  const outcome = artifactOutcome(snapshot, resolved);
  if (outcome.status === 'fail' || !resolved.bundle) return outcome;
  return withReleaseTree(snapshot, treeKey(resolved.bundle), outcome, artifactOf(resolved).kind === 'bundle');
}

/** Whether what the operator step itself fetches is there (the bundle, the chart, the CSV). */
function artifactOutcome(snapshot: Snapshot, resolved: ResolvedUpgrade): AvailabilityOutcome {
  const target = resolved.operator.target;
  const artifact = artifactOf(resolved);
  if (artifact.kind === 'olm') return olmOutcome(snapshot, target);
  if (artifact.kind === 'none') return { status: 'pass', message: `not checked: ${artifact.why}`, fix: '' };
  const key = keyOf(artifact) as string;
  const answer = snapshot.artifacts?.find((a) => a.key === key);
  const what =
    artifact.kind === 'bundle' ? `the bundle of ${target}` : `chart ${artifact.chart} ${artifact.version}`;
  if (!answer)
    return {
      status: 'pass',
      message: `not checked: ${what} (${ctlPlanTo(ctlTargetOf(snapshot), target)} asks for it)`,
      fix: '',
    };
  if (answer.found === true)
    return { status: 'pass', message: `${what} is there (${answer.detail})`, fix: '' };
  if (answer.refusedFix !== undefined)
    return {
      status: 'fail',
      ignorable: false,
      firmBecause: REFUSED,
      message: `the operator step would not download ${what}: ${answer.detail}`,
      fix: answer.refusedFix,
    };
  if (answer.found === undefined) {
    return {
      status: 'warn',
      message: `cannot tell whether ${what} exists: ${answer.detail}`,
      fix:
        answer.fix ??
        'Check the network (and HTTPS_PROXY) from here; the operator step fetches it in the change window.',
    };
  }
  return {
    status: 'fail',
    ignorable: false,
    firmBecause: NOT_THERE,
    message: `${what} is not there: ${answer.detail}`,
    fix:
      artifact.kind === 'bundle'
        ? `Check --to and --cluster-version against the release notes, or pass --bundle with the release's bundle (file or URL; {version} is replaced by --to).`
        : `Check --to against the repository (helm search repo ${shellQuote(artifact.chart)} --versions), or pass --helm-repo/--helm-chart where the chart is.`,
  };
}

/** The key the answers for a release tree's files are attached to (the bundle's location). */
function treeKey(bundle: string): string {
  return `release tree ${bundle}`;
}

/**
 * What the operator step fetches is there (or cannot be told: `outcome`): so must be the files of
 * the release tree the run applies, asked with it (ArtifactProbes.answer) beside the bundle (`next
 * to it` when the bundle is what the operator step applies; of the release tree otherwise: helm and
 * OLM runs read them from the same folder). One missing fails as the bundle itself would; one the
 * run's download would refuse fails the same way; one with no answer warns.
 */
function withReleaseTree(
  snapshot: Snapshot,
  tree: string,
  outcome: AvailabilityOutcome,
  besideBundle: boolean,
): AvailabilityOutcome {
  const files = (snapshot.artifacts ?? []).flatMap((answer) =>
    answer.releaseFile?.of === tree ? [{ file: answer.releaseFile.file, answer }] : [],
  );
  if (files.length === 0) return outcome;
  const where = besideBundle ? 'next to it' : 'of the release tree';
  // The bundle's own pass message gives way to "is there, but": what follows names the file.
  const there = besideBundle ? outcome.message.replace(/ \(.*\)$/s, '') : outcome.message;
  const names = (list: typeof files) => list.map((f) => f.file).join(' and ');
  const details = (list: typeof files) => list.map((f) => f.answer.detail).join('; ');
  const refused = files.find((f) => f.answer.refusedFix !== undefined);
  if (refused)
    return {
      status: 'fail',
      ignorable: false,
      firmBecause: REFUSED,
      message: `${there}, but the run would not download ${refused.file} ${where}: ${refused.answer.detail}`,
      fix: refused.answer.refusedFix as string,
    };
  const missing = files.filter((f) => f.answer.found === false);
  if (missing.length > 0)
    return {
      status: 'fail',
      ignorable: false,
      firmBecause: MISSING_RELEASE_FILE,
      message: `${there}, but not ${names(missing)} ${where}, which the run applies: ${details(missing)}`,
      fix: besideBundle
        ? `Keep the release's files in their folders next to the bundle (${missing.map((f) => f.file).join(', ')}, as in the release tree of redis-enterprise-k8s-docs), or pass --bundle with the URL of the release's bundle.yaml.`
        : `Pass --bundle with the release's bundle.yaml (file or URL): the run reads ${missing.map((f) => f.file).join(', ')} from its folder, as in the release tree of redis-enterprise-k8s-docs.`,
    };
  const unknown = files.filter((f) => f.answer.found === undefined);
  if (unknown.length > 0)
    return {
      status: 'warn',
      message: `${there}; cannot tell whether ${names(unknown)} ${where} exist: ${details(unknown)}`,
      fix: 'Check the network (and HTTPS_PROXY) from here, or pass --bundle with a copy of the release (file or URL): the run reads them in the change window.',
    };
  const listed = files.map((f) => f.file).join(', ');
  return {
    ...outcome,
    message: besideBundle
      ? outcome.message.replace(/\)$/, `; ${listed} next to it)`)
      : `${outcome.message}; ${listed} of the release tree there too`,
  };
}

function olmOutcome(snapshot: Snapshot, target: string): AvailabilityOutcome {
  const olm = snapshot.olm;
  if (!olm?.channels) {
    return {
      status: 'warn',
      message: `cannot tell whether a catalog offers ${target}: ${olm?.packageError ?? olm?.readError ?? 'the PackageManifest was not read'}`,
      fix: 'Allow get on packagemanifests.packages.operators.coreos.com in the operator namespace, then plan again.',
    };
  }
  const offered = olm.channels.flatMap((c) => [c.currentCSV ?? '', ...c.entries]);
  const csv = offered.find((name) => csvVersion(name) === target);
  if (csv) {
    const channels = olm.channels
      .filter((c) => c.currentCSV === csv || c.entries.includes(csv))
      .map((c) => c.name);
    return { status: 'pass', message: `${csv} is offered (channel ${channels.join(', ')})`, fix: '' };
  }
  return {
    status: 'fail',
    ignorable: false,
    firmBecause: NOT_THERE,
    message: `no channel of package ${olm.subscription?.package ?? '?'} offers operator ${target}`,
    fix: `Choose a version a channel offers: ${oc(snapshot.kubeTarget, 'get', 'packagemanifest', olm.subscription?.package ?? 'PACKAGE', '-n', snapshot.operator?.namespace ?? snapshot.namespace, '-o', 'yaml')}`,
  };
}
