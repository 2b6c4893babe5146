import { appendHint, type InterruptedError } from '../errors.js';
import type { UpgradeState } from '../run/state.js';

/**
 * What an interruption stopped, said exactly: the step that was running (and the hop of a
 * multi-hop run), and, where the cluster was already asked to change, that the change goes on
 * without ctl: Ctrl-C or SIGTERM stops ctl, never the operator's rolling upgrade nor a database
 * upgrade the management API was given. The resume command is added after this (run-end.ts).
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
  return goesOn ? appendHint(error, goesOn) : error;
}

/** What a step leaves going on in the cluster when ctl stops in it. */
const GOES_ON: Partial<Record<string, string>> = {
  operator:
    'The new operator goes on rolling out without ctl: Ctrl-C stopped ctl following it, not the rollout.',
  monitor:
    "The operator goes on rolling the cluster's pods to the new version without ctl: Ctrl-C stopped ctl following it, not the upgrade.",
  databases:
    'A database upgrade already requested goes on without ctl: Ctrl-C stopped ctl following it, not the upgrade.',
};
