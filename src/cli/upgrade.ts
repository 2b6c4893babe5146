import { type Command, Option } from 'commander';
import { addConnectionOptions, readConnectionFlags } from './connection.js';
import { parseCount, parseDuration } from './duration.js';
import { createIo, type Runtime, readGlobalOptions } from './globals.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Plan options of CLI.md, shared by `plan` and `run`. */
function addPlanOptions(command: Command): Command {
  return addConnectionOptions(
    command
      .option('--to <operator-version>', 'target operator version, e.g. 7.8.2-6')
      .option('--cluster-version <tag>', 'cluster image tag (default: from the release catalog)')
      .option('--db-version <x.y>', 'target database version (default: the newest the target supports)')
      .addOption(
        new Option('--method <method>', 'how to upgrade the operator').choices(['auto', 'helm', 'bundle']),
      )
      .option('--bundle <file|url>', 'the operator bundle; {version} in a URL is replaced (env CTL_BUNDLE)')
      .option('--helm-release <name>', 'helm release of the operator (default: from its labels)')
      .option('--helm-chart <ref>', 'helm chart (default redis/redis-enterprise-operator)')
      .option('--helm-repo <url>', 'helm chart repository URL (env CTL_HELM_REPO)')
      .option('--databases <all|none|names>', 'databases to upgrade: all, none or name,ns/name', 'all')
      .option('--ignore-check <id>', 'turn this failing check into a warning (repeatable)', collect, []),
  );
}

function readTarget(command: Command, env: NodeJS.ProcessEnv): import('../upgrade/target.js').TargetFlags {
  const o = command.opts() as Record<string, string | string[] | undefined>;
  return {
    to: o.to as string | undefined,
    clusterVersion: o.clusterVersion as string | undefined,
    dbVersion: o.dbVersion as string | undefined,
    method: o.method as string | undefined,
    databases: o.databases as string | undefined,
    ignoreCheck: o.ignoreCheck,
    bundle: (o.bundle as string | undefined) ?? (env.CTL_BUNDLE || undefined),
    helmRelease: o.helmRelease as string | undefined,
    helmChart: o.helmChart as string | undefined,
    helmRepo: (o.helmRepo as string | undefined) ?? (env.CTL_HELM_REPO || undefined),
  };
}

export function register(program: Command, runtime: Runtime): void {
  const upgrade = program
    .command('upgrade')
    .description('plan and run an upgrade of the operator, cluster and databases');

  const plan = addPlanOptions(
    upgrade.command('plan').description('read the cluster, check every prerequisite, show the upgrade'),
  )
    .option('--out <plan.json>', 'save the plan as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  ctl upgrade plan --to 7.8.2-6\n  ctl upgrade plan --to 7.8.2-6 -o json --out plan.json\n',
    );
  plan.action(async (_o: unknown, command: Command) => {
    const globals = readGlobalOptions(command);
    const io = createIo(globals, runtime);
    const { resolveTarget } = await import('../upgrade/target.js');
    const target = resolveTarget(readTarget(command, runtime.env));
    const connection = readConnectionFlags(command, runtime.env);
    const { runPlanCommand } = await import('../upgrade/plan-command.js');
    await runPlanCommand({
      globals,
      connection,
      io,
      env: runtime.env,
      stdin: runtime.stdin,
      target,
      out: command.opts().out,
    });
  });

  const run = addPlanOptions(upgrade.command('run').description('run the seven steps; a second run resumes'))
    .option('--plan <plan.json>', 'run a saved plan; exit 7 if the cluster changed since')
    .option('--state <file>', 'state file (default $XDG_STATE_HOME/ctl/<context>/<namespace>/<cluster>.json)')
    .option('--yes', 'do not ask for confirmation (required when stdin is not a terminal)')
    .option('--dry-run', 'read everything and print each change instead of making it')
    .option('--only <step>', 'run only this step (repeatable)', collect, [])
    .option('--skip <step>', 'skip this step (repeatable)', collect, [])
    .option('--timeout <duration>', 'overall limit', '60m')
    .option('--stall-timeout <duration>', 'limit without progress while waiting', '10m')
    .option('--remediate', 'fix a frozen upgrade through the management API')
    .option('--module-file <path>', 'module package to install when remediating (repeatable)', collect, [])
    .option('--max-parallel <n>', 'databases upgraded at once', '1')
    .option('--keep-scc', 'keep the OpenShift SCC redis-enterprise-scc-v2')
    .option('--helm-bin <path>', 'helm binary (env CTL_HELM; default helm on the PATH)')
    .addHelpText(
      'after',
      '\nSteps: preflight, operator, admission, security-context, cluster, monitor, databases.\n' +
        'Examples:\n  ctl upgrade run --to 7.8.2-6\n  ctl upgrade run --to 7.8.2-6 --yes -o json   # CI\n  ctl upgrade run --plan plan.json --yes\n',
    );
  run.action(async (_o: unknown, command: Command) => {
    const globals = readGlobalOptions(command);
    const io = createIo(globals, runtime);
    const o = command.opts() as Record<string, unknown>;
    const { resolveTarget } = await import('../upgrade/target.js');
    const { parseStepList } = await import('../upgrade/run-command.js');
    const flags = readTarget(command, runtime.env);
    const input = {
      globals,
      io,
      env: runtime.env,
      stdin: runtime.stdin,
      connection: readConnectionFlags(command, runtime.env),
      // With --plan the target comes from the saved plan.
      target: o.plan && !flags.to ? undefined : resolveTarget(flags),
      planFile: o.plan as string | undefined,
      statePath: o.state as string | undefined,
      yes: o.yes === true,
      dryRun: o.dryRun === true,
      only: parseStepList(o.only as string[], '--only'),
      skip: parseStepList(o.skip as string[], '--skip'),
      timeoutMs: parseDuration(o.timeout as string, '--timeout'),
      stallTimeoutMs: parseDuration(o.stallTimeout as string, '--stall-timeout'),
      remediate: o.remediate === true,
      moduleFiles: o.moduleFile as string[],
      maxParallel: parseCount(o.maxParallel as string, '--max-parallel', 1, 50),
      keepScc: o.keepScc === true,
      helmBin: (o.helmBin as string | undefined) ?? (runtime.env.CTL_HELM || 'helm'),
    };
    const { runUpgradeCommand } = await import('../upgrade/run-command.js');
    await runUpgradeCommand(input);
  });

  upgrade
    .command('status')
    .description('show the last run of this cluster: each step, the last error, the command that resumes')
    .option('--state <file>', 'state file (default: the one for the context, namespace and cluster)')
    .action(async (_o: unknown, command: Command) => {
      const globals = readGlobalOptions(command);
      const io = createIo(globals, runtime);
      const { runStatusCommand } = await import('../upgrade/status-command.js');
      await runStatusCommand({ globals, io, env: runtime.env, statePath: command.opts().state });
    });

  upgrade
    .command('steps')
    .description('list the steps in the order they run')
    .action(async (_o: unknown, command: Command) => {
      const io = createIo(readGlobalOptions(command), runtime);
      const { STEP_IDS } = await import('../steps/types.js');
      const { STEP_TITLES } = await import('../upgrade/plan.js');
      if (io.output === 'json') io.json(STEP_IDS.map((id) => ({ id, title: STEP_TITLES[id] })));
      else io.data(STEP_IDS.map((id, i) => `${i + 1}. ${id.padEnd(17)} ${STEP_TITLES[id]}`).join('\n'));
    });

  upgrade
    .command('unlock')
    .description("remove this cluster's upgrade lock when its owner is gone")
    .option('--state <file>', 'state file whose lock to remove')
    .option('--lock-id <id>', 'the id of the lock (from the error or ctl upgrade status)')
    .option('--force', 'remove it even if its owner still seems alive')
    .action(async (_o: unknown, command: Command) => {
      const globals = readGlobalOptions(command);
      const io = createIo(globals, runtime);
      const o = command.opts() as Record<string, unknown>;
      const { runUnlockCommand } = await import('../upgrade/status-command.js');
      await runUnlockCommand({
        globals,
        io,
        env: runtime.env,
        statePath: o.state as string | undefined,
        lockId: o.lockId as string | undefined,
        force: o.force === true,
      });
    });
}
