/**
 * Loaded into a ctl child with `node --import` (first-hour.test.ts): stdin says it is a terminal,
 * as in an interactive shell, so `ctl upgrade run` asks its question; the test writes the answer
 * into the pipe. ctl's own code is untouched.
 */
Object.defineProperty(process.stdin, 'isTTY', { value: true });
