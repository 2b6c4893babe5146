import type { RestAction, RestBdb, RestModel } from '../rest/model.js';
import type { Timers } from './clock.js';

/**
 * The cluster's side of the management API's asynchronous actions: an uploaded module is
 * installed, and a database upgrade finishes, `databaseUpgrade` seconds after the request.
 * Then the operator looks again: an installed rhel9 build or an upgraded database may lift a
 * frozen upgrade, and database resources mirror the new version.
 */
export function completeRestActions(
  rest: RestModel,
  timers: Timers,
  seconds: number,
  /** A database changed (its bdb), or anything may have (undefined). Every call re-checks the cluster. */
  onChange: (bdb?: RestBdb) => void,
): () => void {
  const complete = (actionUid: string, bdb?: RestBdb) => () => {
    rest.completeAction(actionUid);
    onChange(bdb);
  };
  const offModule = rest.onModuleUploaded((event) =>
    timers.after(seconds, complete(event.action.action_uid)),
  );
  const offUpgrade = rest.onBdbUpgradeRequested((event) => {
    onChange(event.bdb);
    timers.after(seconds, complete(event.action.action_uid, event.bdb));
  });
  // The model may complete actions by itself (its own delay, on a request): look again then too.
  const onSettled = (action: RestAction) => {
    const uid = /^bdb:(\d+)$/.exec(action.object_name ?? '')?.[1];
    onChange(uid === undefined ? undefined : rest.findBdb(Number(uid)));
  };
  rest.events.on('actionCompleted', onSettled);
  rest.events.on('actionFailed', onSettled);
  return () => {
    offModule();
    offUpgrade();
    rest.events.off('actionCompleted', onSettled);
    rest.events.off('actionFailed', onSettled);
  };
}
