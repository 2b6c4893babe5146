/** What both bad-input files judge each input by, and their tally (one per test file). */
import { STACK_TRACE } from './support.js';

/** CLI.md "Exit codes". */
export const DOCUMENTED = new Set([0, 1, 2, 3, 4, 5, 6, 7, 130, 143]);

export const tally = { inputs: 0, uncaught: 0, stacks: 0, undocumented: 0, wrongCode: 0 };
export const problems: string[] = [];

/**
 * The problems found since `from` (each test reports only its own): with `inputs`, only those
 * of the inputs named so (each problem starts with the input's name), for tests that run side by
 * side.
 */
export function since(from: number, ...inputs: string[]): string[] {
  const found = problems.slice(from);
  return inputs.length === 0 ? found : found.filter((p) => inputs.some((input) => p.startsWith(input)));
}

export function judge(what: string, code: number | null, stderr: string, expected?: readonly number[]): void {
  tally.inputs += 1;
  if (
    /unexpected failure:/.test(stderr) ||
    /^(Uncaught |TypeError|ReferenceError|RangeError)/m.test(stderr)
  ) {
    tally.uncaught += 1;
    problems.push(`${what}: uncaught exception\n${stderr.slice(0, 600)}`);
  }
  if (STACK_TRACE.test(stderr)) {
    tally.stacks += 1;
    problems.push(`${what}: stack trace\n${stderr.slice(0, 600)}`);
  }
  if (code === null || !DOCUMENTED.has(code)) {
    tally.undocumented += 1;
    problems.push(`${what}: exit ${code}\n${stderr.slice(0, 600)}`);
  } else if (expected && !expected.includes(code)) {
    tally.wrongCode += 1;
    problems.push(`${what}: exit ${code}, expected ${expected.join(' or ')}\n${stderr.slice(0, 600)}`);
  }
}
