/**
 * Which steps a run runs: its `--only`/`--skip`. The runner selects its steps with it
 * (src/run/runner.ts selectSteps), and a plan judges what its run will do with it (Target.steps;
 * a plan made by `ctl upgrade plan` has no selection: every step).
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
