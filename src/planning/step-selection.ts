/**
 * Which steps the run a plan is for will run: its `--only`/`--skip` (Target.steps), chosen the
 * way the runner chooses them (src/run/runner.ts selectSteps). A plan made by `ctl upgrade plan`
 * has no selection: every step.
 */

export interface StepSelection {
  only: readonly string[];
  skip: readonly string[];
}

/** Whether the run runs step `id`. */
export function runsStep(selection: StepSelection | undefined, id: string): boolean {
  const only = selection?.only ?? [];
  return (only.length === 0 || only.includes(id)) && !(selection?.skip ?? []).includes(id);
}
