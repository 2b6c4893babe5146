import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import { type CtlResult } from '../helpers/run-ctl.js';
import { adminCtlEnv, ADMIN, EXPIRED, type SimFixture, startSim } from '../unit/sim/rest/fixture.js';

/**
 * `ctl auth token` end to end: the BUILT binary against the management API emulator, started
 * in this process. Every case of issue 2; the password is a canary searched for in all output.
 */

function claimsOf(token: string): { iat: number; exp: number; uid: string } {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

function assertExit(result: CtlResult, code: number): void {
  assert.equal(result.code, code, `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
}

describe('ctl auth token (e2e)', () => {
  let modern: SimFixture;
  let legacy: SimFixture;
  let dir: string;
  let caFile: string;
  const outputs: CtlResult[] = [];

  before(async () => {
    [modern, legacy] = await Promise.all([
      startSim({ serverVersion: '7.8.2-6' }),
      startSim({ serverVersion: '7.4.6-22' }),
    ]);
    dir = await mkdtemp(join(tmpdir(), 'ctl-e2e-auth-'));
    caFile = join(dir, 'ca.pem');
    await writeFile(caFile, modern.ca.certPem);
  });
  after(async () => {
    await Promise.all([modern.close(), legacy.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs ctl with the admin's credentials in env, the CA, and HOME/XDG/cwd inside the temp dir. */
  async function ctl(
    sim: SimFixture,
    args: string[],
    options: { env?: Record<string, string | undefined>; stdin?: string } = {},
  ): Promise<CtlResult> {
    const result = await runCtlInProcess(['auth', 'token', ...args], {
      cwd: dir,
      stdin: options.stdin,
      env: { ...adminCtlEnv(sim, dir, caFile), ...options.env },
    });
    outputs.push(result);
    return result;
  }

  it('prints the token alone on stdout (text)', async () => {
    const result = await ctl(modern, []);
    assertExit(result, 0);
    assert.match(result.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const claims = claimsOf(result.stdout.trim());
    assert.equal(claims.exp - claims.iat, 300);
    assert.equal(result.stderr, '');
  });

  it('--ttl 600 gives a JWT whose exp - iat is 600', async () => {
    const result = await ctl(modern, ['--ttl', '600']);
    assertExit(result, 0);
    const claims = claimsOf(result.stdout.trim());
    assert.equal(claims.exp - claims.iat, 600);
  });

  it('-o json prints access_token, token_type, ttl and expires_at', async () => {
    const result = await ctl(modern, ['--ttl', '600', '-o', 'json']);
    assertExit(result, 0);
    const doc = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(doc), ['access_token', 'token_type', 'ttl', 'expires_at']);
    assert.equal(doc.token_type, 'JWT');
    assert.equal(doc.ttl, 600);
    const claims = claimsOf(doc.access_token as string);
    assert.equal(doc.expires_at, new Date(claims.exp * 1000).toISOString());
    assert.equal(result.stdout.split('\n').filter(Boolean).length, 1);
  });

  for (const ttl of ['0', '-1', '86401', '1.5', 'abc', '']) {
    it(`--ttl ${JSON.stringify(ttl)} is a usage error (exit 2) and sends no request`, async () => {
      const before = modern.audit.entries.length;
      const result = await ctl(modern, [`--ttl=${ttl}`]);
      assertExit(result, 2);
      assert.match(
        result.stderr,
        /--ttl must be from 1 to 86400 seconds \(a whole number, or a duration such as 10m\)/,
      );
      assert.equal(result.stdout, '');
      assert.equal(modern.audit.entries.length, before, 'the emulator saw a request');
    });
  }

  it('--ttl -1 as a separate argument is a usage error too', async () => {
    const before = modern.audit.entries.length;
    const result = await ctl(modern, ['--ttl', '-1']);
    assertExit(result, 2);
    assert.equal(modern.audit.entries.length, before);
  });

  it('fails clearly without the CA (exit 1, names --ca-file and --insecure)', async () => {
    const result = await ctl(modern, [], { env: { CTL_CA_FILE: undefined } });
    assertExit(result, 1);
    assert.match(result.stderr, /error: TLS: the certificate of https:\/\/127\.0\.0\.1:\d+ is not trusted/);
    assert.match(result.stderr, /hint: .*--ca-file CA_FILE.*--insecure/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace without -vv');
    assert.equal(result.stdout, '');
  });

  it('--insecure works and warns on stderr, every time (CTL_INSECURE=1 too)', async () => {
    for (const variant of [
      { args: ['--insecure'], env: {} },
      { args: [], env: { CTL_INSECURE: '1' } },
    ]) {
      const result = await ctl(modern, variant.args, { env: { CTL_CA_FILE: undefined, ...variant.env } });
      assertExit(result, 0);
      assert.match(result.stderr, /warning: --insecure: the certificate of .* is NOT verified/);
      assert.ok(claimsOf(result.stdout.trim()).exp);
    }
  });

  it('a wrong password exits 4 with "authentication failed"', async () => {
    const result = await ctl(modern, [], { env: { CTL_PASSWORD: 'not-the-password' } });
    assertExit(result, 4);
    assert.match(result.stderr, /authentication failed for admin@example\.com/);
  });

  it('an expired password exits 4 and says it must be changed, and how', async () => {
    const result = await ctl(modern, [], {
      env: { CTL_USERNAME: EXPIRED.username, CTL_PASSWORD: EXPIRED.password },
    });
    assertExit(result, 4);
    assert.match(result.stderr, /password of old@example\.com has expired and must be changed/);
    assert.match(result.stderr, /hint: Change it/);
  });

  describe('both authorize forms', () => {
    it('auto signs in to a server before 7.8.2 and to 7.8.2 with one request (header and body together)', async () => {
      for (const server of [legacy, modern]) {
        const before = server.audit.entries.length;
        const result = await ctl(server, ['-v']);
        assertExit(result, 0);
        assert.ok(claimsOf(result.stdout.trim()).exp);
        assert.deepEqual(
          server.audit.entries.slice(before).map((e) => e.status),
          [200],
        );
      }
    });

    it('--auth-form body works on a server before 7.8.2 in one request', async () => {
      const before = legacy.audit.entries.length;
      const result = await ctl(legacy, ['--auth-form', 'body']);
      assertExit(result, 0);
      assert.equal(legacy.audit.entries.length - before, 1);
    });

    it('--auth-form header on a server before 7.8.2 exits 1 with the server message and a hint', async () => {
      const result = await ctl(legacy, ['--auth-form', 'header']);
      assertExit(result, 1);
      assert.match(result.stderr, /The request body must contain username and password/);
      assert.match(result.stderr, /hint: .*--auth-form body/);
    });

    it('--auth-form header works on 7.8.2 in one request', async () => {
      const before = modern.audit.entries.length;
      const result = await ctl(modern, ['--auth-form', 'header']);
      assertExit(result, 0);
      assert.equal(modern.audit.entries.length - before, 1);
    });

    it('--auth-form body on 7.8.2 exits 4 with a hint towards the header form', async () => {
      const result = await ctl(modern, ['--auth-form', 'body']);
      assertExit(result, 4);
      assert.match(result.stderr, /hint: .*--auth-form header/);
    });

    it('an unknown --auth-form is a usage error', async () => {
      const result = await ctl(modern, ['--auth-form', 'cookie']);
      assertExit(result, 2);
    });
  });

  describe('credential sources', () => {
    it('--password-stdin trims one trailing newline', async () => {
      const result = await ctl(modern, ['--password-stdin', '--username', ADMIN.username], {
        env: { CTL_PASSWORD: undefined, CTL_USERNAME: undefined },
        stdin: `${ADMIN.password}\n`,
      });
      assertExit(result, 0);
    });

    it('--password-file reads the file', async () => {
      const file = join(dir, 'password');
      await writeFile(file, `${ADMIN.password}\n`, { mode: 0o600 });
      const result = await ctl(modern, ['--password-file', file], { env: { CTL_PASSWORD: undefined } });
      assertExit(result, 0);
      assert.equal(result.stderr, '');
    });

    it('flags win over env: --password-stdin beats CTL_PASSWORD', async () => {
      const result = await ctl(modern, ['--password-stdin'], {
        env: { CTL_PASSWORD: 'wrong-env-password' },
        stdin: ADMIN.password,
      });
      assertExit(result, 0);
    });

    it('--password-stdin with --password-file, no password, no username, no URL: exit 2 before any request', async () => {
      const before = modern.audit.entries.length;
      const cases: [string[], Record<string, string | undefined>, RegExp][] = [
        [['--password-stdin', '--password-file', join(dir, 'password')], {}, /both given/],
        [[], { CTL_PASSWORD: undefined }, /no password for admin@example\.com[\s\S]*--password-stdin/],
        [[], { CTL_USERNAME: undefined }, /no username[\s\S]*CTL_USERNAME/],
        [[], { CTL_API_URL: undefined }, /no management API URL[\s\S]*--api-url[\s\S]*CTL_API_URL/],
        [['--api-url', 'http://127.0.0.1:9443'], {}, /https/],
      ];
      for (const [args, env, pattern] of cases) {
        const result = await ctl(modern, args, { env });
        assertExit(result, 2);
        assert.match(result.stderr, pattern);
      }
      assert.equal(modern.audit.entries.length, before);
    });

    it('has no --password flag (argv is visible to every user)', async () => {
      const result = await ctl(modern, ['--password', ADMIN.password]);
      assertExit(result, 2);
      assert.match(result.stderr, /unknown option '--password'/);
    });
  });

  it('-v logs each call; -vv bodies, redacted', async () => {
    const result = await ctl(legacy, ['-vv']);
    assertExit(result, 0);
    assert.match(result.stderr, /POST \/v1\/users\/authorize 200 \(\d+ ms\)/);
    assert.match(result.stderr, /"password":"\[REDACTED\]"/);
    assert.match(result.stderr, /"access_token":"\[REDACTED\]"/);
    assert.doesNotMatch(result.stderr, new RegExp(result.stdout.trim().replace(/[.-]/g, '\\$&')));
  });

  it('never shows the password in stdout, stderr or any file written (checked last)', async () => {
    // Failure paths with -vv, too: stack traces and error bodies must not leak it either.
    await ctl(modern, ['-vv', '--auth-form', 'body']);
    await ctl(modern, ['-vv'], { env: { CTL_CA_FILE: undefined } });
    await ctl(legacy, ['-vv', '--auth-form', 'header']);
    await ctl(modern, ['-vv', '-o', 'json']);
    assert.ok(outputs.length > 20);
    for (const result of outputs) {
      assert.ok(!result.stdout.includes(ADMIN.password), `password in stdout: ${result.stdout}`);
      assert.ok(!result.stderr.includes(ADMIN.password), `password in stderr: ${result.stderr}`);
      assert.ok(!result.stderr.includes(EXPIRED.password));
    }
    // Every file under the run's cwd and HOME, except the password file this test wrote itself.
    const leaks: string[] = [];
    async function scan(folder: string): Promise<void> {
      for (const entry of await readdir(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) await scan(path);
        else if (path !== join(dir, 'password') && (await stat(path)).isFile()) {
          if ((await readFile(path, 'utf8')).includes(ADMIN.password)) leaks.push(path);
        }
      }
    }
    await scan(dir);
    assert.deepEqual(leaks, []);
  });
});
