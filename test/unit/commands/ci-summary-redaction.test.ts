/**
 * GitHub's job summary is shown to everyone who can read the workflow run, and it is written to
 * a file, not through ctl's output: it went unredacted. A step that failed with a server's
 * message quoting the password or the token (an error body echoing the request) put them in the
 * summary table, escaped for Markdown (`Pa\_ss\*word`), a form no redaction of the raw text
 * would have matched. Now the summary is redacted at its edge (src/io/github.ts) and the redactor
 * knows each secret as markdownText writes it.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { writeCiSummary } from '../../../src/commands/run-end.js';
import type { RunCommandInput } from '../../../src/commands/run-input.js';
import { createTestIo } from '../../../src/io/test-io.js';
import { tempDir } from '../../helpers/temp.js';

const PASSWORD = 'Pa_ss*word(1)#x';
const TOKEN = 'eyJhbGciOi.eyJzdWIi_OjEy-MzQ1.c2lnbmF0_dXJl';

describe('the job summary is redacted', () => {
  it('a failed step whose message quotes the password and the token shows neither, in any form', () => {
    const file = path.join(tempDir('ctl-summary-'), 'summary.md');
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file };
    const { io } = createTestIo({ env });
    io.redactor.addUsername('admin@example.com');
    io.redactor.add(PASSWORD, 'password');
    io.redactor.add(TOKEN);
    const message = `POST /v1/bdbs/1/upgrade failed with HTTP 400: Invalid request (Authorization: JWT ${TOKEN}) {"password":"${PASSWORD}"} token=${TOKEN}`;
    const input = { io, env } as unknown as RunCommandInput;
    return writeCiSummary(input, 'failed', [
      { id: 'databases', title: 'Upgrade the databases', result: 'failed', durationMs: 0, message },
    ]).then(() => {
      const summary = readFileSync(file, 'utf8');
      assert.match(summary, /\| databases \| failed \|/);
      assert.match(summary, /\[REDACTED\]/);
      for (const fragment of ['Pa_', 'Pa\\_', 'word(', 'word\\(', 'c2lnbmF0', 'OjEy'])
        assert.ok(!summary.includes(fragment), `${fragment} of a secret in the summary:\n${summary}`);
    });
  });
});
