import { createInterface } from 'node:readline/promises';
import { NotConfirmedError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import type { Plan } from '../planning/plan.js';
import type { RunCommandInput } from './run-input.js';

/**
 * Whether the person at the terminal agreed to the plan (`--yes` agrees for them): the plan, the
 * databases' version jump, then one question; anything but yes changes nothing (exit 0).
 */
export async function confirm(input: RunCommandInput, plan: Plan): Promise<void> {
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
