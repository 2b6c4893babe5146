import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  type CredentialSource,
  filePasswordSource,
  resolveCredentials,
  stdinPasswordSource,
  trimOneNewline,
  valueSource,
} from '../../../src/api/credentials.js';
import { UsageError } from '../../../src/errors.js';

function stdinOf(text: string, isTTY = false) {
  return Object.assign(Readable.from([Buffer.from(text)]), { isTTY });
}

describe('credentials', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctl-cred-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes each field from the first source that has it, registering the password', async () => {
    const secrets: string[] = [];
    const resolved = await resolveCredentials(
      [
        valueSource('--username', { username: 'flag-user' }),
        valueSource('CTL_USERNAME', { username: 'env-user' }),
        valueSource('CTL_PASSWORD', { password: 'env-password' }),
      ],
      { onSecret: (s) => secrets.push(s) },
    );
    assert.deepEqual(resolved, {
      username: 'flag-user',
      password: 'env-password',
      usernameFrom: '--username',
      passwordFrom: 'CTL_PASSWORD',
    });
    assert.deepEqual(secrets, ['env-password']);
  });

  it('does not read a later source (the cluster Secret) when earlier ones answered', async () => {
    let asked = 0;
    const secret: CredentialSource = {
      name: 'Secret redis/rec',
      username: async () => {
        asked += 1;
        return 'secret-user';
      },
      password: async () => {
        asked += 1;
        return 'secret-password';
      },
    };
    await resolveCredentials([valueSource('x', { username: 'u', password: 'p' }), secret], {
      onSecret: () => {},
    });
    assert.equal(asked, 0);
    const fromSecret = await resolveCredentials([valueSource('x', { username: 'u' }), secret], {
      onSecret: () => {},
    });
    assert.equal(fromSecret.passwordFrom, 'Secret redis/rec');
  });

  it('says how to give a missing username or password (usage error)', async () => {
    await assert.rejects(resolveCredentials([], { onSecret: () => {} }), (error: UsageError) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.hint ?? '', /--username/);
      return true;
    });
    await assert.rejects(
      resolveCredentials([valueSource('x', { username: 'u' })], { onSecret: () => {} }),
      (error: UsageError) => {
        assert.match(error.hint ?? '', /--password-stdin/);
        assert.match(error.hint ?? '', /CTL_PASSWORD/);
        return true;
      },
    );
  });

  it('trims exactly one trailing newline', () => {
    assert.equal(trimOneNewline('pw\n'), 'pw');
    assert.equal(trimOneNewline('pw\r\n'), 'pw');
    assert.equal(trimOneNewline('pw\n\n'), 'pw\n');
    assert.equal(trimOneNewline('pw '), 'pw ');
    assert.equal(trimOneNewline('pw'), 'pw');
  });

  it('reads any password from stdin byte for byte, minus one newline', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1 }), async (password) => {
        // A trailing "\r" goes with the newline (docker's rule); lone surrogates are not UTF-8.
        fc.pre(!/[\r\n]$/.test(password) && Buffer.from(password).toString('utf8') === password);
        const read = await stdinPasswordSource(stdinOf(`${password}\n`)).password?.();
        assert.equal(read, password);
      }),
      { numRuns: 50 },
    );
  });

  it('refuses an empty stdin and a terminal', async () => {
    await assert.rejects(stdinPasswordSource(stdinOf('\n')).password!(), UsageError);
    await assert.rejects(stdinPasswordSource(stdinOf('pw', true)).password!(), /terminal/);
  });

  it('reads --password-file, warns when others can read it, and reports a missing file', async () => {
    const file = join(dir, 'pw');
    await writeFile(file, 's3cret\n', { mode: 0o644 });
    const warnings: string[] = [];
    assert.equal(await filePasswordSource(file, (w) => warnings.push(w)).password!(), 's3cret');
    assert.match(warnings[0] ?? '', /chmod 600/);
    const quiet = join(dir, 'quiet');
    await writeFile(quiet, 's3cret', { mode: 0o600 });
    const none: string[] = [];
    await filePasswordSource(quiet, (w) => none.push(w)).password!();
    assert.deepEqual(none, []);
    await assert.rejects(filePasswordSource(join(dir, 'missing'), () => {}).password!(), /ENOENT/);
  });

  it('refuses a --password-file that is a FIFO or past 64 KiB: exit 2, without waiting or warning first', async () => {
    const fifo = join(dir, 'pw-fifo');
    execFileSync('mkfifo', [fifo]);
    const warnings: string[] = [];
    await assert.rejects(filePasswordSource(fifo, (w) => warnings.push(w)).password!(), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.equal(error.message, `--password-file ${fifo} is a FIFO (named pipe), not a regular file`);
      return true;
    });
    const big = join(dir, 'pw-big');
    await writeFile(big, 'x'.repeat(64 * 1024 + 1), { mode: 0o644 });
    await assert.rejects(
      filePasswordSource(big, (w) => warnings.push(w)).password!(),
      /--password-file \S+ is 65537 bytes, more than the 64 KiB ctl reads of it/,
    );
    assert.deepEqual(warnings, [], 'no warning about a file ctl does not read');
  });
});
