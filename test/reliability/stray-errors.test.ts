/**
 * An error nothing awaits ends ctl as any failure does (src/cli/run-cli.ts reportStrayErrors):
 * one `error:` line, redacted and escaped, exit 1. Node's own report printed the error inspected
 * whole, its properties too, raw: a bundle URL that did not parse (issue of this review) put the
 * URL with its password on stderr that way. Here a preload leaves such an error unawaited in the
 * middle of a plan (stray-error-preload.ts).
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixturePath, runOnBed, STACK_TRACE, startBed } from './support.js';

describe('an error nothing awaits', () => {
  test('is reported redacted and escaped, exit 1; with -vv its stack too, still redacted', async () => {
    const bed = await startBed('happy-path');
    try {
      const password = bed.env.CTL_PASSWORD ?? '';
      assert.ok(password.length >= 4, 'the simulator gives a password');
      for (const verbose of ['-v', '-vv']) {
        const result = await runOnBed(bed, ['upgrade', 'plan', '--to', '7.8.2-6', verbose], {
          preload: fixturePath('stray-error-preload.js'),
        });
        const output = result.stdout + result.stderr;
        assert.equal(result.code, 1, result.stderr);
        assert.match(
          result.stderr,
          /^error: unexpected failure: stray failure quoting \[REDACTED\] \\x1b\[2J$/m,
        );
        assert.ok(!output.includes(password), `the password is printed:\n${result.stderr}`);
        assert.ok(!output.includes('\u001b[2J'), 'a raw escape sequence reached the terminal');
        assert.doesNotMatch(result.stderr, /input:/, "the error's properties are not printed");
        if (verbose === '-v') assert.doesNotMatch(result.stderr, STACK_TRACE);
        else assert.match(result.stderr, STACK_TRACE);
      }
    } finally {
      await bed.close();
    }
  });
});
