import { appendHint, type InterruptedError } from '../errors.js';
import { stopSubject } from '../run/signals.js';
import type { UpgradeState } from '../run/state.js';

/**
 * What an interruption stopped, said exactly: the step that was running (and the hop of a
 * multi-hop run), and, where the cluster was already asked to change, that the change goes on
 * without ctl: SIGINT, SIGTERM or a closed output pipe stops ctl (the note names which, from the
 * error's signal), never the operator's rolling upgrade nor a database upgrade the management
 * API was given. The resume command is added after this (run-end.ts).
 */
export function describeInterruption(
  error: InterruptedError,
  state: UpgradeState | undefined,
  stepIds: readonly string[],
  hop: string,
): InterruptedError {
  const step = state && stepIds.find((id) => state.steps[id]?.status === 'in-progress');
  if (!step) return error;
  const where = hop ? `step ${step} of ${hop}` : `step ${step}`;
  error.message = error.message.replace(
    /^interrupted by (SIGINT|SIGTERM|a broken pipe: [^;]*);/,
    `interrupted by $1 during ${where};`,
  );
  const goesOn = GOES_ON[step];
  return goesOn ? appendHint(error, goesOn(stopSubject(error.signal))) : error;
}

/**
 * What a step leaves going on in the cluster when ctl stops in it, `stopper` being what stopped
 * ctl (stopSubject: SIGINT, SIGTERM, the closed output pipe).
 */
const GOES_ON: Partial<Record<string, (stopper: string) => string>> = {
  operator: (stopper) =>
    `The new operator goes on rolling out without ctl: ${stopper} stopped ctl following it, not the rollout.`,
  monitor: (stopper) =>
    `The operator goes on rolling the cluster's pods to the new version without ctl: ${stopper} stopped ctl following it, not the upgrade.`,
  databases: (stopper) =>
    `A database upgrade already requested goes on without ctl: ${stopper} stopped ctl following it, not the upgrade.`,
};
