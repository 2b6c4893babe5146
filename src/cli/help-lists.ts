import { CHECK_IDS } from '../planning/checks/index.js';
import { STEP_IDS } from '../steps/index.js';

/**
 * The lists `--help` prints, from the lists the program runs (the checks of the plan, the steps
 * in their order), so the help cannot drift from the code. Loaded only when help is asked for
 * (program.ts), as it pulls in the planner: the tree itself stays light (docs/performance.md).
 */
export interface HelpLists {
  checks: readonly string[];
  steps: readonly string[];
}

export const HELP_LISTS: HelpLists = { checks: CHECK_IDS, steps: STEP_IDS };
