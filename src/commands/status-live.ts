import { oneLine } from '../io/safe-text.js';
import { isStale, type LockOwner } from '../run/lock.js';
import { isAliveHere, isJudgedHere, ownerElsewhere } from '../run/process-identity.js';
import { currentHop, type UpgradeState } from '../run/state.js';
import type { LockView } from '../run/state-store.js';

/**
 * Whether the run that holds the lock still runs: `true` (its process is alive on this host, or
 * its Lease is renewed, whoever renews it: renewedElsewhere), `false` (no lock, or its owner is
 * gone: the next run takes it over), or `null` (a lock file's process on another host or in
 * another container: nothing here can tell). The same judgement as `ctl upgrade unlock` and the
 * next run's lock make (src/run/lock.ts).
 */
export function lockHolderRuns(view: LockView | undefined): boolean | null {
  if (!view) return false;
  if (view.lease) return !view.lease.stale;
  if (isStale(view.owner)) return false;
  return isAliveHere(view.owner) ? true : null;
}

/**
 * A Lease still renewed whose holder is not on this host, in this PID namespace (judged as the
 * ConfigMap store judges it, src/run/state-store-configmap.ts): its renewals say a run holds the
 * lock (`running` stays true), but that run is elsewhere, and no process here is seen to run it.
 * unlock refuses such a Lease without --force until it expires.
 */
export function renewedElsewhere(view: LockView): boolean {
  return view.lease !== undefined && !view.lease.stale && !isJudgedHere(view.owner, 'other');
}

/**
 * What status says instead of `resume with:` while a run holds the lock: `ctl upgrade run` would
 * exit 5 (locked) now. Who holds it and since when, the step it is at as its state says, and
 * what to do: wait (status again shows how far it got), or, for an owner this host cannot judge
 * (a lock file's process elsewhere, a Lease renewed elsewhere), unlock it first if it is gone for
 * good. `commands`: the status and the unlock (with --force where unlock needs it) of this state
 * store, as StateStore.ctlCommand names them.
 */
export function liveRunLines(
  view: LockView,
  runs: true | null,
  state: UpgradeState,
  commands: { status: string; unlock: string },
): string[] {
  const unlockCommand = commands.unlock;
  const owner: LockOwner = view.owner;
  const s = oneLine;
  const who = `pid ${owner.pid} on ${s(owner.host)} (user ${s(owner.user)})`;
  const at = `${stepOf(state)}, per the state written ${s(state.updatedAt)}`;
  if (view.lease && renewedElsewhere(view)) {
    // Only the renewals say it runs: name who renews it and where, not a run seen here.
    const { name, renewTime, leaseDurationSeconds } = view.lease;
    return [
      `held elsewhere: ${who} holds the lock since ${s(owner.createdAt)} and renews its Lease ${s(name)} (last at ${s(renewTime ?? 'never')}); ctl cannot see that process from here (it was started ${s(ownerElsewhere(owner))}); ${at}`,
      `  wait for it to finish: another ctl upgrade run exits 5 (locked) meanwhile; if it is gone, its Lease expires ${leaseDurationSeconds} s after its last renewal and the next run takes it over; to remove the lock sooner, once you are sure it is not running there, run ${unlockCommand}, then run it again to resume`,
    ];
  }
  if (runs) {
    return [
      `running now: ${who} holds the lock since ${s(owner.createdAt)}; ${at}`,
      `  wait for it to finish: another ctl upgrade run exits 5 (locked) meanwhile; run ${commands.status} again to see how far it got`,
    ];
  }
  return [
    `held by ${who} since ${s(owner.createdAt)}, on another host or in another container: ctl cannot tell from here whether it still runs; ${at}`,
    `  if it runs, wait for it to finish (another ctl upgrade run exits 5 meanwhile); if it is gone for good, run ${unlockCommand}, then run it again to resume`,
  ];
}

/** `at step monitor` (`of hop 2 of 3` in a multi-hop run), or where the run is before its steps. */
function stepOf(state: UpgradeState): string {
  const step = Object.entries(state.steps).find(([, record]) => record.status === 'in-progress')?.[0];
  const hop = state.hops ? ` of hop ${currentHop(state) + 1} of ${state.hops.length}` : '';
  return step ? `at step ${oneLine(step)}${hop}` : `no step in progress${hop}`;
}
