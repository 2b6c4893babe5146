import { createInterface } from 'node:readline/promises';
import { InterruptedError, NotConfirmedError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import type { Plan } from '../planning/plan.js';
import type { RunCommandInput } from './run-input.js';

/**
 * Whether the person at the terminal agreed to the plan (`--yes` agrees for them): the plan, the
 * databases' version jump, then one question; anything but yes changes nothing (exit 0), and so
 * does the end of input (Ctrl-D). Ctrl-C at the question, or SIGINT/SIGTERM or a closed output
 * pipe (`interrupts`: the run's signal), ends the command at once as an interruption (exit
 * 130/143/141, src/run/signals.ts stopCauseOf), nothing changed.
 */
export async function confirm(input: RunCommandInput, plan: Plan, interrupts?: AbortSignal): Promise<void> {
  if (input.yes) return;
  const { renderPlan } = await import('../planning/render-plan.js');
  // No "Next:" here: this command is the next one, and it is asking.
  input.io.stderrWrite(`${renderPlan(plan, input.io.color, { next: null })}\n`);
  const { describePlanChanges } = await import('../planning/plan-changes.js');
  const changes = describePlanChanges(plan);
  // The question names every change, the databases' version jump too, and how to keep them.
  if (changes.databases) input.io.stderrWrite(`${changes.databases}\n`);
  const rl = createInterface({ input: input.stdin as NodeJS.ReadableStream, output: process.stderr });
  // At a terminal readline reads Ctrl-C itself (raw mode): no signal reaches the process.
  const ctrlC = new AbortController();
  rl.on('SIGINT', () => ctrlC.abort('SIGINT'));
  // The end of input (Ctrl-D, an empty pipe) closes readline; an unanswered question then never
  // settled, and node exited 13 ("unsettled top-level await").
  const ended = new AbortController();
  rl.on('close', () => ended.abort('EOF'));
  const signal = AbortSignal.any([ctrlC.signal, ended.signal, ...(interrupts ? [interrupts] : [])]);
  const question = `Upgrade ${oneLine(plan.cluster.namespace)}/${oneLine(plan.cluster.name)} (${changes.summary})? [y/N] `;
  try {
    let answer: string;
    try {
      answer = await rl.question(question, { signal });
    } catch (error) {
      // Node's readline rejects an unanswered question (closed, aborted) with an AbortError
      // ("Aborted with Ctrl+D"), which reached the user as an unexpected failure (exit 1).
      if (signal.aborted && signal.reason !== 'EOF') {
        const { stopCauseOf } = await import('../run/signals.js');
        const stop = stopCauseOf(signal.reason);
        throw new InterruptedError(
          stop.signal,
          `interrupted by ${stop.cause} at the question: nothing was changed`,
        );
      }
      if ((error as { code?: unknown }).code === 'ABORT_ERR') {
        // A terminal's readline ends the question's line itself; a pipe's does not.
        if (!rl.terminal) input.io.stderrWrite('\n');
        throw new NotConfirmedError('not confirmed (no answer: end of input): nothing was changed');
      }
      throw error;
    }
    if (!/^y(es)?$/i.test(answer.trim())) throw new NotConfirmedError('not confirmed: nothing was changed');
  } finally {
    rl.close();
  }
}
