/**
 * The simulator's errors. They do not extend ctl's CtlError (the simulator imports nothing
 * from ctl); instead they carry the same two properties the CLI reports from, `exitCode` and
 * `hint`, so `ctl sim up` with a bad scenario still exits 2 (CLI.md "Exit codes": 2 is usage)
 * and a port already in use exits 1. The two commands that start the simulator turn them into
 * ctl's errors (src/commands/demo.ts asCtlError).
 */

export interface SimErrorOptions {
  hint?: string;
  cause?: unknown;
}

export class SimError extends Error {
  readonly exitCode: 1 | 2;
  hint: string | undefined;

  constructor(exitCode: 1 | 2, message: string, options: SimErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = options.hint;
  }
}

/** Exit 2: the scenario (name, file or content) is wrong; nothing was started. */
export class ScenarioError extends SimError {
  constructor(message: string, options?: SimErrorOptions) {
    super(2, message, options);
  }
}

/** Exit 1: the simulator could not start (a port in use, a missing user). */
export class SimStartError extends SimError {
  constructor(message: string, options?: SimErrorOptions) {
    super(1, message, options);
  }
}
