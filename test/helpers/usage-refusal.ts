import assert from 'node:assert/strict';
import { ExitCode, UsageError } from '../../src/errors.js';

/**
 * For `assert.throws`: the error is ctl's refusal of a usage (a UsageError, exit 2) whose message
 * is `message`, or matches it.
 */
export function usageRefusal(message: string | RegExp): (error: unknown) => boolean {
  return (error: unknown) => {
    assert.ok(error instanceof UsageError, String(error));
    assert.equal(error.exitCode, ExitCode.usage);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  };
}
