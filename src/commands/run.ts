import { dirname } from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  appendHint,
  isCtlError,
  NotConfirmedError,
  OperationError,
  StalePlanError,
  UsageError,
} from '../errors.js';
import type { Io } from '../io/io.js';
import { systemClock } from '../api/clock.js';
import { oneLine } from '../io/safe-text.js';
import { quoteForShell } from '../exec/helm.js';
import {
  createReporter,
  type LiveDisplayFactory,
  type ProgressReporter,
  terminalDisplay,
} from '../io/progress.js';
import { isStepId, planUpgrade, STEP_IDS, type StepId } from '../steps/index.js';
import type { UpgradeDeps } from '../steps/deps.js';
import { olmRunThatChangedNothing } from '../steps/operator-olm.js';
import { runThatStoppedInPreflight } from '../run/preflight-stopped.js';
import { blockedError, planFailure, readAndPlan } from './plan.js';
import { nextRunCommand, NO_PLAN_ARGS, resumeCommand, type PlanArgs } from './next-command.js';
import type { Plan } from '../planning/plan.js';
import { newRunRecord, type RunRecord } from '../run/report.js';
import type { UpgradeState } from '../run/state.js';
import type { SessionInput, UpgradeSession } from './session.js';
import type { StateStore, StateStoreKind } from '../run/state-store.js';
import type { Target } from '../planning/target.js';

export interface RunCommandInput extends SessionInput {
  /** Undefined only with --plan (the saved plan names the target). */
  target: Target | undefined;
  /** The command line as given: resuming repeats it exactly, every flag included. */
  argv?: string[] | undefined;
  planFile: string | undefined;
  statePath: string | undefined;
  yes: boolean;
  dryRun: boolean;
  /** `--dry-run=server`: each write is also sent with dryRun=All; the refusals end the run (exit 1). */
  serverDryRun?: boolean | undefined;
  only: StepId[];
  skip: StepId[];
  timeoutMs: number;
  stallTimeoutMs: number;
  /** `--max-unavailable`: the longest outage a database may have before the run stops (exit 8). */
  maxUnavailableMs?: number | undefined;
  remediate: boolean;
  moduleFiles: string[];
  maxParallel: number;
  keepScc: boolean;
  helmBin: string;
  /** ctl demo passes the in-process session; the CLI opens one. */
  session?: UpgradeSession;
  /** For tests: where a terminal's live progress lines go (stderr's terminal by default). */
  liveDisplay?: LiveDisplayFactory;
  /** `--state-store`: a local file (default) or a ConfigMap and a Lease in the cluster. */
  stateStore?: StateStoreKind;
  /** `--lease-duration`, for the ConfigMap store's Lease. */
  leaseDurationSeconds?: number;
  /** `--report <file>`: a JSON report of the run, written however it ends. */
  reportFile?: string;
  /** The fleet's interrupt signal; without it the run guards SIGINT/SIGTERM itself. */
  signal?: AbortSignal;
  /** `--max-hops` (default 3); with --plan, the saved plan's number of hops. */
  maxHops?: number | undefined;
  /** The plan-deciding flags given, for the commands ctl suggests (the fleet's plan command). */
  planArgs?: PlanArgs | undefined;
}

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
    await writeReportFile(file, 'kind' in report ? report : runReport(report as RunRecord));
  } catch (error) {
    const problem = new OperationError(`cannot write the report ${file}: ${(error as Error).message}`, {
      hint: 'Check that the folder of --report exists or can be created, and that it is writable.',
    });
    if (runError === undefined) throw problem;
    io.warn(problem.message);
  }
}

async function runUpgrade(input: RunCommandInput, record: RunRecord): Promise<void> {
  const { io } = input;
  if (input.stateStore === 'configmap' && input.statePath) {
    throw new UsageError('--state names a file, but --state-store is configmap', {
      hint: 'Drop --state (the state goes to a ConfigMap in the cluster), or use --state-store file.',
    });
  }
  if (!input.yes && !input.dryRun && !io.isStdinTTY) {
    throw new UsageError('stdin is not a terminal, so ctl cannot ask for confirmation', {
      hint: 'Pass --yes to run without a prompt (as in CI), or --dry-run to see what would change.',
    });
  }
  const saved = await import('../planning/saved-plan.js');
  const savedPlan = input.planFile ? await saved.loadSavedPlan(input.planFile) : undefined;
  const target = savedPlan ? saved.targetOfSavedPlan(savedPlan) : input.target;
  if (savedPlan && input.planFile)
    saved.checkSavedPlanStore(savedPlan, input.planFile, input.stateStore ?? 'file');
  if (!target)
    throw new UsageError('--to is required: the operator version to upgrade to', {
      hint: 'Pass e.g. --to 7.8.2-6, or --plan <plan.json>; ctl upgrade plan (without --to) lists the targets this cluster can reach.',
    });
  record.target = {
    operator: target.operator,
    clusterVersion: target.clusterVersion ?? null,
    databaseVersion: target.databaseVersion ?? null,
  };

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
    if (savedPlan) {
      const { planFingerprint } = await import('../planning/plan.js');
      if (planFingerprint(snapshot, savedPlan.target) !== savedPlan.fingerprint) {
        throw new StalePlanError(`the cluster changed since the plan in ${input.planFile} was made`, {
          hint: `Make a new plan: ctl upgrade plan --to ${savedPlan.target.operator} --out ${input.planFile}`,
        });
      }
    }
    if (!snapshot.cluster) {
      const { noClusterError } = await import('./no-cluster.js');
      throw await noClusterError(session.reads, snapshot);
    }
    // Refused credentials (4) or an untrusted certificate (1) end the run before preflight's exit 3.
    if (plan.blocked) {
      const failure = planFailure(plan, snapshot);
      if (failure.exitCode !== blockedError(plan).exitCode) throw failure;
      // A ConfigMap store would write its state and lock into the cluster for a run that may
      // not start (and may lack the very permissions to): stop here, with every failed check.
      if (input.stateStore === 'configmap' && !input.dryRun) throw failure;
      // A later hop that fails its checks would stop the run between two hops, the cluster left
      // on the first one's release: stop here, before any change, as the plan does (issue 36).
      if (plan.hops?.slice(1).some((hop) => hop.blocked)) throw failure;
    }

    const identity = {
      context: session.context,
      namespace: session.namespace,
      cluster: snapshot.cluster.name,
      recUid: snapshot.cluster.uid,
      managementCluster: snapshot.api.cluster,
    };
    const { newState, firstUnfinishedStep, defaultStatePath, isFinished, currentHop, advanceHop } =
      await import('../run/state.js');
    const hopsRun = await import('./run-hops.js');
    const { STEPS } = await import('../steps/index.js');
    const stepIds = STEPS.map((s) => s.id);
    // The local state file: --state, else the default path. A ConfigMap store keeps the state in
    // the cluster, and the backups still go to this file's folder.
    const localStatePath = input.statePath ?? defaultStatePath(identity, input.env);
    const store = await openStateStore(input, session, identity, localStatePath);
    record.state = { store: store.kind, location: store.location };
    const statePath = store.location;
    const lock = input.dryRun ? undefined : await store.lock('upgrade run');
    try {
      const resumeCommand = resumeCommandFor(input, identity, plan, statePath);
      record.resumeCommand = resumeCommand;
      let state = await store.load();
      if (state) {
        // Another cluster's state never resumes here; a done step whose product is gone runs again.
        const { checkStateBelongsHere, reopenUnheldSteps, withIdentity } =
          await import('../run/cluster-identity.js');
        checkStateBelongsHere(state, identity, statePath, { byContext: store.kind === 'file' });
        const checked = reopenUnheldSteps(withIdentity(state, identity), {
          operatorVersion: snapshot.operator?.version,
          clusterVersionTag: snapshot.cluster.image.versionTag,
        });
        for (const { step, why } of checked.reopened) io.warn(`running step ${step} again: ${why}`);
        state = checked.state;
      }
      if (state && sameRun(state.target.operator, plan, isFinished(state))) {
        const hop = state.hops ? `${hopsRun.describeHop(state, currentHop(state))}, ` : '';
        io.info(
          `resuming the upgrade to ${plan.target.operator} at ${hop}step ${firstUnfinishedStep(state, stepIds) ?? '(all done)'}`,
        );
      } else {
        const unfinished = state && !isFinished(state) && state.target.operator !== plan.target.operator;
        const superseded =
          unfinished && state
            ? olmRunThatChangedNothing(state, snapshot.operator?.version, stepIds)
            : undefined;
        const stoppedInPreflight =
          unfinished && state ? runThatStoppedInPreflight(state, stepIds) : undefined;
        if (stoppedInPreflight) {
          io.info(
            `the run to ${state?.target.operator} recorded in ${statePath} ${stoppedInPreflight}: this run to ${plan.target.operator} replaces it`,
          );
        } else if (superseded) {
          io.info(
            `the run to ${state?.target.operator} recorded in ${statePath} stopped at the operator step having approved nothing (${superseded}): this run to ${plan.target.operator} replaces it`,
          );
        } else if (unfinished && state) {
          throw new UsageError(
            `an unfinished upgrade to ${state.target.operator} is recorded in ${statePath}; this run targets ${plan.target.operator}`,
            {
              hint: `Finish it (${state.resumeCommand ?? 'ctl upgrade run'}), or ${startOverAdvice(store)} to start over.`,
            },
          );
        }
        state = newState(
          identity,
          {
            operator: plan.target.operator,
            clusterVersion: plan.target.clusterVersion ?? undefined,
            databaseVersion: plan.target.databaseVersion ?? undefined,
            method: plan.target.method,
          },
          stepIds,
        );
        const hops = hopsRun.hopStatesOf(plan, target);
        if (hops) state = { ...state, hops, hop: 0 };
      }
      state = { ...state, planFingerprint: plan.fingerprint, resumeCommand };

      if (!input.dryRun) await confirm(input, plan);
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
      let verificationFailure: Error | undefined;
      const { renderSummaryText, renderVerificationText } = await import('../run/summary.js');
      const { renderAvailabilityText, renderAvailabilityMarkdown } =
        await import('../run/availability/render.js');
      const { reportSteps } = await import('../run/report.js');
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
          // Not in a dry run: nothing changed, so there is nothing to verify. The last hop's
          // plan names the final target and the selection as the steps saw them.
          const verifier = input.dryRun ? undefined : await import('../run/verification.js');
          let verification: import('../run/verification.js').Verification | undefined;
          try {
            verification = await verifier?.verifyRun(session.api(), {
              plan: hopPlanned.plan,
              snapshot: hopPlanned.snapshot,
              steps: outcome.summary,
            });
          } catch (error) {
            // Only a TLS failure comes here: a certificate that stopped being trusted is exit 1.
            verificationFailure = error as Error;
            verification = verifier?.unverified(hopPlanned.plan, (error as Error).message);
          }
          record.verification = verification;
          const result = verification?.unexplained || verificationFailure ? 'failed' : 'succeeded';
          const { workLeft, renderWorkLeft } = await import('../run/work-left.js');
          // What the run leaves to do, the first of it as the last line (text, JSON, CI summary).
          const left =
            input.dryRun || result !== 'succeeded'
              ? []
              : [
                  ...(stepsLeft.length > 0
                    ? [hopsRun.laterHopLeft(state, hopIndex, stepsLeft, input.argv ?? [])]
                    : []),
                  ...workLeft({
                    plan: hopPlanned.plan,
                    databasesOutcome: outcome.state.steps.databases?.outcome,
                    argv: input.argv ?? [],
                  }),
                ];
          const nextText = left.length > 0 ? renderWorkLeft(left) : undefined;
          reporter.emit({
            type: 'done',
            message: input.dryRun
              ? 'dry run complete: nothing was changed'
              : verificationFailure
                ? `upgrade to ${plan.target.operator} ran, but could not be verified: ${verificationFailure.message}`
                : verification?.unexplained
                  ? `upgrade to ${plan.target.operator} ran, but the cluster does not show it`
                  : stepsLeft.length > 0
                    ? `${hopsRun.describeHop(state, hopIndex)}: the selected steps are done; the upgrade to ${plan.target.operator} is not complete`
                    : `upgrade to ${plan.target.operator} complete`,
            data: {
              result,
              steps: outcome.summary,
              ...(verification ? { verification } : {}),
              ...(availability ? { availability: availability.entries() } : {}),
              ...(left.length > 0 ? { next: left[0]!.command, workLeft: left } : {}),
            },
          });
          record.steps = reportSteps(outcome.summary, outcome.state);
          if (availability) record.availability = availability.entries();
          const verificationText = [
            verification && renderVerificationText(verification),
            availability &&
              renderAvailabilityText(availability.entries(), availability.measurement.describe()),
          ]
            .filter(Boolean)
            .join('\n');
          // The result is the run's data: on stdout (`ctl upgrade run --yes > run.log`), progress on stderr.
          if (io.output === 'text')
            writeResult(
              io,
              `${renderSummaryText(outcome.summary)}\n${verificationText ? `${verificationText}\n` : ''}result: ${input.dryRun ? 'dry run, nothing changed' : result}${nextText ? `\n${nextText}` : ''}`,
            );
          await writeCiSummary(
            input,
            result,
            outcome.summary,
            [verificationText, nextText].filter((line) => line !== undefined).join('\n') || undefined,
            availability && renderAvailabilityMarkdown(availability.entries()),
          );
          if (verification?.unexplained) verificationFailure = verificationError(verification, resumeCommand);
          break;
        }
      } catch (error) {
        const summary = (error as { summary?: import('../run/runner.js').StepSummary[] }).summary ?? [];
        let stopped = (error as { state?: import('../run/state.js').UpgradeState }).state;
        // What was measured stays in the state: a resumed run goes on from it.
        if (availability) {
          const measured = await availability.finish(stopped ?? state);
          if (stopped) stopped = await store.save(measured).catch(() => stopped);
          record.availability = availability.entries();
        }
        record.steps = reportSteps(summary, stopped);
        // The same word as the state file: an interrupted run is resumable, not failed.
        const result = stopped?.result === 'interrupted' ? 'interrupted' : 'failed';
        if (state.hops) recordHop(record, hopIndex, state, result, record.steps);
        reporter.emit({
          type: 'done',
          message: result === 'interrupted' ? 'upgrade interrupted; the state was saved' : 'upgrade stopped',
          data: { result, steps: summary, ...(availability ? { availability: availability.entries() } : {}) },
        });
        const availabilityText =
          availability && renderAvailabilityText(availability.entries(), availability.measurement.describe());
        if (io.output === 'text' && summary.length > 0)
          writeResult(
            io,
            `${renderSummaryText(summary)}\n${availabilityText ? `${availabilityText}\n` : ''}result: ${result}`,
          );
        await writeCiSummary(
          input,
          result,
          summary,
          undefined,
          availability && renderAvailabilityMarkdown(availability.entries()),
        );
        // A run that changed nothing (a dry run, a preflight that stopped) has nothing to
        // resume: it ends with the plan's Next line, the run to make once the fix is in.
        const changedNothing =
          input.dryRun ||
          (stopped?.result === 'failed' && runThatStoppedInPreflight(stopped, stepIds) !== undefined);
        if (changedNothing) {
          const next = nextRunCommand(input.planArgs ?? NO_PLAN_ARGS, plan.target.operator, input.planFile);
          throw withNextHint(error, next);
        }
        throw withResumeHint(error, resumeCommand);
      }
      if (verificationFailure) throw verificationFailure;
      if (serverDryRun) reportServerDryRun(io, serverDryRun);
    } finally {
      await lock?.release();
    }
  } finally {
    reporter?.close();
    guard.dispose();
    if (!input.session) await session.close();
  }
}

/** The file of --state (or the default path), or the ConfigMap and Lease of --state-store configmap. */
async function openStateStore(
  input: RunCommandInput,
  session: UpgradeSession,
  identity: { context: string; namespace: string; cluster: string },
  localStatePath: string,
): Promise<StateStore> {
  const { ConfigMapStateStore } = await import('../run/state-store-configmap.js');
  const inCluster = new ConfigMapStateStore({
    kube: session.kube,
    namespace: identity.namespace,
    cluster: identity.cluster,
    leaseDurationSeconds: input.leaseDurationSeconds,
    warn: (message) => input.io.warn(message),
  });
  if (input.stateStore === 'configmap') return inCluster;
  const { FileStateStore } = await import('../run/state-store.js');
  // The file store takes the cluster's Lease too: one upgrade of a cluster at a time, whatever --state.
  return new FileStateStore(localStatePath, {
    lease: inCluster,
    debug: (message) => input.io.debug(1, message),
  });
}

function startOverAdvice(store: StateStore): string {
  if (store.kind === 'file') return `delete ${store.location}`;
  const [, namespace, name] = store.location.split('/');
  return `run kubectl delete configmap ${name} -n ${namespace}`;
}

function sameRun(recordedOperator: string, plan: Plan, finished: boolean): boolean {
  return recordedOperator === plan.target.operator && !finished;
}

async function confirm(input: RunCommandInput, plan: Plan): Promise<void> {
  if (input.yes) return;
  const { renderPlan } = await import('../planning/render-plan.js');
  // No "Next:" here: this command is the next one, and it is asking.
  input.io.stderrWrite(`${renderPlan(plan, input.io.color, { next: null })}\n`);
  const { describePlanChanges } = await import('../planning/plan-changes.js');
  const changes = describePlanChanges(plan);
  // The question names every change, the databases' version jump too, and how to keep them.
  if (changes.databases) input.io.stderrWrite(`${changes.databases}\n`);
  const rl = createInterface({ input: input.stdin as NodeJS.ReadableStream, output: process.stderr });
  try {
    const answer = await rl.question(
      `Upgrade ${oneLine(plan.cluster.namespace)}/${oneLine(plan.cluster.name)} (${changes.summary})? [y/N] `,
    );
    if (!/^y(es)?$/i.test(answer.trim())) throw new NotConfirmedError('not confirmed: nothing was changed');
  } finally {
    rl.close();
  }
}

/**
 * The steps' clients and inputs. `target` is the one the plan was made for (the flags, or the
 * saved plan's selection with --plan), settled against the snapshot once, by the planner's own
 * function, so the steps do what the plan showed.
 */
async function buildDeps(
  input: RunCommandInput,
  session: UpgradeSession,
  planned: { snapshot: import('../planning/snapshot.js').Snapshot; plan: Plan; target: Target },
  signal: AbortSignal,
  server?: import('../io/server-dry-run.js').ServerDryRun,
): Promise<UpgradeDeps> {
  const { snapshot, plan, target } = planned;
  const api = session.api();
  if (!api) {
    throw new OperationError(
      `the management API could not be reached: ${snapshot.api.error ?? 'it was never asked'}`,
      {
        hint:
          snapshot.api.failure?.hint ??
          'Check --api-url, the credentials and the CA (ctl upgrade plan shows the api-reachable check), then run again.',
      },
    );
  }
  const { Helm } = await import('../exec/helm.js');
  const helm = new Helm({
    io: input.io,
    binary: input.helmBin,
    dryRun: input.dryRun,
    server,
    // helm gets SIGTERM when the run is interrupted (never SIGKILL: see src/exec/helm.ts).
    signal,
    kubeconfig: input.globals.kubeconfig ?? input.env.KUBECONFIG,
    context: input.globals.context,
  });
  const { resolveUpgrade } = await import('../planning/resolve.js');
  const { KubeWriter } = await import('../kube/write.js');
  const { ApiWriter } = await import('../api/writer.js');
  const writes = { dryRun: input.dryRun, io: input.io, server };
  return {
    kube: session.kube,
    kubeWriter: new KubeWriter(session.kube, writes),
    api,
    apiWriter: new ApiWriter(api, writes),
    helm,
    settings: {
      remediate: input.remediate,
      moduleFiles: input.moduleFiles,
      maxParallel: input.maxParallel,
      keepScc: input.keepScc,
      timeoutMs: input.timeoutMs,
      stallTimeoutMs: input.stallTimeoutMs,
    },
    clock: systemClock,
    snapshot,
    plan,
    target,
    resolved: resolveUpgrade(snapshot, target),
  };
}

async function createRunReporter(input: RunCommandInput): Promise<ProgressReporter> {
  const display = input.liveDisplay ?? (input.io.canAnimate ? terminalDisplay(input.io) : undefined);
  const reporter = createReporter(input.io, display);
  if (!input.io.isGitHubActions) return reporter;
  const { GitHubActionsReporter } = await import('../io/github.js');
  return new GitHubActionsReporter(reporter, input.io);
}

async function writeCiSummary(
  input: RunCommandInput,
  result: string,
  rows: import('../run/runner.js').StepSummary[],
  footer?: string,
  /** Markdown already made safe (its cells escaped), such as the availability table. */
  section?: string,
): Promise<void> {
  if (!input.io.isGitHubActions) return;
  const { writeStepSummary } = await import('../io/github.js');
  const { renderSummaryMarkdown } = await import('../run/summary.js');
  const summary = renderSummaryMarkdown(`ctl upgrade: ${result}`, rows, footer);
  writeStepSummary(input.env, section ? `${summary}\n${section}\n` : summary);
}

/** A verification the run cannot explain: exit 1, with what was found and what to do. */
function verificationError(
  verification: import('../run/verification.js').Verification,
  resumeCommand: string,
): OperationError {
  return new OperationError(
    `the steps finished, but the management API does not show the upgrade:\n  ${verification.mismatches.join('\n  ')}`,
    {
      hint: `Follow each line above, then run ${resumeCommand} again: each step re-reads the cluster, does only what is left, and the run verifies again.`,
    },
  );
}

function resumeCommandFor(
  input: RunCommandInput,
  identity: { context: string; namespace: string; cluster: string },
  plan: Plan,
  statePath: string,
): string {
  // The same command again, so every flag (--databases, --bundle, --ignore-check, ...) holds;
  // argv carries no secret (there is no --password flag).
  if (input.argv && input.argv.length > 0) return resumeCommand(input.argv);
  const parts = ['ctl', 'upgrade', 'run', '--to', plan.target.operator];
  if (input.globals.context) parts.push('--context', identity.context);
  parts.push('-n', identity.namespace, '--cluster', identity.cluster);
  if (input.statePath) parts.push('--state', statePath);
  if (input.stateStore === 'configmap') parts.push('--state-store', 'configmap');
  if (input.remediate) parts.push('--remediate');
  for (const file of input.moduleFiles) parts.push('--module-file', file);
  if (input.yes) parts.push('--yes');
  return parts.map(quoteForShell).join(' ');
}

function withNextHint(error: unknown, next: string): unknown {
  return isCtlError(error) ? appendHint(error, `Nothing was changed. Next: ${next}`) : error;
}

function withResumeHint(error: unknown, resumeCommand: string): unknown {
  return isCtlError(error) ? appendHint(error, `resume with: ${resumeCommand}`) : error;
}

/** A hop of a multi-hop run, in the report (replacing an earlier entry of the same hop). */
function recordHop(
  record: RunRecord,
  index: number,
  state: UpgradeState,
  result: RunRecord['result'],
  steps: RunRecord['steps'],
): void {
  const hops = (record.hops ?? []).filter((entry) => entry.hop !== index + 1);
  hops.push({ hop: index + 1, operator: state.hops?.[index]?.operator ?? '?', result, steps });
  record.hops = hops;
}

/**
 * The end of `--dry-run=server`: what the servers judged, and what nothing could judge. A
 * refusal is exit 1: the real run would fail there, so it must not pass for a rehearsal.
 */
function reportServerDryRun(io: Io, server: import('../io/server-dry-run.js').ServerDryRun): void {
  const notJudged =
    server.notJudged.length > 0
      ? `; not judged: ${server.notJudged.length} (${server.notJudged.join('; ')})`
      : '';
  if (server.refused.length === 0) {
    io.info(`server dry run: the API server accepted all ${server.accepted.length} write(s)${notJudged}`);
    return;
  }
  throw new OperationError(
    `server dry run: the API server refused ${server.refused.length} of ${server.refused.length + server.accepted.length} write(s); nothing was changed:\n  ${server.refused.join('\n  ')}`,
    {
      hint: `Fix what each refusal names (permissions: kubectl auth can-i; a webhook or schema: the object it names), then run the dry run again${notJudged ? ` (${notJudged.slice(2)})` : ''}.`,
    },
  );
}

/** The summary table and the result line, on stdout; redacted as everything ctl prints. */
function writeResult(io: Io, text: string): void {
  io.data(`\n${io.redactor.redact(text)}`);
}
