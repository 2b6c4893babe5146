/**
 * The release catalog as data: src/release/catalog.json (built in), in the format of
 * docs/catalog.schema.json, plus what `--catalog <file|url>` (env CTL_CATALOG) adds to it.
 * src/release/catalog.ts answers questions from the active catalog; this module holds it.
 *
 * The built-in file is checked against the schema by test/unit/release/catalog-data.test.ts and
 * its versions are parsed when it is first used (a malformed one throws). A user's catalog is
 * checked against the schema when it is loaded (validateCatalogDocument), so a bad one is a
 * usage error before anything else happens. Ajv is loaded only then: compiling the schema costs
 * a few hundred milliseconds that a command without --catalog should not pay.
 */

import builtInDocument from './catalog.json' with { type: 'json' };

export interface PlatformSupport {
  supported: string[];
  deprecated?: string[];
}

export interface ReleaseEntry {
  operator: string;
  clusterTags: string[];
  openshiftClusterTag?: string;
  variants?: string[];
  olmBundles?: string[];
  /**
   * Each OLM bundle's `com.redhat.openshift.versions` annotation as the bundle states it
   * (`v4.18-v4.21`, `v4.15`): the OpenShift versions OperatorHub offers it on.
   */
  olmOpenshiftVersions?: Record<string, string>;
  databaseVersions?: string[];
  defaultDatabaseVersion?: string;
  kubernetes?: PlatformSupport;
  openshift?: PlatformSupport;
  platformsFrom?: string;
  upstreamTag?: string | null;
  upstreamTagNote?: string;
  source: string[];
}

export interface BundledDatabasesEntry {
  /** `x.y.z` (that RS release) or `x.y` (the whole line). */
  rs: string;
  versions: string[];
  default: string;
  source: string;
}

export type TriggerKind = 'REAADB' | 'REDB' | 'REC' | 'secret-changed';

export interface AdvisoryEntry {
  id: string;
  summary: string;
  severity?: 'low' | 'medium' | 'high' | 'critical';
  introduced: string;
  fixed: string[];
  triggers?: { kind: TriggerKind; description?: string; secrets?: string[] }[];
  remedy?: string;
  references?: string[];
  source: string[];
}

/** What in the cluster (or its participants) sets a rule off (docs/catalog.schema.json, `rules`). */
export type RuleTrigger =
  | { kind: 'upgrade'; description?: string }
  | { kind: 'user-defined-modules'; description?: string }
  | { kind: 'uploaded-modules'; description?: string }
  | { kind: 'deprecated-modules'; modules: string[]; description?: string }
  | { kind: 'REAADB' | 'REDB'; description?: string }
  | { kind: 'secret-changed'; secrets: string[]; description?: string }
  | { kind: 'field-used'; resource: RuleResource; field: string; description?: string }
  | {
      kind: 'field-value';
      resource: RuleResource;
      field: string;
      values: (string | number | boolean)[];
      description?: string;
    }
  | { kind: 'platform'; platform: 'kubernetes' | 'openshift'; versions?: string[]; description?: string }
  | { kind: 'install-method'; methods: ('olm' | 'helm' | 'bundle')[]; description?: string }
  | { kind: 'modules-in-use'; modules?: string[]; description?: string }
  | { kind: 'all-of'; triggers: RuleTrigger[]; description?: string };

/** The resources a field trigger reads. */
export type RuleResource = 'REC' | 'REDB' | 'REAADB';

/** The releases a rule applies to: every condition given must hold (the target's operator and RS). */
export interface RuleAppliesTo {
  /** Exactly these operator releases. */
  operators?: string[];
  /** Operator releases from this one on. */
  operatorFrom?: string;
  /** Operator releases before this one. */
  operatorBefore?: string;
  /** Releases whose RS is this `x.y` or `x.y.z` or later. */
  rsFrom?: string;
  /** Releases whose RS is older than this `x.y` or `x.y.z`. */
  rsBefore?: string;
  /** Only when the running operator is one of these (an upgrade path the notes rule out). */
  runningOperators?: string[];
  /** Only when the running operator is older than this one (a move the notes describe, e.g. to RHEL 9 images). */
  runningOperatorBefore?: string;
}

/** An upgrade rule of the release notes: "skip this release if ...", a breaking change, a known limitation. */
export interface RuleEntry {
  id: string;
  summary: string;
  appliesTo: RuleAppliesTo;
  /** Any of these sets it off. */
  triggers: RuleTrigger[];
  /** block: the check fails (exit 3); warn: it warns. */
  effect: 'block' | 'warn';
  fix: string;
  source: string[];
}

/** A Redis Software release line's end of life (product lifecycle). */
export interface ReleaseLineEntry {
  /** `x.y`. */
  rs: string;
  /** YYYY-MM-DD; absent: not yet set. */
  endOfLife?: string;
  source: string[];
}

/** One certified OLM bundle's update edges (docs/catalog.schema.json `olm`). */
export interface OlmBundleEntry {
  /** The CSV name without the section's csvPrefix: `7.8.2-6.8`. */
  bundle: string;
  channels?: string[];
  skips: string[];
  replaces?: string;
  skipRange?: string;
  source?: string;
}

export interface OlmSection {
  package: string;
  csvPrefix: string;
  source: string[];
  bundles: OlmBundleEntry[];
}

export interface CatalogDocument {
  $schema?: string;
  format: 1;
  updated: string;
  sources?: Record<string, string>;
  releases: ReleaseEntry[];
  bundledDatabases?: BundledDatabasesEntry[];
  advisories?: AdvisoryEntry[];
  rules?: RuleEntry[];
  releaseLines?: ReleaseLineEntry[];
  olm?: OlmSection;
}

/** The active catalog and where it came from (for the plan's "catalog" line). */
export interface ActiveCatalog {
  document: CatalogDocument;
  /** `built-in`, or `built-in + <file|url>`. */
  origin: string;
  /** Releases the loaded catalog added or replaced. */
  added: string[];
}

const BUILT_IN = builtInDocument as CatalogDocument;

let active: ActiveCatalog = { document: BUILT_IN, origin: 'built-in', added: [] };
let generation = 0;

export function activeCatalog(): ActiveCatalog {
  return active;
}

/** Bumped whenever the active catalog changes: src/release/catalog.ts rebuilds its indexes then. */
export function catalogGeneration(): number {
  return generation;
}

/**
 * Adds a loaded catalog to the built-in one: its releases replace built-in entries of the same
 * operator version or are added; its advisories and rules replace those of the same id (release
 * lines those of the same `rs`) or are added; its OLM bundles replace those of the same bundle or
 * are added; its database table rows come first (so they win); its date becomes the catalog's date.
 */
export function useCatalog(extra: CatalogDocument, origin: string): ActiveCatalog {
  const releases = new Map(BUILT_IN.releases.map((r) => [r.operator, r]));
  for (const release of extra.releases) releases.set(release.operator, release);
  const advisories = new Map((BUILT_IN.advisories ?? []).map((a) => [a.id, a]));
  for (const advisory of extra.advisories ?? []) advisories.set(advisory.id, advisory);
  const rules = new Map((BUILT_IN.rules ?? []).map((r) => [r.id, r]));
  for (const rule of extra.rules ?? []) rules.set(rule.id, rule);
  const lines = new Map((BUILT_IN.releaseLines ?? []).map((l) => [l.rs, l]));
  for (const line of extra.releaseLines ?? []) lines.set(line.rs, line);
  const olm = mergeOlm(BUILT_IN.olm, extra.olm);
  active = {
    document: {
      ...BUILT_IN,
      updated: extra.updated,
      releases: [...releases.values()],
      bundledDatabases: [...(extra.bundledDatabases ?? []), ...(BUILT_IN.bundledDatabases ?? [])],
      advisories: [...advisories.values()],
      rules: [...rules.values()],
      releaseLines: [...lines.values()],
      ...(olm ? { olm } : {}),
    },
    origin: `built-in + ${origin}`,
    added: extra.releases.map((r) => r.operator),
  };
  generation++;
  return active;
}

/** Back to the built-in catalog (tests). */
export function resetCatalog(): void {
  active = { document: BUILT_IN, origin: 'built-in', added: [] };
  generation++;
}

/**
 * Checks a parsed document against docs/catalog.schema.json: the problems, one line each
 * (`/releases/3/operator: must match pattern ...`), empty when it is valid.
 */
export async function validateCatalogDocument(document: unknown): Promise<string[]> {
  const { validateAgainstSchema } = await import('./catalog-schema.js');
  return validateAgainstSchema(document);
}

function mergeOlm(base: OlmSection | undefined, extra: OlmSection | undefined): OlmSection | undefined {
  if (!base || !extra) return extra ?? base;
  const bundles = new Map(base.bundles.map((b) => [b.bundle, b]));
  for (const bundle of extra.bundles) bundles.set(bundle.bundle, bundle);
  return { ...base, source: [...base.source, ...extra.source], bundles: [...bundles.values()] };
}
