/**
 * A plan saved with `ctl upgrade plan --out`, read back for `ctl upgrade run --plan`: checked
 * against a schema, then turned back into the Target it was made for, so the run does exactly
 * what was planned (target versions, method, database selection, ignored checks, bundle, helm
 * release, chart and repository) and nothing from the flags or the environment of the run.
 */

import { JsonTooDeepError, parseJson } from '../json-read.js';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { INPUT_FILE_LIMITS, readInputFile } from '../io/paths.js';
import { REDACTED, Redactor } from '../io/redact.js';
import { locationSecrets } from '../kube/download.js';
import { type CtlTarget, ctlPlanTo, ctlRunPlan, shellQuote } from './equivalent-commands.js';
import type { Plan, PlanTarget } from './plan.js';
import type { StateStoreKind } from './state-store-kind.js';
import { resolveTarget, type Target } from './target.js';

const databasesSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all') }),
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('names'), names: z.array(z.string()).min(1) }),
]);

const selectionSchema = z.object({
  databases: databasesSchema,
  ignoreChecks: z.array(z.string()),
  bundle: z.string().nullable(),
  helm: z.object({
    release: z.string().nullable(),
    // Plans of ctl 0.1 recorded the defaults here; both forms mean the same.
    chart: z.string().nullable(),
    repo: z.string().nullable(),
  }),
  stateStore: z.enum(['file', 'configmap']).optional(),
  databaseVersion: z.string().optional(),
  userDefinedModules: z
    .array(
      z.object({
        name: z.string(),
        source: z.object({
          https: z.object({ url: z.string(), credentialsSecret: z.string().optional() }),
        }),
      }),
    )
    .optional(),
});

/** What `run --plan` relies on; anything else in the file is kept as it is. */
const savedPlanSchema = z.looseObject({
  apiVersion: z.literal('ctl/v1'),
  kind: z.literal('UpgradePlan'),
  cluster: z.looseObject({ context: z.string(), namespace: z.string(), name: z.string() }),
  target: z.looseObject({
    operator: z.string(),
    clusterVersion: z.string().nullable(),
    databaseVersion: z.string().nullable(),
    method: z.enum(['helm', 'bundle', 'olm']),
    selection: selectionSchema,
  }),
  checks: z.array(z.looseObject({ id: z.string(), status: z.string() })),
  steps: z.array(z.looseObject({ id: z.string() })),
  blocked: z.boolean(),
  fingerprint: z.string().regex(/^sha256:[0-9a-f]{64}$/),
});

/**
 * How to get a plan `run --plan` can run: save one, then run it, both for the cluster the run
 * was given (`kube`: the kubeconfig, context, `-n` and `--cluster`, quoted), as every other hint
 * names it. `to`, the target, when the plan says it; else a placeholder.
 */
function saveHint(kube: CtlTarget, to: string = 'VERSION'): string {
  return `Save a plan with ${ctlPlanTo(kube, to, '--out', 'FILE')}, then run it with ${ctlRunPlan(kube, 'FILE')}.`;
}

/** The plan in `path`, checked; `kube` is the cluster the run was given, for the hints. */
export async function loadSavedPlan(path: string, kube: CtlTarget): Promise<Plan> {
  let text: string;
  try {
    text = await readInputFile('--plan', path, INPUT_FILE_LIMITS.plan);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read the plan ${path}: ${(error as Error).message}`, {
      hint: saveHint(kube),
    });
  }
  return parseSavedPlan(text, path, kube);
}

/** A saved plan's text, checked as `run --plan` reads it (a UsageError says what is wrong). */
export function parseSavedPlan(text: string, path: string, kube: CtlTarget): Plan {
  let json: unknown;
  try {
    json = parseJson(text, path);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw new UsageError(error.message, { hint: saveHint(kube) });
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`, { hint: saveHint(kube) });
  }
  const kind = (json as { kind?: unknown } | null)?.kind;
  if (kind !== 'UpgradePlan') {
    throw new UsageError(`${path} is not a ctl plan (kind UpgradePlan, apiVersion ctl/v1)`, {
      hint: saveHint(kube),
    });
  }
  const parsed = savedPlanSchema.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(`${path} is not a plan this ctl can run:\n${z.prettifyError(parsed.error)}`, {
      hint: `It was changed by hand or made by another version of ctl. ${saveHint(kube)}`,
    });
  }
  return parsed.data as unknown as Plan;
}

/**
 * The saved plan with its bundle location whole again. The plan file is redacted like all ctl
 * prints, so the credentials of a bundle URL (a user and password, a token in its query) are
 * `[REDACTED]` there: the run takes them from CTL_BUNDLE (`given`), when that is the location
 * the plan was made with. The run then checks the plan's fingerprint against this location.
 */
export function withBundleCredentials(plan: Plan, given: string | undefined, path: string): Plan {
  const selection = plan.target.selection;
  const saved = selection?.bundle;
  if (!selection || !saved?.includes(REDACTED)) return plan;
  if (given === undefined || redactedLocation(given) !== saved) {
    throw new UsageError(
      `the plan in ${path} was made with a bundle location whose credentials a saved plan does not keep`,
      {
        hint: 'Set CTL_BUNDLE to that location, credentials included, for the run (as it was for the plan), and run again.',
      },
    );
  }
  return { ...plan, target: { ...plan.target, selection: { ...selection, bundle: given } } };
}

/**
 * A target as a saved plan holds it: its bundle location's credentials redacted. A run's own
 * target has them whole (CTL_BUNDLE, --bundle), so it is compared with a saved plan in this form:
 * like with like (the resume of a run a saved plan started, src/commands/run-saved-plan.ts).
 */
export function asSavedTarget(target: PlanTarget): PlanTarget {
  const selection = target.selection;
  if (!selection?.bundle) return target;
  return { ...target, selection: { ...selection, bundle: redactedLocation(selection.bundle) } };
}

/** `location` as a saved plan holds it: its credentials redacted. */
function redactedLocation(location: string): string {
  const redactor = new Redactor();
  for (const secret of locationSecrets(location)) redactor.add(secret);
  return redactor.redact(location);
}

/** The Target a saved plan was made for, checked as the flags would be; `kube` as for loadSavedPlan. */
export function targetOfSavedPlan(plan: Plan, kube: CtlTarget): Target {
  const target = plan.target;
  const selection = target.selection;
  if (!selection)
    throw new UsageError('the saved plan has no selection', { hint: saveHint(kube, target.operator) });
  const databases = selection.databases;
  const resolved = resolveTarget({
    to: target.operator,
    clusterVersion: target.clusterVersion ?? undefined,
    // The user's --db-version only: the target's default is no choice of theirs, and taken as
    // one it would override each database's upgrade policy and a version field of major or latest.
    dbVersion: selection.databaseVersion,
    method: target.method,
    databases: databases.kind === 'names' ? databases.names.join(',') : databases.kind,
    ignoreCheck: selection.ignoreChecks,
    bundle: selection.bundle ?? undefined,
    helmRelease: selection.helm.release ?? undefined,
    helmChart: selection.helm.chart ?? undefined,
    helmRepo: selection.helm.repo ?? undefined,
  });
  // The modules the plan was made with (its fingerprint covers them), not the run's flags.
  return selection.userDefinedModules
    ? { ...resolved, userDefinedModules: selection.userDefinedModules }
    : resolved;
}

/**
 * A saved plan checked the permissions of one state store (`target.selection.stateStore`): a run
 * with another would need permissions no check looked at. Refused, with how to match them: the
 * plan command of the hint names the kubeconfig, context, `-n` and `--cluster` the run was given
 * (`kubeTarget`).
 */
export function checkSavedPlanStore(
  plan: Plan,
  path: string,
  store: StateStoreKind,
  kubeTarget: CtlTarget,
): void {
  const planned = plan.target.selection?.stateStore;
  if (planned === undefined || planned === store) return;
  throw new UsageError(
    `the plan in ${path} checked the permissions of --state-store ${planned}, and this run uses ${store}`,
    {
      hint: `Run with --state-store ${planned}, or plan again with the store the run uses: ${ctlPlanTo(kubeTarget, plan.target.operator, '--state-store', store, '--out')} ${shellQuote(path)}`,
    },
  );
}
