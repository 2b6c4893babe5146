import { dirname } from 'node:path';
import { OperationError, UsageError } from '../errors.js';
import type { Io } from '../io/io.js';
import { systemClock } from '../api/clock.js';
import type { ProgressReporter } from '../io/progress.js';
import { isStepId, planUpgrade, STEP_IDS, type StepId } from '../steps/index.js';
import { readAndPlan } from './plan.js';
import { newRunRecord, type RunRecord } from '../run/report.js';
import type { RunCommandInput } from './run-input.js';
import { checkPlanLetsRunStart, decideTarget } from './run-start.js';
import { chooseState, openStateStore, resumeCommandFor } from './run-state-choice.js';
import { confirm } from './run-confirm.js';
import { buildDeps, createRunReporter } from './run-deps.js';
import { finishRun, recordHop, reportServerDryRun, type RunEnd, stoppedRun } from './run-end.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand } from '../kube/kube-target.js';

export type { RunCommandInput } from './run-input.js';

export function parseStepList(values: string[], flag: string): StepId[] {
  const ids = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const id of ids) {
    if (!isStepId(id)) {
      throw new UsageError(`${flag}: "${id}" is not a step`, {
        hint: `Steps: ${STEP_IDS.join(', ')} (ctl upgrade steps).`,
      });
    }
  }
  return ids as StepId[];
}

/**
 * `ctl upgrade run`: read and plan, take the cluster's lock, then run the steps from the first
 * one not done, checkpointing each in the state store. Interruption saves the state and exits
 * 130/143 with the command that resumes. With --report, the JSON report is written however the
 * run ends.
 */
export async function runUpgradeCommand(input: RunCommandInput): Promise<RunRecord> {
  const { record, error } = await executeRun(input);
  if (input.reportFile) await writeRunReport(input.io, input.reportFile, record, error);
  if (error !== undefined) throw error;
  return record;
}

/** One run that never throws: how it went, and the error `ctl upgrade run` would exit with. */
export async function executeRun(input: RunCommandInput): Promise<{ record: RunRecord; error: unknown }> {
  const record = newRunRecord(input.dryRun);
  let error: unknown;
  try {
    await runUpgrade(input, record);
  } catch (caught) {
    error = caught;
  }
  const { finishRunRecord } = await import('../run/report.js');
  finishRunRecord(record, error, (text) => input.io.redactor.redact(text));
  return { record, error };
}

/** A report that cannot be written fails a successful run (CI asked for it), and only warns on a failed one. */
export async function writeRunReport(
  io: Io,
  file: string,
  report: RunRecord | Record<string, unknown>,
  runError: unknown,
): Promise<void> {
  const { runReport, writeReportFile } = await import('../run/report.js');
  try {
    await writeReportFile(file, 'kind' in report ? report : runReport(report as RunRecord), (text) =>
      io.redactor.redact(text),
    );
  } catch (error) {
    const problem = new OperationError(`cannot write the report ${file}: ${(error as Error).message}`, {
      hint: 'Check that the folder of --report exists or can be created, and that it is writable.',
    });
    if (runError === undefined) throw problem;
    io.warn(problem.message);
  }
}

/**
 * The run, in the order of what it decides: whether it may start and its target
 * (run-start.ts), a --state file that is no ctl state (run-state-file.ts), the plan, the state
 * it goes on from (run-state-choice.ts), the person's yes (run-confirm.ts), then each hop's
 * steps (the runner, with run-deps.ts's clients) and how the run ends (run-end.ts).
 */
async function runUpgrade(input: RunCommandInput, record: RunRecord): Promise<void> {
  const { io } = input;
  const decided = await decideTarget(input);
  const { savedPlan } = decided;
  // The plan judges what this run will do: a step --only/--skip leaves out changes nothing.
  // So does --remediate: what it may change through the management API (api-permissions).
  const target = {
    ...decided.target,
    steps: { only: input.only, skip: input.skip },
    ...(input.remediate
      ? {
          remediate: {
            moduleFiles: input.moduleFiles.length,
            // What each package holds, for the module-packages check: read as the upload reads it.
            packages: await (
              await import('../planning/module-package-read.js')
            ).readModulePackages(input.moduleFiles),
          },
        }
      : {}),
  };
  record.target = {
    operator: target.operator,
    clusterVersion: target.clusterVersion ?? null,
    databaseVersion: target.databaseVersion ?? null,
  };
  // A --state that is no ctl state is refused before the cluster is read (run-state-file.ts);
  // its report still names the cluster the run was pointed at, as far as the flags and the
  // kubeconfig tell, and the state file refused.
  if (input.statePath) {
    const early = await import('./run-state-file.js');
    try {
      await early.refuseStateFileEarly(input);
    } catch (error) {
      Object.assign(record, await early.locationBeforeRead(input));
      record.state = { store: 'file', location: input.statePath };
      throw error;
    }
  }

  const { openSession } = await import('./session.js');
  const session = input.session ?? (await openSession(input));
  record.context = session.context;
  record.namespace = session.namespace;
  record.cluster = session.clusterName;
  const { guardInterrupts } = await import('../run/signals.js');
  const guard = input.signal ? { signal: input.signal, dispose: () => {} } : guardInterrupts(io);
  // --timeout bounds the whole run (CLI.md "overall"); it ends like an interruption: state saved, exit 6.
  const runSignal = AbortSignal.any([guard.signal, AbortSignal.timeout(input.timeoutMs)]);
  let reporter: ProgressReporter | undefined;
  try {
    // A saved plan fixes its hops: plan again with as many, no more.
    const maxHops = savedPlan ? (savedPlan.hops?.length ?? 1) : input.maxHops;
    const { snapshot, plan } = await readAndPlan(session, target, input.stateStore, maxHops, input.helmBin);
    record.plan = plan;
    record.target = {
      operator: plan.target.operator,
      clusterVersion: plan.target.clusterVersion,
      databaseVersion: plan.target.databaseVersion,
    };
    record.cluster = snapshot.cluster?.name ?? record.cluster;
    const { defaultStatePath, currentHop, advanceHop } = await import('../run/state.js');
    const identityOf = (cluster: { name: string; uid?: string | undefined }) => ({
      context: session.context,
      namespace: session.namespace,
      cluster: cluster.name,
      recUid: cluster.uid,
      managementCluster: snapshot.api.cluster,
    });
    // The local state file: --state, else the default path. A ConfigMap store keeps the state in
    // the cluster, and the backups still go to this file's folder.
    const localStatePathOf = (identity: ReturnType<typeof identityOf>) =>
      input.statePath ?? defaultStatePath(identity, input.env);
    const savedPlanRun = await import('./run-saved-plan.js');
    const { cluster, resumesSavedPlan } = await checkPlanLetsRunStart(
      input,
      session,
      { snapshot, plan },
      savedPlan,
      async (found) => {
        const identity = identityOf(found);
        const store = await openStateStore(input, session, identity, localStatePathOf(identity));
        return savedPlan ? savedPlanRun.recordedRunOfSavedPlan(store, identity, savedPlan) : undefined;
      },
    );

    const identity = identityOf(cluster);
    const hopsRun = await import('./run-hops.js');
    const { STEPS } = await import('../steps/index.js');
    const stepIds = STEPS.map((s) => s.id);
    const localStatePath = localStatePathOf(identity);
    const store = await openStateStore(input, session, identity, localStatePath);
    record.state = { store: store.kind, location: store.location };
    // Already at the target: say so and stop, before the lock, the question and any step.
    const { endIfTargetReached } = await import('./run-target-reached.js');
    if (await endIfTargetReached({ input, snapshot, plan, store, identity, record })) return;
    const statePath = store.location;
    const lock = input.dryRun ? undefined : await store.lock('upgrade run');
    try {
      const resumeCommand = resumeCommandFor(input, identity, plan, statePath);
      record.resumeCommand = resumeCommand;
      let state = await chooseState({
        io,
        store,
        identity,
        snapshot,
        cluster,
        plan,
        target,
        statePath,
        stepIds,
        resumeCommand,
        savedPlan:
          savedPlan && input.planFile
            ? {
                plan: savedPlan,
                file: input.planFile,
                record: savedPlanRun.savedPlanRecord(input.planFile, savedPlan),
                resumes: resumesSavedPlan,
                location: input.planArgs?.location ?? [],
              }
            : undefined,
      });

      if (!input.dryRun) await confirm(input, plan, guard.signal);
      // One hop, or each hop in turn (src/commands/run-hops.ts): the hop's own plan, from the
      // snapshot above for the first one run now, from a fresh read for every later one.
      const hopTargets = hopsRun.hopTargetsOfState(state, target);
      let hopIndex = currentHop(state);
      let hopPlanned = state.hops
        ? { snapshot, plan: planUpgrade(snapshot, hopTargets[hopIndex]!) }
        : { snapshot, plan };
      reporter = await createRunReporter(input);
      // Database availability, measured from the monitor step to the end of the databases step.
      const availability = input.dryRun
        ? undefined
        : (await import('./run-availability.js')).openRunAvailability({
            api: session.api(),
            snapshot,
            state,
            clock: systemClock,
            maxUnavailableMs: input.maxUnavailableMs,
          });
      const { ServerDryRun } = await import('../io/server-dry-run.js');
      const serverDryRun = input.dryRun && input.serverDryRun ? new ServerDryRun(io) : undefined;
      const { runSteps } = await import('../run/runner.js');
      const { reportSteps } = await import('../run/report.js');
      const { renderSummaryText } = await import('../run/summary.js');
      let verificationFailure: Error | undefined;
      const end: RunEnd = {
        input,
        session,
        record,
        plan,
        signal: runSignal,
        store,
        reporter,
        availability,
        resumeCommand,
        stepIds,
      };
      try {
        for (;;) {
          if (state.hops) io.info(`starting ${hopsRun.describeHop(state, hopIndex)}`);
          const deps = await buildDeps(
            input,
            session,
            { ...hopPlanned, target: hopTargets[hopIndex]! },
            runSignal,
            serverDryRun,
          );
          // Backups go beside the local state (for a ConfigMap store: the default local state folder).
          deps.settings.backupDir = dirname(localStatePath);
          deps.availability = availability?.measurement;
          const outcome = await runSteps({
            steps: STEPS,
            only: input.only,
            skip: input.skip,
            state,
            stateFile: input.dryRun ? undefined : store,
            reporter,
            io,
            deps,
            dryRun: input.dryRun,
            serverDryRun: serverDryRun !== undefined,
            signal: runSignal,
            beforeStep: availability?.beforeStep,
            lookCommand: kubectlCommand(
              session.kube.selection ?? DEFAULT_KUBE_TARGET,
              'get',
              'rec',
              cluster.name,
              '-n',
              cluster.namespace,
            ),
          });
          state = availability ? await store.save(await availability.finish(outcome.state)) : outcome.state;
          const last = !state.hops || hopIndex >= state.hops.length - 1;
          if (state.hops)
            recordHop(record, hopIndex, state, 'succeeded', reportSteps(outcome.summary, outcome.state));
          // --only/--skip left steps of this hop: the next hop waits for them (its Next line).
          const stepsLeft = last || input.dryRun ? [] : hopsRun.stepsLeftInHop(state, stepIds);
          if (stepsLeft.length > 0) {
            io.info(
              `${hopsRun.describeHop(state, hopIndex)} left step(s) ${stepsLeft.join(', ')} not run (--only/--skip): the run stops before the next hop`,
            );
          }
          if (!last && !input.dryRun && stepsLeft.length === 0) {
            if (io.output === 'text') io.stderrWrite(`\n${renderSummaryText(outcome.summary)}\n`);
            io.info(
              `${hopsRun.describeHop(state, hopIndex)} complete; reading the cluster again for the next hop`,
            );
            state = await store.save(advanceHop(state, stepIds));
            hopIndex += 1;
            hopPlanned = await hopsRun.planNextHop(session, hopTargets[hopIndex]!, input.stateStore);
            continue;
          }
          if (!last) {
            io.info(
              `dry run: ${hopsRun.describeHop(state, hopIndex)} only; the hops after it are planned from the cluster as it leaves it (ctl upgrade plan shows them)`,
            );
          }
          verificationFailure = await finishRun(end, { state, hopIndex, hopPlanned, outcome, stepsLeft });
          break;
        }
      } catch (error) {
        throw await stoppedRun(end, error, { state, hopIndex });
      }
      if (verificationFailure) throw verificationFailure;
      if (serverDryRun) reportServerDryRun(io, serverDryRun, session.kube.selection ?? DEFAULT_KUBE_TARGET);
    } finally {
      await lock?.release();
    }
  } finally {
    reporter?.close();
    guard.dispose();
    if (!input.session) await session.close();
  }
}
