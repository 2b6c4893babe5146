import type { Command } from 'commander';
import { parseCount, parseDuration } from './duration.js';
import { UsageError } from '../errors.js';
import { helmReleaseNameProblem } from '../exec/helm-release-name.js';
import { checkFilePath, INPUT_FILE_LIMITS, resolveStatePath } from '../io/paths.js';
import { parseStateStoreKind } from '../planning/state-store-kind.js';
import type { ModulePackage } from '../planning/module-package.js';
import type { TargetFlags, TargetSelection } from '../planning/target.js';
import type { Io } from '../io/io.js';
import type { Runtime } from './globals.js';
import { readConnectionFlags } from './read-connection.js';
import { PLAN_OPTIONS, readPlanArgs } from './plan-args.js';
import { createIo, readGlobalOptions } from './read-globals.js';

// The actions of `ctl upgrade ...`, loaded only when one runs: upgrade.ts declares the commands
// (all `--help` needs), this module reads their flags into typed inputs and calls the command.

/**
 * A file flag, refused at once (exit 2) when it names a FIFO, a device, a folder or a socket, or,
 * given `maxBytes`, a file larger than ctl reads of it (src/io/paths.ts INPUT_FILE_LIMITS).
 */
function inputFile<T extends string | undefined>(flag: string, path: T, maxBytes?: number): T {
  checkFilePath(flag, path, 'input', maxBytes);
  return path;
}

/** A file ctl writes: it may not exist yet, but must not be anything else than a regular file. */
function outputFile<T extends string | undefined>(flag: string, path: T): T {
  checkFilePath(flag, path, 'output');
  return path;
}

/**
 * The target flags, with CTL_BUNDLE and CTL_HELM_REPO. The credentials a location may carry (a
 * user and password, a token in its query) are registered with the redactor here, as
 * `--catalog`'s are (src/planning/catalog-source.ts): the plan shows the bundle it checked and
 * the commands that use it, the run the bundle it applies.
 */
async function readTarget(command: Command, env: NodeJS.ProcessEnv, io: Io): Promise<TargetFlags> {
  const flags = targetFlags(command, env);
  const { locationSecrets } = await import('../kube/download.js');
  for (const location of [flags.bundle, flags.helmRepo, flags.helmChart])
    for (const secret of location ? locationSecrets(location) : []) io.redactor.add(secret);
  return flags;
}

/** `--helm-release`, refused at once (exit 2) when helm would not take it as a release name. */
function helmReleaseFlag(name: string | undefined): string | undefined {
  const problem = name === undefined ? undefined : helmReleaseNameProblem(name);
  if (problem) {
    throw new UsageError(`--helm-release "${name}" is not a helm release name: ${problem}`, {
      hint: 'helm list --all-namespaces shows the releases and their names.',
    });
  }
  return name;
}

function targetFlags(command: Command, env: NodeJS.ProcessEnv): TargetFlags {
  const o = command.opts() as Record<string, string | string[] | undefined>;
  return {
    to: o.to as string | undefined,
    clusterVersion: o.clusterVersion as string | undefined,
    dbVersion: o.dbVersion as string | undefined,
    method: o.method as string | undefined,
    databases: o.databases as string | undefined,
    ignoreCheck: o.ignoreCheck,
    bundle: (o.bundle as string | undefined) ?? (env.CTL_BUNDLE || undefined),
    helmRelease: helmReleaseFlag(o.helmRelease as string | undefined),
    helmChart: o.helmChart as string | undefined,
    helmRepo: (o.helmRepo as string | undefined) ?? (env.CTL_HELM_REPO || undefined),
  };
}

/**
 * The plan options a saved plan already fixes; giving one with --plan would be silently ignored.
 * `--catalog` is not among them: a saved plan's run may still look releases up in it.
 */
const PLAN_FIXED = ['to', ...PLAN_OPTIONS.filter((key) => key !== 'catalog')];

function readMaxHops(command: Command): number {
  return parseCount(command.opts().maxHops as string, '--max-hops', 1, 5);
}

function refuseTargetFlags(command: Command): undefined {
  const given = PLAN_FIXED.filter((key) => command.getOptionValueSource(key) === 'cli');
  if (given.length > 0) {
    const flags = given.map((key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    throw new UsageError(
      `--plan fixes the target and selection; ${flags.join(', ')} cannot be combined with it`,
      {
        hint: 'Make a new plan with those options (ctl upgrade plan ... --out plan.json), or drop them.',
      },
    );
  }
  return undefined;
}

/** `--catalog` / CTL_CATALOG, loaded before the target is read: it may know the --to release. */
async function loadCatalog(command: Command, env: NodeJS.ProcessEnv, io: Io): Promise<void> {
  // --allow-http: the transport rule of every download of this process (src/kube/download.ts).
  if (command.opts().allowHttp === true) {
    const { allowPlainHttp } = await import('../kube/download.js');
    allowPlainHttp(true);
  }
  const location = (command.opts().catalog as string | undefined) ?? (env.CTL_CATALOG || undefined);
  if (location === undefined) return;
  const { loadCatalogOption } = await import('../planning/catalog-source.js');
  await loadCatalogOption(location, io);
}

/**
 * `--user-defined-modules <file>`, read into the target (or the selection, listing targets): a
 * usage error (exit 2) when unreadable, malformed, or given for a target whose cluster resource
 * has no spec.userDefinedModules (src/planning/user-defined-modules.ts).
 */
async function withUserDefinedModules<T extends TargetSelection & { operator?: string }>(
  command: Command,
  target: T,
): Promise<T> {
  const file = command.opts().userDefinedModules as string | undefined;
  if (file === undefined) return target;
  const { loadUserDefinedModules, USER_DEFINED_MODULES_FLAG } =
    await import('../planning/user-defined-modules.js');
  const { targetHasUserDefinedModulesField, USER_DEFINED_MODULES_FIELD_FROM } =
    await import('../planning/module-fix.js');
  if (target.operator !== undefined && !targetHasUserDefinedModulesField(target.operator)) {
    throw new UsageError(
      `${USER_DEFINED_MODULES_FLAG}: the cluster resource of ${target.operator} has no spec.userDefinedModules (it exists from operator ${USER_DEFINED_MODULES_FIELD_FROM})`,
      {
        hint: `Choose --to ${USER_DEFINED_MODULES_FIELD_FROM} or later, or drop ${USER_DEFINED_MODULES_FLAG} (ctl upgrade plan shows the fix for each module).`,
      },
    );
  }
  return {
    ...target,
    userDefinedModules: await loadUserDefinedModules(inputFile(USER_DEFINED_MODULES_FLAG, file)),
  };
}

/**
 * `--remediate` with its `--module-file`s: the management API changes the plan judges
 * (api-permissions). Each file is checked as the run checks it, so a plan does not call Ready a
 * run that would refuse its package.
 */
async function remediationOf(
  command: Command,
): Promise<{ remediate?: { moduleFiles: number; packages: ModulePackage[] } }> {
  const o = command.opts() as { remediate?: boolean; moduleFile?: string[] };
  const files = (o.moduleFile ?? []).map((file) =>
    inputFile('--module-file', file, INPUT_FILE_LIMITS.moduleFile),
  );
  if (o.remediate !== true) return {};
  // What each package holds, for the module-packages check (read as the run reads it). Loaded
  // only here: a plan without --remediate reads no zip.
  const { readModulePackages } = await import('../planning/module-package-read.js');
  return { remediate: { moduleFiles: files.length, packages: await readModulePackages(files) } };
}

/** `ctl upgrade plan`. */
export async function planAction(command: Command, runtime: Runtime): Promise<void> {
  const globals = readGlobalOptions(command);
  const io = await createIo(globals, runtime);
  await loadCatalog(command, runtime.env, io);
  const { resolveSelection, resolveTarget } = await import('../planning/target.js');
  const flags = await readTarget(command, runtime.env, io);
  // Without --to: the targets this cluster can reach.
  const target =
    flags.to === undefined
      ? undefined
      : {
          ...(await withUserDefinedModules(command, resolveTarget(flags))),
          ...(await remediationOf(command)),
        };
  const connection = readConnectionFlags(command, runtime.env);
  const { runPlanCommand } = await import('../commands/plan.js');
  await runPlanCommand({
    globals,
    connection,
    io,
    env: runtime.env,
    stdin: runtime.stdin,
    target,
    // With --to the file was read for the target already: the selection takes the same list.
    selection:
      target?.userDefinedModules !== undefined
        ? { ...resolveSelection(flags), userDefinedModules: target.userDefinedModules }
        : await withUserDefinedModules(command, resolveSelection(flags)),
    maxHops: readMaxHops(command),
    out: outputFile('--out', command.opts().out),
    stateStore: parseStateStoreKind(command.opts().stateStore, runtime.env),
    helmBin: (command.opts().helmBin as string | undefined) ?? (runtime.env.CTL_HELM || 'helm'),
    planArgs: readPlanArgs(command),
  });
}

/** `ctl upgrade run`: one cluster, or a fleet (several --context, or --fleet). */
export async function runAction(command: Command, runtime: Runtime): Promise<void> {
  const globals = readGlobalOptions(command, { multipleContexts: true });
  const io = await createIo(globals, runtime);
  const o = command.opts() as Record<string, unknown>;
  await loadCatalog(command, runtime.env, io);
  const { resolveTarget } = await import('../planning/target.js');
  const { parseStepList } = await import('../commands/run.js');
  const flags = await readTarget(command, runtime.env, io);
  const input = {
    globals,
    io,
    env: runtime.env,
    stdin: runtime.stdin,
    connection: readConnectionFlags(command, runtime.env),
    // With --plan the target and the selection come from the saved plan, nowhere else.
    target: o.plan ? refuseTargetFlags(command) : await withUserDefinedModules(command, resolveTarget(flags)),
    maxHops: readMaxHops(command),
    argv: runtime.argv,
    planFile: inputFile('--plan', o.plan as string | undefined, INPUT_FILE_LIMITS.plan),
    statePath: resolveStatePath('--state', o.state as string | undefined),
    yes: o.yes === true,
    // kubectl's --dry-run[=client|server|none]: bare means client.
    dryRun: o.dryRun === true || o.dryRun === 'client' || o.dryRun === 'server',
    serverDryRun: o.dryRun === 'server',
    only: parseStepList((o.only as string[] | undefined) ?? [], '--only'),
    skip: parseStepList((o.skip as string[] | undefined) ?? [], '--skip'),
    timeoutMs: parseDuration(o.timeout as string, '--timeout'),
    stallTimeoutMs: parseDuration(o.stallTimeout as string, '--stall-timeout'),
    maxUnavailableMs:
      o.maxUnavailable === undefined
        ? undefined
        : parseDuration(o.maxUnavailable as string, '--max-unavailable'),
    remediate: o.remediate === true,
    moduleFiles: ((o.moduleFile as string[] | undefined) ?? []).map((f) =>
      inputFile('--module-file', f, INPUT_FILE_LIMITS.moduleFile),
    ),
    maxParallel: parseCount(o.maxParallel as string, '--max-parallel', 1, 50),
    keepScc: o.keepScc === true,
    helmBin: (o.helmBin as string | undefined) ?? (runtime.env.CTL_HELM || 'helm'),
    stateStore: parseStateStoreKind(o.stateStore as string | undefined, runtime.env),
    leaseDurationSeconds: Math.ceil(parseDuration(o.leaseDuration as string, '--lease-duration') / 1000),
    reportFile: outputFile('--report', o.report as string | undefined),
    planArgs: readPlanArgs(command),
  };
  const maxParallelClusters = parseCount(o.maxParallelClusters as string, '--max-parallel-clusters', 1, 100);
  const contexts = globals.contexts ?? [];
  if (o.fleet !== undefined || contexts.length > 1) {
    if (o.fleet !== undefined && contexts.length > 0) {
      throw new UsageError('--fleet and --context are both given', {
        hint: 'List every cluster in the fleet file, or pass --context once per cluster, not both.',
      });
    }
    const { loadFleetFile, runFleetCommand } = await import('../commands/fleet.js');
    const members =
      o.fleet !== undefined
        ? await loadFleetFile(inputFile('--fleet', o.fleet as string, INPUT_FILE_LIMITS.fleet))
        : [...new Set(contexts)].map((context) => ({ context }));
    await runFleetCommand({ ...input, members, maxParallelClusters });
    return;
  }
  const { runUpgradeCommand } = await import('../commands/run.js');
  await runUpgradeCommand(input);
}

/** `ctl upgrade status`. */
export async function statusAction(command: Command, runtime: Runtime): Promise<void> {
  const globals = readGlobalOptions(command);
  const io = await createIo(globals, runtime);
  const { runStatusCommand } = await import('../commands/status.js');
  await runStatusCommand({
    globals,
    io,
    env: runtime.env,
    statePath: resolveStatePath('--state', command.opts().state),
    stateStore: parseStateStoreKind(command.opts().stateStore, runtime.env),
  });
}

/** `ctl upgrade steps`. */
export async function stepsAction(command: Command, runtime: Runtime): Promise<void> {
  const io = await createIo(readGlobalOptions(command), runtime);
  const { STEPS } = await import('../steps/index.js');
  if (io.output === 'json') io.json(STEPS.map(({ id, title }) => ({ id, title })));
  else io.data(STEPS.map(({ id, title }, i) => `${i + 1}. ${id.padEnd(17)} ${title}`).join('\n'));
}

/** `ctl upgrade unlock`. */
export async function unlockAction(command: Command, runtime: Runtime): Promise<void> {
  const globals = readGlobalOptions(command);
  const io = await createIo(globals, runtime);
  const o = command.opts() as Record<string, unknown>;
  const { runUnlockCommand } = await import('../commands/status.js');
  await runUnlockCommand({
    globals,
    io,
    env: runtime.env,
    statePath: resolveStatePath('--state', o.state as string | undefined),
    lockId: o.lockId as string | undefined,
    force: o.force === true,
    stateStore: parseStateStoreKind(o.stateStore as string | undefined, runtime.env),
  });
}
