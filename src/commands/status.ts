import { basename } from 'node:path';
import type { GlobalOptions } from './options.js';
import { UsageError } from '../errors.js';
import type { Io } from '../io/io.js';
import { oneLine } from '../io/safe-text.js';
import { shellQuote } from '../io/shell-words.js';
import {
  type RecordedProgram,
  recordedCommand,
  recordStateWords,
  resumeLines,
  UNSHOWN_RECORDED_COMMAND,
  withRunState,
} from './next-command.js';
import { describeOwner, isStale } from '../run/lock.js';
import { liveRunLines, lockHolderRuns, renewedElsewhere } from './status-live.js';
import { runThatStoppedInPreflight } from '../run/preflight-stopped.js';
import {
  currentHop,
  defaultStatePath,
  isFinished,
  recordedStatePaths,
  type UpgradeState,
} from '../run/state.js';
import { commandFor, type KubeTarget } from '../kube/kube-target.js';
import { FileStateStore, type LockView, type StateStore, type StateStoreKind } from '../run/state-store.js';

interface LocateInput {
  globals: GlobalOptions;
  io: Io;
  env: NodeJS.ProcessEnv;
  statePath?: string | undefined;
  /** `--state-store`; default file. */
  stateStore?: StateStoreKind | undefined;
}

/** The store of this cluster: the state file (locateStateFile), or its ConfigMap and Lease. */
export async function locateStateStore(input: LocateInput): Promise<StateStore> {
  if (input.stateStore !== 'configmap') {
    const { path, target } = await locateStateFileOf(input);
    return new FileStateStore(path, undefined, target);
  }
  if (input.statePath) {
    throw new UsageError('--state names a file, but --state-store is configmap', {
      hint: 'Drop --state, or use --state-store file.',
    });
  }
  const { loadKubeConfig, createKubeClients, resolveNamespace } = await import('../kube/client.js');
  const loaded = await loadKubeConfig({
    kubeconfig: input.globals.kubeconfig,
    context: input.globals.context,
    env: input.env,
  });
  const kube = await createKubeClients(loaded, (secret) => input.io.redactor.add(secret), input.io);
  const namespace = resolveNamespace(input.globals.namespace, loaded);
  const { ConfigMapStateStore, listStateConfigMaps } = await import('../run/state-store-configmap.js');
  let cluster = input.globals.cluster;
  if (!cluster) {
    const clusters = await listStateConfigMaps(kube, namespace);
    if (clusters.length === 0) {
      throw new UsageError(`no upgrade state in namespace ${namespace} (context ${loaded.contextName})`, {
        hint: `${firstRunHint(loaded.selection, input)}, or pass -n NAMESPACE.`,
      });
    }
    if (clusters.length > 1) {
      throw new UsageError(
        `several clusters have upgrade state in namespace ${namespace}: ${clusters.join(', ')}`,
        {
          hint: 'Pass --cluster NAME.',
        },
      );
    }
    cluster = clusters[0]!;
  }
  return new ConfigMapStateStore({ kube, namespace, cluster, warn: (message) => input.io.warn(message) });
}

/**
 * The state file of this context and namespace, without asking the cluster anything: --state,
 * else the file of --cluster, else the only state file in that namespace's folder.
 */
export async function locateStateFile(input: LocateInput): Promise<string> {
  return (await locateStateFileOf(input)).path;
}

/**
 * The state file (locateStateFile) and the kubeconfig and context ctl was given, for the
 * commands its hints print (src/kube/kube-target.ts); with --state nothing is read, and those
 * commands name only what the flags name, as ctl would read them.
 */
async function locateStateFileOf(input: LocateInput): Promise<{ path: string; target: KubeTarget }> {
  if (input.statePath) return { path: input.statePath, target: await flagTarget(input) };
  const { loadKubeConfig, resolveNamespace } = await import('../kube/client.js');
  const loaded = await loadKubeConfig({
    kubeconfig: input.globals.kubeconfig,
    context: input.globals.context,
    env: input.env,
  });
  const namespace = resolveNamespace(input.globals.namespace, loaded);
  const target = loaded.selection;
  const cluster = input.globals.cluster;
  if (cluster)
    return { path: defaultStatePath({ context: loaded.contextName, namespace, cluster }, input.env), target };
  const files = await recordedStatePaths({ context: loaded.contextName, namespace }, input.env);
  if (files.length === 1) return { path: files[0]!, target };
  if (files.length === 0) {
    throw new UsageError(`no upgrade has run for context ${loaded.contextName}, namespace ${namespace}`, {
      hint: `${firstRunHint(loaded.selection, input)}, or pass --state FILE.`,
    });
  }
  throw new UsageError(
    `several clusters have upgrade state in namespace ${namespace}: ${files.map((f) => basename(f, '.json')).join(', ')}`,
    {
      hint: 'Pass --cluster NAME or --state FILE.',
    },
  );
}

/**
 * What a person with no run yet does: see this cluster's targets (`ctl upgrade plan`, which
 * recommends one and shows every check), then run one. Both name the kubeconfig, context,
 * namespace and cluster ctl was given (src/kube/kube-target.ts), and the run the state it would
 * write (--state, --state-store), so that the next `ctl upgrade status` finds it.
 */
function firstRunHint(target: KubeTarget, input: LocateInput): string {
  const { namespace, cluster } = input.globals;
  const where = [...(namespace ? ['-n', namespace] : []), ...(cluster ? ['--cluster', cluster] : [])];
  const state = [
    ...(input.statePath ? ['--state', input.statePath] : []),
    ...(input.stateStore === 'configmap' ? ['--state-store', 'configmap'] : []),
  ];
  // The values given are shell-quoted: a namespace given as `<x>` stays one argument.
  const given = (words: string[]) => words.map(shellQuote);
  return `See the targets with ${[commandFor('ctl', target, 'upgrade', 'plan'), ...given(where)].join(' ')}, then start one with ${[commandFor('ctl', target, 'upgrade', 'run', '--to', 'VERSION'), ...given([...where, ...state])].join(' ')}`;
}

async function flagTarget(input: LocateInput): Promise<KubeTarget> {
  const { chosenKubeTarget } = await import('../kube/client.js');
  return chosenKubeTarget({ ...input.globals, env: input.env });
}

/** `ctl upgrade status`: each step of the last run, its error, the lock, the resume command. */
export async function runStatusCommand(input: LocateInput): Promise<void> {
  const store = await locateStateStore(input);
  const path = store.location;
  const state = await store.load();
  if (!state) {
    throw new UsageError(
      store.kind === 'file' ? `there is no state file at ${path}` : `there is no upgrade state in ${path}`,
      {
        hint: `${firstRunHint(await flagTarget(input), input)}.`,
      },
    );
  }
  const view = await store.readLock();
  const lock = view?.owner;
  // Whose state this is: read from the cluster, bounded, never written (status-identity.ts).
  const { checkStatusIdentity } = await import('./status-identity.js');
  const identity = await checkStatusIdentity({
    globals: input.globals,
    env: input.env,
    state,
    location: path,
    byContext: store.kind === 'file',
    onSecret: (secret) => input.io.redactor.add(secret),
    warner: input.io,
  });
  if (input.io.output === 'json') {
    input.io.json({
      path,
      state,
      // checked: whether the cluster could be asked; belongsHere: null when it could not.
      identity,
      lock: lock ?? null,
      // The lock's owner process is gone (judged on this host): the next run takes it over.
      lockStale: view ? lockIsStale(view) : null,
      // The lock's holder runs now (true), is gone or there is no lock (false), or runs on
      // another host or container, which nothing here can judge (null): status-live.ts.
      running: lockHolderRuns(view),
      // Why an interrupted run stopped is in state.stoppedBy (src/run/state.ts).
      store: store.kind,
      // A multi-hop upgrade: where it is (1-based), how many hops, and the hop's operator.
      hop: state.hops
        ? {
            current: currentHop(state) + 1,
            count: state.hops.length,
            operator: state.hops[currentHop(state)]?.operator ?? null,
            hops: state.hops.map((hop) => ({
              operator: hop.operator,
              finished: hop.finishedAt !== undefined,
            })),
          }
        : null,
      ...(store.kind === 'configmap' ? { lease: view?.lease ?? null } : {}),
    });
    return;
  }
  const { lineage, target } = state;
  // A state file holds what the cluster said (error messages, names): one line per value here.
  const s = oneLine;
  const lines = [
    `cluster   ${s(lineage.namespace)}/${s(lineage.cluster)} (context ${s(lineage.context)})`,
    `target    operator ${s(target.operator)}${target.clusterVersion ? `, cluster ${s(target.clusterVersion)}` : ''}`,
    ...(state.hops
      ? [
          `hop       ${currentHop(state) + 1} of ${state.hops.length}: ${state.hops
            .map(
              (hop, i) =>
                `${s(hop.operator)}${i < currentHop(state) ? ' (done)' : i === currentHop(state) ? ' (current)' : ''}`,
            )
            .join(' -> ')}`,
        ]
      : []),
    `result    ${s(state.result)}${state.result === 'interrupted' && state.stoppedBy ? ` (by ${s(state.stoppedBy)})` : ''}, last written ${s(state.updatedAt)}`,
    `state     ${s(path)}`,
    `identity  ${s(identity.message)}`,
    '',
    ...Object.entries(state.steps).flatMap(([id, step]) => {
      // A failed step's message may be several lines (a frozen upgrade's commands), and its hint
      // says what to do next, as the run printed them (src/run/runner.ts records both).
      const [note = '', ...more] = (step.error?.message ?? step.skipReason ?? '').split('\n');
      return [
        `  ${s(id).padEnd(17)} ${s(step.status).padEnd(12)} ${s(note)}`.trimEnd(),
        ...more.map((line) => `    ${s(line)}`.trimEnd()),
        ...hintLines(step.error?.hint),
      ];
    }),
  ];
  // The held-back databases' later runs go on with this record: the --state or --state-store
  // status was given, named as the run names its own (next-command.ts recordStateWords).
  lines.push(...heldBackLines(state.steps.databases?.outcome, recordStateWords(input)));
  if (view) {
    const stale = lockIsStale(view) ? ' (stale: its process is gone; the next run takes the lock over)' : '';
    lines.push('', `locked by ${describeOwner(view.owner)}${stale}${leaseNote(view)}`);
  }
  const runs = lockHolderRuns(view);
  if (identity.belongsHere === false && isFinished(state)) {
    // A run here would not be refused: it replaces a finished run's record (run-state-choice.ts).
    lines.push(
      '',
      'that upgrade succeeded: nothing to resume; ctl upgrade run starts a new record for this cluster',
    );
    input.io.warn(identity.message);
  } else if (identity.belongsHere === false) {
    // Resuming would be refused (exit 2): say what to do instead of "resume with".
    lines.push('', `not resumable here: ${s(identity.hint)}`);
    input.io.warn(identity.message);
  } else if (view && runs !== false) {
    // A run holds the lock: `resume with` would exit 5 (locked). Who, where it is, what to do.
    // unlock refuses an owner it cannot judge without --force (src/run/lock.ts forceUnlock), and
    // a Lease still renewed (src/run/state-store-configmap.ts). The command names this store
    // (ctlCommand): the -n given to status is not the context's namespace unlock would read.
    const force = runs === null || renewedElsewhere(view) ? ['--force'] : [];
    lines.push(
      '',
      ...liveRunLines(view, runs, state, {
        status: store.ctlCommand('status'),
        unlock: store.ctlCommand('unlock', '--lock-id', view.owner.id, ...force),
      }),
    );
  } else if (state.result !== 'succeeded' && state.resumeCommand) {
    // A run that stopped in preflight changed nothing: there is nothing to resume. What to run
    // is the run's own Next line, recorded as nextCommand (src/commands/run-end.ts); a state
    // file of an earlier ctl has only the run's command line.
    const stoppedInPreflight =
      state.result === 'failed' && runThatStoppedInPreflight(state, Object.keys(state.steps));
    // Commands read back from the state are printed only in ctl's own form (next-command.ts).
    // The Next line of a run that stopped in preflight may be the plan of the targets.
    const shown = (text: string | undefined, ...programs: RecordedProgram[]): string =>
      recordedCommand(text, ...programs) ?? UNSHOWN_RECORDED_COMMAND;
    lines.push(
      '',
      stoppedInPreflight
        ? `nothing was changed (it ${stoppedInPreflight}); once fixed, run: ${s(shown(state.nextCommand ?? state.resumeCommand, 'ctl upgrade run', 'ctl upgrade plan'))}`
        : resumeOf(state, shown(state.resumeCommand, 'ctl upgrade run')),
    );
  }
  input.io.data(lines.join('\n'));
}

/**
 * The resume line, as the run printed it (next-command.ts resumeLines): a value a failed step
 * recorded as refused (a --module-file the cluster would not take) is not offered again. A
 * command the state records that is not shown stays the notice it is. Each line on one line.
 */
function resumeOf(state: UpgradeState, command: string): string {
  const refused = Object.values(state.steps).find((step) => step.status === 'failed')?.error?.refused;
  const lines =
    command === UNSHOWN_RECORDED_COMMAND ? [`resume with: ${command}`] : resumeLines(command, refused);
  return lines.map((line) => oneLine(line)).join('\n');
}

/** `hint: ...` under a failed step, each of its lines on a line of its own, escaped. */
function hintLines(hint: string | undefined): string[] {
  if (!hint) return [];
  return hint
    .split('\n')
    .map((line, i) => `${i === 0 ? '    hint: ' : '          '}${oneLine(line)}`.trimEnd());
}

/** A Lease is judged by its renew time, a lock file by whether its owner process still lives. */
function lockIsStale(view: LockView): boolean {
  return view.lease ? view.lease.stale : isStale(view.owner);
}

/** The Active-Active databases the databases step held back (its outcome's `heldBack`). */
function heldBackLines(
  outcome: Record<string, unknown> | undefined,
  stateWords: readonly string[],
): string[] {
  const held = Array.isArray(outcome?.heldBack) ? (outcome.heldBack as unknown[]) : [];
  const lines = held.flatMap((entry) => {
    if (entry === null || typeof entry !== 'object') return [];
    const { database, reason, command } = entry as Record<string, unknown>;
    if (typeof database !== 'string') return [];
    return [
      `  ${oneLine(database)}: ${oneLine(typeof reason === 'string' ? reason : '')}`,
      ...(typeof command === 'string' ? [`    later: ${oneLine(laterCommand(command, stateWords))}`] : []),
    ];
  });
  return lines.length > 0 ? ['', 'held back (Active-Active):', ...lines] : [];
}

/** A held-back database's recorded run, shown only in ctl's form, with this record named. */
function laterCommand(command: string, stateWords: readonly string[]): string {
  const shown = recordedCommand(command, 'ctl upgrade run');
  return shown === undefined ? UNSHOWN_RECORDED_COMMAND : withRunState(shown, stateWords);
}

function leaseNote(view: LockView): string {
  if (!view.lease) return '';
  const { name, renewTime, leaseDurationSeconds, stale } = view.lease;
  return `\n  Lease ${name}, renewed ${renewTime ?? 'never'}, duration ${leaseDurationSeconds}s${stale ? ' (stale: the next run takes it over)' : ''}`;
}

/** `ctl upgrade unlock`: for the stuck case where a run died without releasing its lock. */
export async function runUnlockCommand(
  input: LocateInput & { lockId?: string | undefined; force: boolean },
): Promise<void> {
  const store = await locateStateStore(input);
  const removed = await store.forceUnlock({ id: input.lockId, force: input.force });
  if (removed) input.io.info(`removed the lock held by ${describeOwner(removed)}`);
  else input.io.info(`no lock was held for ${store.location}`);
}
