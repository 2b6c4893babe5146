/**
 * Node.js 24's V8 lets the young generation grow to two semi-spaces of 64 MB (Node 22: 16 MB)
 * when a program keeps much of what it allocates, as a plan of 10,000 databases keeps the lists it
 * read until it writes the plan: that plan peaked at 220-260 MB, 134 MB of it a young generation
 * holding 17-54 MB. V8 reads its growth factor (`--semi-space-growth-factor`) each time it would
 * grow that space, so set to 1 it keeps the young generation at the size it has then (seen with
 * --trace-gc; `--max-semi-space-size` set this way does nothing: the heap is sized at start-up).
 *
 * It is set when an answer passes LARGE_ANSWER_BYTES, not at start-up: from the start it also
 * cost the plan of 10 databases 10-15 ms of CPU (more, smaller collections) for 4 MB less. Node 22
 * is left as it is: its young generation stops at 16 MB, and a smaller one there cost the plan of
 * 10,000 databases ~50 ms of CPU. Measured in docs/performance.md ("Reading less at scale").
 *
 * A V8 flag set at run time changes the flag hash V8 checks in Node's compile cache: a module
 * compiled after this call is cached under the new hash, and one cached by a process that never
 * called it is compiled again here (and the other way round). A plan loads every module it needs
 * before its first request (scripts/bundle.mjs, the plan's group), so it never pays this; a run at
 * scale compiles the ~20 modules it loads later again when the command before it on the machine
 * read no large answer (NODE_DEBUG_NATIVE=COMPILE_CACHE shows them "rejected"): a few
 * milliseconds in a run of 10,000 databases.
 */

/** An answer this large brings thousands of objects that the command keeps. */
export const LARGE_ANSWER_BYTES = 1024 * 1024;

/** V8's flag for the young generation's growth: ctl sets it to 1; V8's default is 2 (`node --v8-options`). */
export const GROWTH_FACTOR_FLAG = '--semi-space-growth-factor';

/** Whether this Node's young generation is bounded (24 and newer: see above). */
export const BOUNDS_YOUNG_GENERATION = Number(process.versions.node.split('.')[0]) >= 24;

let bounded = false;

/** Stops the young generation's growth from now on (Node.js 24 and newer; once per process). */
export function boundYoungGeneration(): void {
  if (bounded) return;
  bounded = true;
  if (!BOUNDS_YOUNG_GENERATION) return;
  try {
    process.getBuiltinModule('node:v8').setFlagsFromString(`${GROWTH_FACTOR_FLAG}=1`);
  } catch {
    // Not settable: V8 grows it as it would have.
  }
}
