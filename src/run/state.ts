import { JsonTooDeepError, MAX_JSON_DEPTH, parseJson } from '../json-read.js';
import { randomUUID } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { OperationError } from '../errors.js';
import { FileTooLargeError, formatBytes, NotRegularFileError, readBoundedFile } from '../io/bounded-file.js';
import { contextFolders, contextFilePath } from '../io/context-folder.js';
import { pathSegment } from '../io/path-segment.js';
import { makeDirectories } from '../io/make-directories.js';
import { oneLine, safeJson } from '../io/safe-text.js';
import { shellQuote } from '../io/shell-words.js';
import { knownManagementCluster, type ManagementCluster } from '../planning/management-snapshot.js';
import { removeAbandonedTempFiles, writeFileAtomically, writeNewFileAtomically } from './atomic-write.js';

/**
 * The resumable record of one upgrade of one cluster (CLI.md `--state`). Each step records its
 * intent before it changes anything and the verified outcome after, so a resumed run never
 * replays blindly. It never holds a secret: only ids, versions, times and messages.
 */

export const STEP_STATUSES = ['pending', 'in-progress', 'done', 'skipped', 'failed'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

const jsonRecord = z.record(z.string(), z.unknown());

const stepStateSchema = z.object({
  status: z.enum(STEP_STATUSES),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  /** What the step was about to change, written before the change. */
  intent: jsonRecord.optional(),
  /** What was verified after the change. */
  outcome: jsonRecord.optional(),
  skipReason: z.string().optional(),
  error: z
    .object({
      message: z.string(),
      hint: z.string().optional(),
      exitCode: z.number().int(),
      /**
       * The flag value the failure was about (src/errors.ts RefusedInput), such as a
       * `--module-file` the cluster refused: `ctl upgrade status` does not offer it again.
       * Absent otherwise, and in state files of earlier versions.
       */
      refused: z.object({ flag: z.string(), value: z.string(), wanted: z.string() }).optional(),
    })
    .optional(),
});

const hopStateSchema = z.object({
  operator: z.string(),
  clusterVersion: z.string().optional(),
  /** Set once every step of the hop is done or skipped. */
  finishedAt: z.string().optional(),
  /** The hop's steps as they ended, kept when the next hop starts with fresh ones. */
  steps: z.record(z.string(), stepStateSchema).optional(),
});

export const stateSchema = z.object({
  apiVersion: z.literal('ctl/v1'),
  kind: z.literal('UpgradeState'),
  /** Which run and which cluster this file belongs to; a resume refuses a foreign lineage. */
  lineage: z.object({
    runId: z.string().min(1),
    context: z.string(),
    namespace: z.string(),
    cluster: z.string(),
    /** The REC's metadata.uid (src/run/cluster-identity.ts); absent in files of earlier versions. */
    recUid: z.string().optional(),
    /**
     * The management API's GET /v1/cluster `name` and `created_time`, where it gives them
     * (src/run/cluster-identity.ts); absent in files of earlier versions.
     */
    managementCluster: z
      .object({ name: z.string().optional(), createdTime: z.string().optional() })
      .optional(),
    createdAt: z.string(),
  }),
  /** Increases with every write, never decreases. */
  serial: z.number().int().nonnegative(),
  updatedAt: z.string(),
  target: z.object({
    operator: z.string(),
    clusterVersion: z.string().optional(),
    databaseVersion: z.string().optional(),
    method: z.string().optional(),
  }),
  planFingerprint: z.string().optional(),
  /**
   * The saved plan (`run --plan`) that started the run: its file and fingerprint, never its
   * content (src/commands/run-saved-plan.ts). The same `--plan` resumes the run although the
   * run's own changes made the cluster differ from the plan; a resume with `--to` must keep the
   * plan's selection. Absent for a run started with `--to`, and in state files of earlier versions.
   */
  savedPlan: z.object({ file: z.string(), fingerprint: z.string() }).optional(),
  /** The command line that resumes this run, shown on interruption and by `ctl upgrade status`. */
  resumeCommand: z.string().optional(),
  /**
   * Set only while the recorded run is one that stopped in preflight having changed nothing: its
   * own Next line (src/commands/run-end.ts), which may differ from resumeCommand (an
   * `--ignore-check` that cannot work left out; the target list where the target cannot be run).
   * `ctl upgrade status` tells it; absent in state files of earlier versions.
   */
  nextCommand: z.string().optional(),
  steps: z.record(z.string(), stepStateSchema),
  result: z.enum(['running', 'succeeded', 'failed', 'interrupted']).default('running'),
  /**
   * Why an `interrupted` run stopped: SIGINT, SIGTERM, its --timeout, or a broken pipe (the
   * reader of stdout or stderr went away: src/run/signals.ts). Absent otherwise, and in state
   * files of earlier versions.
   */
  stoppedBy: z.string().optional(),
  /**
   * A multi-hop upgrade: every hop in order (the last one is `target`), and the index of the one
   * `steps` belong to. Absent for a single hop (and in state files of earlier versions of ctl).
   */
  hops: z.array(hopStateSchema).min(2).optional(),
  hop: z.number().int().nonnegative().optional(),
  /**
   * What the run measured of each database's availability (src/run/availability/), kept so a
   * resumed run goes on from it; checked field by field when read back.
   */
  availability: z.record(z.string(), z.unknown()).optional(),
});

export type UpgradeState = z.infer<typeof stateSchema>;
export type StepState = z.infer<typeof stepStateSchema>;

export interface ClusterIdentity {
  context: string;
  namespace: string;
  cluster: string;
  recUid?: string | undefined;
  /** Which RS cluster the management API said it is (GET /v1/cluster). */
  managementCluster?: ManagementCluster | undefined;
}

/**
 * `$XDG_STATE_HOME/ctl/<context>/<namespace>/<cluster>.json` (CLI.md), each part made path-safe;
 * a run recorded by a ctl that kept a long context name whole is found in that folder
 * (src/io/context-folder.ts). Reads nothing but whether the two files exist.
 */
export function defaultStatePath(identity: ClusterIdentity, env: NodeJS.ProcessEnv = process.env): string {
  return contextFilePath(stateRoot(env), identity.context, [
    pathSegment(identity.namespace),
    `${pathSegment(identity.cluster)}.json`,
  ]);
}

/**
 * The state files recorded for a context and namespace, one a cluster (defaultStatePath's
 * choice where today's folder and the earlier one both hold a cluster's file), in name order.
 */
export async function recordedStatePaths(
  identity: Pick<ClusterIdentity, 'context' | 'namespace'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const byName = new Map<string, string>();
  for (const folder of contextFolders(stateRoot(env), identity.context, [pathSegment(identity.namespace)])) {
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names.filter((f) => /^[^.].*\.json$/.test(f))) {
      // Today's folder is listed first: its file wins over the earlier folder's of the same name.
      if (!byName.has(name)) byName.set(name, join(folder, name));
    }
  }
  return [...byName.keys()].sort().map((name) => byName.get(name)!);
}

function stateRoot(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state'), 'ctl');
}

export function newState(
  identity: ClusterIdentity,
  target: UpgradeState['target'],
  stepIds: readonly string[],
): UpgradeState {
  const now = new Date().toISOString();
  const managementCluster = knownManagementCluster(identity.managementCluster);
  return {
    apiVersion: 'ctl/v1',
    kind: 'UpgradeState',
    lineage: {
      runId: randomUUID(),
      context: identity.context,
      namespace: identity.namespace,
      cluster: identity.cluster,
      ...(identity.recUid ? { recUid: identity.recUid } : {}),
      ...(managementCluster ? { managementCluster } : {}),
      createdAt: now,
    },
    serial: 0,
    updatedAt: now,
    target,
    steps: Object.fromEntries(stepIds.map((id) => [id, { status: 'pending' as const }])),
    result: 'running',
  };
}

/**
 * Reads and writes one state file: atomic replace (src/run/atomic-write.ts), mode 0600 whatever
 * the umask. Reading never creates, renames or deletes a file (`ctl upgrade status` polls it
 * beside a running upgrade); only a run that holds the lock keeps a copy of a corrupt file or
 * removes the temp files of a killed writer (removeAbandonedTemps).
 */
export class StateFile {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /**
   * The state, or undefined when there is none yet. A corrupt file is reported; with
   * `keepCorruptCopy` (a run holding the lock) a copy of it is kept first.
   */
  async load(options: { keepCorruptCopy?: boolean } = {}): Promise<UpgradeState | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readBounded(this.path);
    } catch (error) {
      if (error instanceof OperationError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new OperationError(`cannot read the state file ${this.path}: ${(error as Error).message}`, {
        hint: 'Check the file permissions, or pass another file with --state.',
      });
    }
    const problem = parseProblem(bytes.toString('utf8'));
    if (problem.state) return problem.state;
    const message = `the state file ${this.path} is not a valid ctl state file: ${problem.reason}`;
    if (!options.keepCorruptCopy) {
      throw new OperationError(message, {
        hint: moveAsideHint(this.path),
      });
    }
    const backup = `${this.path}.corrupt-${Date.now()}`;
    // The copy is the bytes judged above, not the path copied again: the path may since name a
    // FIFO (copyFile's open waited on it for ever) or another file. Written whole or not at all
    // (never over an existing name), with the file's own mode (a stat never waits).
    const mode = await stat(this.path).then(
      (stats) => stats.mode & 0o777,
      () => 0o600,
    );
    const notKept = (why: string): string =>
      `No copy could be kept (${backup}: ${oneLine(why)}). Copy it aside yourself, then delete`;
    const kept = await writeNewFileAtomically(backup, bytes, mode).then(
      (written) =>
        written ? `A copy was kept at ${backup}. Inspect it, then delete` : notKept('that name is taken'),
      (error: unknown) => notKept((error as Error).message),
    );
    throw new OperationError(message, {
      hint: `${kept} it (rm ${shellQuote(this.path)}) to start over (the cluster itself is re-read on the next run), or pass another file with --state.`,
    });
  }

  /**
   * Whether load() would refuse the file itself: not JSON, not a ctl state (another apiVersion
   * or kind, the schema), larger than any state ctl writes, or not a regular file. Reads only. A
   * missing file (a first run) or one the file system will not let ctl read answers false: load()
   * reports those in its turn. Whose cluster a valid state belongs to is not judged here
   * (src/run/cluster-identity.ts).
   */
  async refusesContent(): Promise<boolean> {
    let text: string;
    try {
      text = (await readBounded(this.path)).toString('utf8');
    } catch (error) {
      // Too large or not a regular file: readBounded's OperationError; ENOENT, EACCES: not judged.
      return error instanceof OperationError;
    }
    return parseProblem(text).state === undefined;
  }

  /** Writes the next serial of the state and returns it. */
  async save(state: UpgradeState): Promise<UpgradeState> {
    const next: UpgradeState = { ...state, serial: state.serial + 1, updatedAt: new Date().toISOString() };
    try {
      await makeDirectories(dirname(this.path), 0o700);
      await writeFileAtomically(this.path, `${safeJson(next, 2)}\n`);
    } catch (error) {
      throw new OperationError(`cannot write the state file ${this.path}: ${(error as Error).message}`, {
        hint: 'Free some space or fix the permissions of its folder, or pass another file with --state; then run again to resume.',
      });
    }
    return next;
  }

  /** Under the lock only: removes the temp files of writers that are gone (src/run/atomic-write.ts). */
  removeAbandonedTemps(): Promise<string[]> {
    return removeAbandonedTempFiles(this.path);
  }
}

/**
 * The most of a state file ctl reads: what it writes is a few KB, a few MB for a run over
 * thousands of databases (each one's outcome). A file far larger (copied over, appended to, a
 * disk image) is refused before it is read, so `ctl upgrade status` never holds a gigabyte.
 */
export const MAX_STATE_BYTES = 64 * 1024 * 1024;

/**
 * The file's text: a regular file of at most MAX_STATE_BYTES, read without waiting on it and
 * never past the bound, even while another writer appends (src/io/bounded-file.ts). `--state`
 * was checked at the flag (exit 2); the default path and one swapped since are refused here.
 */
async function readBounded(path: string): Promise<Buffer> {
  try {
    return await readBoundedFile(path, MAX_STATE_BYTES);
  } catch (error) {
    if (error instanceof FileTooLargeError) throw tooLarge(path, error.size);
    if (error instanceof NotRegularFileError) {
      throw new OperationError(`the state file ${error.message}; ctl did not read it`, {
        hint: moveAsideHint(path),
      });
    }
    throw error;
  }
}

/**
 * How to move a state file aside, as a command to paste: its path shell-quoted (src/io/shell-words.ts),
 * since it may come through a link or a folder someone else named (`$(...)` in it ran on paste).
 */
function moveAsideHint(path: string): string {
  return `Inspect it, then move it aside (mv ${shellQuote(path)} ${shellQuote(`${path}.bad`)}) to start over (the cluster itself is re-read on the next run), or pass another file with --state.`;
}

/** `size` as stat gave it; undefined when the read itself found more than the bound. */
function tooLarge(path: string, size: number | undefined): OperationError {
  const over =
    size !== undefined && size > MAX_STATE_BYTES + 1
      ? formatBytes(size)
      : `more than ${formatBytes(MAX_STATE_BYTES)}`;
  return new OperationError(
    `the state file ${path} is ${over}, larger than any state ctl writes (${formatBytes(MAX_STATE_BYTES)} at most); ctl did not read it`,
    {
      hint: moveAsideHint(path),
    },
  );
}

function parseProblem(text: string): { state?: UpgradeState; reason: string } {
  let json: unknown;
  try {
    json = parseJson(text, 'the state');
  } catch (error) {
    if (error instanceof JsonTooDeepError) return { reason: tooDeepReason() };
    return { reason: text.trim() === '' ? 'it is empty' : `it is not JSON (${(error as Error).message})` };
  }
  const parsed = stateSchema.safeParse(json);
  if (parsed.success) return { state: parsed.data, reason: '' };
  const first = parsed.error.issues[0];
  const where = first?.path.length ? first.path.join('.') : 'the document';
  return { reason: `${where}: ${first?.message ?? 'does not match the schema'}` };
}

/** The first step, in run order, that is not finished: where a resumed run starts. */
export function firstUnfinishedStep(state: UpgradeState, order: readonly string[]): string | undefined {
  return order.find((id) => {
    const status = state.steps[id]?.status ?? 'pending';
    return status !== 'done' && status !== 'skipped';
  });
}

export type HopState = z.infer<typeof hopStateSchema>;

/** The index of the hop `steps` belong to (0 for a single-hop state). */
export function currentHop(state: UpgradeState): number {
  return state.hops ? Math.min(state.hop ?? 0, state.hops.length - 1) : 0;
}

/**
 * True when nothing is left to do: the run succeeded, and it was the last hop. A multi-hop run
 * whose hop succeeded but was not yet advanced (killed in between) is not finished.
 */
export function isFinished(state: UpgradeState): boolean {
  return state.result === 'succeeded' && (!state.hops || currentHop(state) >= state.hops.length - 1);
}

/**
 * The state for the next hop: the hop just run marked finished with its steps kept, every step
 * pending again, the run running. Call only when there is a next hop.
 */
export function advanceHop(state: UpgradeState, stepIds: readonly string[]): UpgradeState {
  const index = currentHop(state);
  const hops = (state.hops ?? []).map((hop, i) =>
    i === index ? { ...hop, finishedAt: new Date().toISOString(), steps: state.steps } : hop,
  );
  return {
    ...state,
    hops,
    hop: index + 1,
    steps: Object.fromEntries(stepIds.map((id) => [id, { status: 'pending' as const }])),
    result: 'running',
  };
}

/** Why a state nested past MAX_JSON_DEPTH is refused (src/json-read.ts). */
export function tooDeepReason(): string {
  return `it is nested deeper than ${MAX_JSON_DEPTH} levels, which no state ctl writes is (ctl does not read it)`;
}
