import { LockedError } from '../errors.js';
import { describeKubeError } from '../kube/errors.js';
import type { LockOwner } from './lock.js';
import type { StateLock } from './state-store.js';

/**
 * The file store's second lock: the cluster's own Lease, the one `--state-store configmap` takes
 * (src/run/state-store-configmap.ts), so two runs with different `--state` files, or on two
 * machines, cannot upgrade one cluster at once (issue 28 item 7). Where RBAC refuses leases
 * (403), the file lock alone keeps out runs that share the state file, as before; `-v` says so.
 */
export interface ClusterLease {
  /**
   * `owner`: the run's owner from its lock file, so the Lease carries the same lock id: one run,
   * one id, in `ctl upgrade status` and in the next run's takeover warning alike.
   */
  lock(operation: string, owner?: LockOwner): Promise<StateLock>;
  /**
   * Who took the Lease from this run while it held it (its renewal found another holder), or
   * LEASE_DELETED (its renewal found none), or undefined: from then on this run must not write
   * its state (src/run/state-store.ts).
   */
  lostTo(): string | undefined;
  readonly leaseName: string;
  readonly namespace: string;
}

/**
 * What lostTo() gives when the Lease was deleted while this run held it (`ctl upgrade unlock
 * --state-store configmap`, `kubectl delete lease`). The run does not create it again: removing
 * the lock is how a person says its run is gone (docs/troubleshooting.md, a stale lock), and a
 * run started since may hold it by now. It stops at its next state write with exit 5, as when
 * another run took it over (docs/exit-codes.md). client-go's elector differs here: its renewal
 * finds the Lease NotFound and creates it again, and goes on leading
 * (tools/leaderelection/leaderelection.go tryAcquireOrRenew, at kubernetes/client-go 32ce75a7d).
 */
export const LEASE_DELETED = 'nobody: the Lease was deleted while this run held it';

/** The hint of leaseLostError for each way the Lease was lost. */
export interface LeaseLostHints {
  /** Another run holds it now. */
  taken: string;
  /** Nobody holds it: it was deleted (LEASE_DELETED). */
  deleted: string;
}

/** The error a store's next save throws once this run no longer holds the Lease (exit 5). */
export function leaseLostError(leaseName: string, holder: string, hints: LeaseLostHints): LockedError {
  if (holder === LEASE_DELETED) {
    return new LockedError(
      `this run lost the cluster's upgrade lock: its Lease ${leaseName} was deleted while it held it (ctl upgrade unlock --state-store configmap, or kubectl delete lease)`,
      { hint: hints.deleted },
    );
  }
  return new LockedError(`this run lost the cluster's upgrade lock (Lease ${leaseName}) to ${holder}`, {
    hint: hints.taken,
  });
}

export async function withClusterLease(
  fileLock: StateLock,
  lease: ClusterLease,
  operation: string,
  debug: (message: string) => void,
): Promise<StateLock> {
  let held: StateLock;
  try {
    held = await lease.lock(operation, fileLock.owner);
  } catch (error) {
    if (isForbidden(error)) {
      debug(
        `the cluster's Lease is forbidden here (403): only the lock file keeps other runs out, not runs with another --state (${describeKubeError(causeOf(error)).message})`,
      );
      return fileLock;
    }
    await fileLock.release();
    throw error; // another run holds the Lease (exit 5), or Kubernetes failed
  }
  return {
    owner: fileLock.owner,
    release: async () => {
      try {
        await held.release();
      } finally {
        await fileLock.release();
      }
    },
  };
}

function causeOf(error: unknown): unknown {
  return (error as { cause?: unknown }).cause ?? error;
}

function isForbidden(error: unknown): boolean {
  return describeKubeError(causeOf(error)).code === 403 || describeKubeError(error).code === 403;
}
