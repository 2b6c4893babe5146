import { acquireLock, forceUnlock, type LockOwner, lockPathFor, readLock, stateFileCommand } from './lock.js';
import { StateFile, type StepState, type UpgradeState } from './state.js';
import { refuseSharedStatePath } from './state-permissions.js';
import { type ClusterLease, leaseLostError, withClusterLease } from './cluster-lease-lock.js';
import type { StateStoreKind } from '../planning/state-store-kind.js';
import { commandFor, DEFAULT_KUBE_TARGET, type KubeTarget } from '../kube/kube-target.js';

/**
 * Where the resumable state of one cluster's upgrade lives, and the lock that keeps a second
 * run out (CLI.md `--state-store`): a local file next to a lock file (the default), or a
 * ConfigMap plus a coordination.k8s.io Lease in the cluster itself, so a run started by one CI
 * runner or Job can be resumed by another. Neither ever holds a secret.
 */

export { parseStateStoreKind, STATE_STORE_KINDS, type StateStoreKind } from '../planning/state-store-kind.js';

export interface StateLock {
  owner: LockOwner;
  release(): Promise<void>;
}

/** Who holds the lock, for `ctl upgrade status`; `lease` only for the ConfigMap store. */
export interface LockView {
  owner: LockOwner;
  lease?: { name: string; renewTime: string | undefined; leaseDurationSeconds: number; stale: boolean };
}

export interface StateStore {
  readonly kind: StateStoreKind;
  /** For messages and `status`: the file path, or `configmap/<namespace>/<name>`. */
  readonly location: string;
  /** The state, or undefined when no run has saved one yet. */
  load(): Promise<UpgradeState | undefined>;
  /** Writes the next serial of the state and returns it. */
  save(state: UpgradeState): Promise<UpgradeState>;
  /** Takes the cluster's upgrade lock, or throws LockedError (exit 5) naming its holder. */
  lock(operation: string): Promise<StateLock>;
  readLock(): Promise<LockView | undefined>;
  /** `ctl upgrade unlock`: removes a lock whose owner is gone; refuses a live one unless forced. */
  forceUnlock(options: { id?: string | undefined; force?: boolean }): Promise<LockOwner | undefined>;
  /**
   * `ctl upgrade status` or `unlock` with `words`, for a hint to paste: it names this store (the
   * file, absolute; the ConfigMap's namespace and cluster) and the kubeconfig and context ctl was
   * given, so that pasted it reads this state and this lock, whatever the context's namespace is.
   */
  ctlCommand(subcommand: 'status' | 'unlock', ...words: string[]): string;
}

/**
 * `store`, whose saves pass the text of the state that quotes others through `redact` (the
 * redactor of src/io/redact.ts): each step's error message, hint and refused value (a server's
 * words: an API or Kubernetes error body quoting the request's credentials) and the resume and
 * next commands (a `--bundle` URL with its token). The state file is the user's, but the
 * ConfigMap store keeps it in the cluster for everyone who may read ConfigMaps. The rest of the
 * state is ctl's own (ids, versions, times), and is kept exactly, so that a resume reads it back
 * unchanged.
 */
export function withRedactedSaves(store: StateStore, redact: (text: string) => string): StateStore {
  const steps = (record: Record<string, StepState>): Record<string, StepState> =>
    Object.fromEntries(
      Object.entries(record).map(([id, step]) => [
        id,
        step.error
          ? {
              ...step,
              error: {
                ...step.error,
                message: redact(step.error.message),
                ...(step.error.hint === undefined ? {} : { hint: redact(step.error.hint) }),
                ...(step.error.refused === undefined
                  ? {}
                  : {
                      refused: {
                        ...step.error.refused,
                        value: redact(step.error.refused.value),
                        wanted: redact(step.error.refused.wanted),
                      },
                    }),
              },
            }
          : step,
      ]),
    );
  return {
    kind: store.kind,
    location: store.location,
    load: () => store.load(),
    save: (state) =>
      store.save({
        ...state,
        steps: steps(state.steps),
        ...(state.hops
          ? { hops: state.hops.map((hop) => (hop.steps ? { ...hop, steps: steps(hop.steps) } : hop)) }
          : {}),
        ...(state.resumeCommand === undefined ? {} : { resumeCommand: redact(state.resumeCommand) }),
        ...(state.nextCommand === undefined ? {} : { nextCommand: redact(state.nextCommand) }),
      }),
    lock: (operation) => store.lock(operation),
    readLock: () => store.readLock(),
    forceUnlock: (options) => store.forceUnlock(options),
    ctlCommand: (subcommand, ...words) => store.ctlCommand(subcommand, ...words),
  };
}

/** The local state file and its lock file (src/run/state.ts, lock.ts), unchanged. */
export class FileStateStore implements StateStore {
  readonly kind = 'file' as const;
  readonly location: string;
  readonly #file: StateFile;
  /** Set while this process holds the lock: only then may loading keep a copy of a corrupt file. */
  #locked = false;

  readonly #lease: { lease: ClusterLease; debug: (message: string) => void } | undefined;
  readonly #target: KubeTarget;

  /**
   * `lease`: the cluster's Lease, taken after the lock file where RBAC allows it
   * (src/run/cluster-lease-lock.ts). `target`: the kubeconfig and context ctl was given, which
   * the commands of its hints name (src/kube/kube-target.ts).
   */
  constructor(
    path: string,
    lease?: { lease: ClusterLease; debug: (message: string) => void },
    target: KubeTarget = DEFAULT_KUBE_TARGET,
  ) {
    this.location = path;
    this.#file = new StateFile(path);
    this.#lease = lease;
    this.#target = target;
  }

  async load(): Promise<UpgradeState | undefined> {
    await refuseSharedStatePath(this.location);
    return this.#file.load({ keepCorruptCopy: this.#locked });
  }

  save(state: UpgradeState): Promise<UpgradeState> {
    // Another run (another --state, another machine) took the cluster's Lease from this one, or
    // someone deleted it: its steps may belong to another run now, so this one stops at its next
    // save (exit 5), as the ConfigMap store does.
    const lease = this.#lease?.lease;
    const lostTo = lease?.lostTo();
    if (lease && lostTo) {
      const getLease = commandFor(
        'kubectl',
        this.#target,
        'get',
        'lease',
        lease.leaseName,
        '-n',
        lease.namespace,
        '-o',
        'yaml',
      );
      const stopped = `This run stopped; its state in ${this.location} is as it last saved it.`;
      return Promise.reject(
        leaseLostError(lease.leaseName, lostTo, {
          taken: `Another run (another --state, or another machine) now upgrades this cluster; ${getLease} shows who. ${stopped}`,
          deleted: `${stopped} Check that no other run upgrades this cluster (${getLease} shows the Lease of one that started since), then run the same command again to resume.`,
        }),
      );
    }
    return this.#file.save(state);
  }

  async lock(operation: string): Promise<StateLock> {
    await refuseSharedStatePath(this.location);
    const file = await acquireLock(lockPathFor(this.location), operation, this.#target);
    const held = this.#lease
      ? await withClusterLease(file, this.#lease.lease, operation, this.#lease.debug)
      : file;
    this.#locked = true;
    // Under the lock no other ctl writes this file: a temp file whose writer is gone is litter.
    await this.#file.removeAbandonedTemps();
    return {
      owner: held.owner,
      release: async () => {
        this.#locked = false;
        await held.release();
      },
    };
  }

  async readLock(): Promise<LockView | undefined> {
    const owner = await readLock(lockPathFor(this.location));
    return owner ? { owner } : undefined;
  }

  forceUnlock(options: { id?: string | undefined; force?: boolean }): Promise<LockOwner | undefined> {
    return forceUnlock(lockPathFor(this.location), {
      id: options.id,
      force: options.force,
      target: this.#target,
    });
  }

  ctlCommand(subcommand: 'status' | 'unlock', ...words: string[]): string {
    return stateFileCommand(this.location, this.#target, subcommand, ...words);
  }
}
