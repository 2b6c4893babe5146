/**
 * Loaded into a ctl child with `node --import` (kubectl-habits.test.ts): stderr says it is a
 * terminal, as it would in an interactive shell, so the test sees what a person would (colour
 * decided by NO_COLOR, FORCE_COLOR and TERM). ctl's own code is untouched.
 */
Object.defineProperty(process.stderr, 'isTTY', { value: true });
