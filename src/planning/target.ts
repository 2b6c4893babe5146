/**
 * The upgrade target, from the plan/run flags (CLI.md `ctl upgrade plan`). Every value is
 * checked here, before any request, and a bad one is a UsageError (exit 2).
 * What depends on the cluster (`--method auto`, the default cluster tag on OpenShift, each
 * database's version) is settled later by the planner.
 */

import { UsageError } from '../errors.js';
import type { StepSelection } from './step-selection.js';
import type { UserDefinedModule } from './user-defined-modules-patch.js';
import type { ModulePackage } from './module-package.js';
import { CHECK_IDS, type CheckId, isCheckId } from './checks/index.js';
import { isKnownOperatorVersion } from '../release/catalog.js';
import {
  formatDatabaseVersion,
  formatImageTag,
  formatOperatorVersion,
  requireDatabaseVersion,
  requireImageTag,
  requireOperatorVersion,
} from '../release/versions.js';

export const METHODS = ['auto', 'helm', 'bundle', 'olm'] as const;
export type MethodChoice = (typeof METHODS)[number];

export const DEFAULT_HELM_CHART = 'redis/redis-enterprise-operator';
export const DEFAULT_HELM_REPO = 'https://helm.redis.io';

export type DatabaseSelection = { kind: 'all' } | { kind: 'none' } | { kind: 'names'; names: string[] };

/** Whether `--databases` chose this database (by name, or `<namespace>/<name>`). */
export function selectsDatabase(
  selection: DatabaseSelection,
  database: { name: string; namespace: string | null },
): boolean {
  if (selection.kind === 'all') return true;
  if (selection.kind === 'none') return false;
  return selection.names.some(
    (name) =>
      name === database.name ||
      (database.namespace !== null && name === `${database.namespace}/${database.name}`),
  );
}

export interface Target {
  /** Canonical operator version, e.g. `7.8.2-6`. */
  operator: string;
  /** `--cluster-version`, canonical; undefined: the catalog's tag for the platform. */
  clusterVersion?: string | undefined;
  /** `--db-version` (`7.4`, `major`, `latest`); undefined: the newest within each database's policy. */
  databaseVersion?: string | undefined;
  method: MethodChoice;
  databases: DatabaseSelection;
  ignoreChecks: CheckId[];
  /** `--bundle` file or URL; `{version}` is replaced. */
  bundle?: string | undefined;
  /** `--helm-release`, `--helm-chart`, `--helm-repo` as given; src/planning/resolve.ts helmLocation applies the defaults. */
  helm: { release?: string | undefined; chart?: string | undefined; repo?: string | undefined };
  /**
   * `--user-defined-modules <file>`, as read (src/planning/user-defined-modules.ts): set in the
   * cluster resource's spec.userDefinedModules by the cluster step, with the new versionTag.
   */
  userDefinedModules?: UserDefinedModule[] | undefined;
  /**
   * Not a flag: set by a fleet's first pass (src/commands/fleet.ts). Every Active-Active database
   * is held back with this reason; the fleet raises them once every cluster is upgraded.
   */
  deferActiveActive?: string | undefined;
  /**
   * Not a flag: set by src/planning/hops.ts hopTarget on a hop before the last, the `--to` the
   * run goes on to. Such a hop's release is a stop the path needs, not a choice: no check's fix
   * proposes another --to for it (release-rules, platform-supported, release-advisories,
   * operator-method, database-version-supported), a run a fix proposes goes --to this final one
   * (modules-compatible, release-rules' participants), and the last hop judges where the cluster
   * ends up.
   */
  onTheWayTo?: string | undefined;
  /**
   * Not a flag of `plan`: the run's `--only`/`--skip` (src/commands/run.ts), so that its plan
   * judges what this run will do (a skipped operator step installs no new CRD). Absent: every step.
   */
  steps?: StepSelection | undefined;
  /**
   * `--remediate` of `run` (and of `plan`, to judge that run), with how many `--module-file`:
   * the run may then change the cluster through the management API, which the api-permissions
   * check judges the API user's role by. Absent: no change goes through the management API.
   * `packages`: what each --module-file holds (module-package.ts), which the module-packages
   * check holds to the modules the freeze needs.
   */
  remediate?: { moduleFiles: number; packages?: ModulePackage[] | undefined } | undefined;
}

/** The flags as commander hands them over. */
export interface TargetFlags {
  to?: string | undefined;
  clusterVersion?: string | undefined;
  dbVersion?: string | undefined;
  method?: string | undefined;
  databases?: string | undefined;
  ignoreCheck?: string[] | string | undefined;
  bundle?: string | undefined;
  helmRelease?: string | undefined;
  helmChart?: string | undefined;
  helmRepo?: string | undefined;
}

export function resolveTarget(flags: TargetFlags): Target {
  if (!flags.to?.trim()) {
    throw new UsageError('--to is required: the operator version to upgrade to', {
      hint: 'Pass e.g. --to 7.8.2-6; ctl upgrade plan without --to lists the targets this cluster can reach.',
    });
  }
  const operator = formatOperatorVersion(requireOperatorVersion(flags.to, '--to'));
  const clusterVersion =
    flags.clusterVersion === undefined
      ? undefined
      : formatImageTag(requireImageTag(flags.clusterVersion, '--cluster-version'));
  if (clusterVersion === undefined && !isKnownOperatorVersion(operator)) {
    throw new UsageError(`--to ${operator}: ctl's release catalog does not know this operator version`, {
      hint: 'Check the version: ctl upgrade plan without --to lists the targets ctl knows for this cluster. For a release newer than ctl, pass --cluster-version IMAGE_TAG too (the cluster image tag of that release, from its release notes; --db-version DB_VERSION if its database versions are new), or --catalog FILE_OR_URL with a catalog that lists the release (docs/catalog.md, "The release catalog").',
    });
  }
  return {
    ...resolveSelection(flags),
    operator,
    clusterVersion,
    databaseVersion:
      flags.dbVersion === undefined
        ? undefined
        : formatDatabaseVersion(requireDatabaseVersion(flags.dbVersion, '--db-version')),
  };
}

/** What a target is beyond its versions: the same for every target `ctl upgrade plan` lists. */
export type TargetSelection = Omit<Target, 'operator' | 'clusterVersion' | 'databaseVersion'>;

/**
 * The flags without --to (`ctl upgrade plan` listing the targets): the versions are the
 * catalog's for each target, so --cluster-version and --db-version need --to.
 */
export function resolveSelection(flags: TargetFlags): TargetSelection {
  for (const [flag, value] of [
    ['--cluster-version', flags.clusterVersion],
    ['--db-version', flags.dbVersion],
  ] as const) {
    if (value !== undefined && !flags.to?.trim()) {
      throw new UsageError(`${flag} needs --to: it is a version of one target`, {
        hint: `Pass --to VERSION with ${flag}, or drop ${flag} to list the targets.`,
      });
    }
  }
  return {
    method: parseMethod(flags.method),
    databases: parseDatabases(flags.databases),
    ignoreChecks: parseIgnoreChecks(flags.ignoreCheck),
    bundle: bundleLocation(nonEmpty(flags.bundle, '--bundle')),
    helm: {
      release: nonEmpty(flags.helmRelease, '--helm-release'),
      chart: withoutCredentials(nonEmpty(flags.helmChart, '--helm-chart'), '--helm-chart'),
      repo: withoutCredentials(nonEmpty(flags.helmRepo, '--helm-repo'), '--helm-repo'),
    },
  };
}

function parseMethod(value: string | undefined): MethodChoice {
  if (value === undefined) return 'auto';
  if ((METHODS as readonly string[]).includes(value)) return value as MethodChoice;
  throw new UsageError(`--method must be auto, helm, bundle or olm, not "${value}"`, {
    hint: 'auto uses OLM when a ClusterServiceVersion owns the operator Deployment, helm when it carries helm labels, else the bundle.',
  });
}

/** `all`, `none`, or `name,ns/name,...` (a bare name matches that name in any watched namespace). */
export function parseDatabases(value: string | undefined): DatabaseSelection {
  if (value === undefined || value.trim() === 'all') return { kind: 'all' };
  if (value.trim() === 'none') return { kind: 'none' };
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = names.find(
    (name) => !/^([a-z0-9]([-a-z0-9]*[a-z0-9])?\/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name),
  );
  if (names.length === 0 || bad !== undefined) {
    throw new UsageError(`--databases: "${bad ?? value}" is not all, none or a list of database names`, {
      hint: 'Use --databases all, --databases none, or --databases db1,other-ns/db2.',
    });
  }
  return { kind: 'names', names: [...new Set(names)] };
}

function parseIgnoreChecks(value: string[] | string | undefined): CheckId[] {
  const ids = value === undefined ? [] : Array.isArray(value) ? value : [value];
  const flat = ids.flatMap((id) => id.split(',')).map((id) => id.trim());
  for (const id of flat) {
    if (!isCheckId(id)) {
      throw new UsageError(`--ignore-check: "${id}" is not a check id`, {
        hint: `Check ids: ${CHECK_IDS.join(', ')}.`,
      });
    }
  }
  return [...new Set(flat as CheckId[])];
}

/**
 * An http(s) bundle location is a URL once `{version}` is filled in: one that does not parse
 * (`https://user:pass@ho[st/...`) is refused here, where it is shown without its credentials
 * (the redactor cannot know the parts of a URL it cannot parse), rather than thrown later by
 * the plan's probe, out of every message's reach.
 */
function bundleLocation(value: string | undefined): string | undefined {
  if (
    value === undefined ||
    !/^https?:\/\//i.test(value) ||
    URL.canParse(value.replaceAll('{version}', '1.0.0-1'))
  )
    return value;
  const shown = value.replace(/\/\/[^/?#]*@/, '//***@').replace(/[?#].*$/s, '?***');
  throw new UsageError(`--bundle (or CTL_BUNDLE) ${JSON.stringify(shown)} is not a URL`, {
    hint: 'Give the bundle as an https URL (with {version} where the release goes) or a file.',
  });
}

/**
 * A helm location goes to helm on its command line (`--repo <url>`, the chart reference), which
 * every user of the machine can read (/proc, ps): a user or password in it would be a secret in
 * argv. helm keeps a repository's credentials in its own configuration instead.
 */
function withoutCredentials(value: string | undefined, flag: string): string | undefined {
  if (value === undefined || !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)) return value;
  throw new UsageError(`${flag}: the URL holds a user or password, which would be on helm's command line`, {
    hint:
      flag === '--helm-repo'
        ? 'Add the repository to helm with its credentials (printf %s "$PASSWORD" | helm repo add NAME URL --username USER --password-stdin), then pass --helm-chart NAME/redis-enterprise-operator without --helm-repo.'
        : 'Log helm in to the registry first (helm registry login HOST --username USER --password-stdin), then pass the chart without credentials.',
  });
}

function nonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '')
    throw new UsageError(`${flag} must not be empty`, { hint: `Drop ${flag} or give it a value.` });
  return value.trim();
}
