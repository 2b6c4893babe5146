/**
 * One error class per exit code (CLI.md "Exit codes"). Only src/main.ts turns these into a
 * process exit; everything else throws. Every message says what happened; `hint` says what
 * to do next.
 */

export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  preflight: 3,
  auth: 4,
  locked: 5,
  timeout: 6,
  stalePlan: 7,
  unavailable: 8,
  sigint: 130,
  /** 128 + SIGPIPE: stdout's or stderr's reader went away (src/run/signals.ts OutputClosed). */
  sigpipe: 141,
  sigterm: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface CtlErrorOptions {
  hint?: string;
  cause?: unknown;
}

/**
 * The value of a flag that a failure was about, such as a `--module-file` the cluster would not
 * take: the same command again fails the same way, so the command that resumes must not offer it
 * again (src/commands/next-command.ts resumeLines). Paths and names only, never a secret.
 */
export interface RefusedInput {
  /** The flag, e.g. `--module-file`. */
  flag: string;
  /** Its value as given. */
  value: string;
  /** What to pass instead, in words (`the RHEL9 package of ReJSON 2.6.10`). */
  wanted: string;
}

export class CtlError extends Error {
  readonly exitCode: ExitCodeValue;
  /** Mutable so outer layers can add advice they alone know (e.g. the command that resumes). */
  hint: string | undefined;
  /** Set by the layer that knows a given value caused the failure (RefusedInput). */
  refused: RefusedInput | undefined;

  constructor(exitCode: ExitCodeValue, message: string, options: CtlErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = options.hint;
  }
}

/** Exit 1: a step failed, an API error after retries, a TLS failure. */
export class OperationError extends CtlError {
  constructor(message: string, options?: CtlErrorOptions) {
    super(ExitCode.failed, message, options);
  }
}

/**
 * Exit 0: the person at the prompt said no. Nothing was changed and nothing went wrong, so it
 * is not a usage error; as `kubectl delete --interactive` answered "n" (it prints that the
 * deletion is cancelled and exits 0). The message goes to stderr without `error:`.
 */
export class NotConfirmedError extends CtlError {
  constructor(message: string, options?: CtlErrorOptions) {
    super(ExitCode.ok, message, options);
  }
}

/** Exit 2: a bad flag or value, a missing required input. Raised before any request. */
export class UsageError extends CtlError {
  constructor(message: string, options?: CtlErrorOptions) {
    super(ExitCode.usage, message, options);
  }
}

/** Exit 3: a preflight check failed; nothing was changed. */
export class PreflightError extends CtlError {
  /**
   * The failing checks no --ignore-check can get past (a check's `ignorable: false`): the
   * command ctl suggests next must not repeat an --ignore-check of one of them.
   */
  readonly firmChecks: readonly string[];

  constructor(message: string, options?: CtlErrorOptions & { firmChecks?: readonly string[] }) {
    super(ExitCode.preflight, message, options);
    this.firmChecks = options?.firmChecks ?? [];
  }
}

/** Exit 4: authentication or authorization failed (401/403, password expired). */
export class AuthError extends CtlError {
  constructor(message: string, options?: CtlErrorOptions) {
    super(ExitCode.auth, message, options);
  }
}

/** Exit 5: another upgrade of this cluster holds the lock. */
export class LockedError extends CtlError {
  constructor(message: string, options?: CtlErrorOptions) {
    super(ExitCode.locked, message, options);
  }
}

/** Exit 6: timed out or stalled while waiting. */
export class TimeoutError extends CtlError {
  constructor(message: string, options?: CtlErrorOptions) {
    super(ExitCode.timeout, message, options);
  }
}

/** Exit 7: the saved plan is stale. */
export class StalePlanError extends CtlError {
  constructor(message: string, options?: CtlErrorOptions) {
    super(ExitCode.stalePlan, message, options);
  }
}

/**
 * Exit 8: a database was unavailable for longer than `--max-unavailable`; the run stopped at a
 * safe point with its state saved (src/run/availability/).
 */
export class AvailabilityLimitError extends CtlError {
  constructor(message: string, options?: CtlErrorOptions) {
    super(ExitCode.unavailable, message, options);
  }
}

/** Exit 130/143: interrupted by a signal; 141: by a broken output pipe. State was saved. */
export class InterruptedError extends CtlError {
  readonly signal: 'SIGINT' | 'SIGTERM' | 'SIGPIPE';
  constructor(signal: 'SIGINT' | 'SIGTERM' | 'SIGPIPE', message: string, options?: CtlErrorOptions) {
    super(
      signal === 'SIGINT' ? ExitCode.sigint : signal === 'SIGPIPE' ? ExitCode.sigpipe : ExitCode.sigterm,
      message,
      options,
    );
    this.signal = signal;
  }
}

/** Adds a line of advice to an error's hint, keeping what it already says. */
export function appendHint<E extends CtlError>(error: E, line: string): E {
  error.hint = error.hint ? `${error.hint}\n${line}` : line;
  return error;
}

/**
 * One of ctl's errors (the simulator's own are turned into these where it is started:
 * src/commands/demo.ts asCtlError).
 */
export function isCtlError(error: unknown): error is CtlError {
  return error instanceof CtlError;
}
