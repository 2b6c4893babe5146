/**
 * Files from outside ctl, end to end with the BUILT ctl: a FIFO, a directory, a device or a file
 * past its bound as `--module-file` (a module package, at most 256 MiB), `CTL_CA_FILE` (a CA
 * bundle, at most 4 MiB), `--password-file` (at most 64 KiB) or the `--scenario` of `ctl sim up`
 * and `ctl demo` (at most 8 MiB) is refused at once with exit 2
 * (CLI.md "Exit codes": bad input), naming the flag or variable, what is wrong and what to do;
 * nothing is read from it, and nothing is left behind. The oversized files are sparse
 * (`truncateSync`): they cost no disk.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type CtlResult, runCtl } from '../helpers/run-ctl.js';
import { assertExit } from './upgrade-support.js';

const TARGET = '7.8.2-6';
const MIB = 1024 * 1024;
/** A FIFO that ctl opened would hold it until this kills it: a timeout, not exit 2. */
const TIMEOUT_MS = 30_000;

/** The refusal: exit 2, the name and path, what is wrong, and the hint saying what to do. */
function assertRefused(result: CtlResult, what: string, message: string, hint: RegExp): void {
  assertExit(result, 2, what);
  assert.ok(result.stderr.includes(message), `${what}: expected "${message}" in\n${result.stderr}`);
  assert.match(result.stderr, hint, `${what}: the hint`);
  assert.doesNotMatch(result.stderr, /\n\s+at /, `${what}: a stack trace`);
}

describe('files from outside ctl are regular files within their bound (e2e)', { timeout: 300_000 }, () => {
  let dir: string;
  let fifo: string;
  let folder: string;
  let made: string[];

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-outside-files-'));
    fifo = path.join(dir, 'module.zip.fifo');
    execFileSync('mkfifo', [fifo]);
    folder = path.join(dir, 'modules');
    mkdirSync(folder);
    made = readdirSync(dir).sort();
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const sparse = (name: string, bytes: number): string => {
    const file = path.join(dir, name);
    writeFileSync(file, '');
    truncateSync(file, bytes);
    made = [...made, name].sort();
    return file;
  };
  const runRemediate = (moduleFile: string) =>
    runCtl(['upgrade', 'run', '--to', TARGET, '--yes', '--remediate', '--module-file', moduleFile], {
      timeoutMs: TIMEOUT_MS,
    });
  const moduleHint = /ctl reads --module-file as a regular file: give the path of a file/;

  it('--module-file: a FIFO, a directory and /dev/zero are refused without being opened', async () => {
    assertRefused(
      await runRemediate(fifo),
      'run --module-file <FIFO>',
      `--module-file ${fifo} is a FIFO (named pipe), not a regular file`,
      moduleHint,
    );
    assertRefused(
      await runRemediate(folder),
      'run --module-file <directory>',
      `--module-file ${folder} is a directory, not a regular file`,
      moduleHint,
    );
    assertRefused(
      await runRemediate('/dev/zero'),
      'run --module-file /dev/zero',
      '--module-file /dev/zero is a character device, not a regular file',
      moduleHint,
    );
  });

  it('--module-file of 300 MiB: refused at its 256 MiB bound, before it is read', async () => {
    const large = sparse('rejson.Linux-rhel9-x86_64.2.6.10.zip', 300 * MIB);
    assertRefused(
      await runRemediate(large),
      'run --module-file <300 MiB>',
      `--module-file ${large} is 300 MiB, more than the 256 MiB ctl reads of it; ctl did not read it`,
      /Check that .* is the file you meant/,
    );
    // The same bound on the plan that judges such a run, before any cluster is read.
    assertRefused(
      await runCtl(['upgrade', 'plan', '--to', TARGET, '--remediate', '--module-file', large], {
        timeoutMs: TIMEOUT_MS,
      }),
      'plan --module-file <300 MiB>',
      `--module-file ${large} is 300 MiB, more than the 256 MiB ctl reads of it`,
      /Check that .* is the file you meant/,
    );
  });

  it('CTL_CA_FILE and --password-file: named in the refusal, the variable as the variable', async () => {
    const env = { CTL_API_URL: 'https://127.0.0.1:9', CTL_USERNAME: 'admin@example.com' };
    const ca = sparse('ca.pem', 10 * MIB);
    assertRefused(
      await runCtl(['auth', 'token'], { env: { ...env, CTL_CA_FILE: ca }, timeoutMs: TIMEOUT_MS }),
      'auth token with CTL_CA_FILE=<10 MiB>',
      `CTL_CA_FILE ${ca} is 10 MiB, more than the 4 MiB ctl reads of it; ctl did not read it`,
      /Check that .* is the file you meant/,
    );
    assertRefused(
      await runCtl(['auth', 'token'], { env: { ...env, CTL_CA_FILE: fifo }, timeoutMs: TIMEOUT_MS }),
      'auth token with CTL_CA_FILE=<FIFO>',
      `CTL_CA_FILE ${fifo} is a FIFO (named pipe), not a regular file`,
      /ctl reads CTL_CA_FILE as a regular file/,
    );
    assertRefused(
      await runCtl(['auth', 'token', '--password-file', folder], { env, timeoutMs: TIMEOUT_MS }),
      'auth token --password-file <directory>',
      `--password-file ${folder} is a directory, not a regular file`,
      /ctl reads --password-file as a regular file/,
    );
    const password = sparse('password', MIB);
    assertRefused(
      await runCtl(['auth', 'token', '--password-file', password], { env, timeoutMs: TIMEOUT_MS }),
      'auth token --password-file <1 MiB>',
      `--password-file ${password} is 1 MiB, more than the 64 KiB ctl reads of it`,
      /Check that .* is the file you meant/,
    );
  });

  it('--scenario of ctl sim up and ctl demo: a FIFO, /dev/zero and a file past 8 MiB are refused, nothing started', async () => {
    const scenarioHint = /ctl reads --scenario as a regular file: give the path of a file/;
    const simDir = path.join(dir, 'sim');
    const simUp = (scenario: string) =>
      runCtl(['sim', 'up', '--scenario', scenario, '--dir', simDir, '--fast'], { timeoutMs: TIMEOUT_MS });
    const demo = (scenario: string) =>
      runCtl(['demo', '--scenario', scenario, '--instant'], { timeoutMs: TIMEOUT_MS });
    const large = sparse('captured-scenario.yaml', 9 * MIB);
    const tooLarge = `--scenario ${large} is 9 MiB, more than the 8 MiB ctl reads of it; ctl did not read it`;
    for (const [what, run] of [
      ['sim up', simUp],
      ['demo', demo],
    ] as const) {
      assertRefused(
        await run(fifo),
        `${what} --scenario <FIFO>`,
        `--scenario ${fifo} is a FIFO (named pipe), not a regular file`,
        scenarioHint,
      );
      assertRefused(
        await run('/dev/zero'),
        `${what} --scenario /dev/zero`,
        '--scenario /dev/zero is a character device, not a regular file',
        scenarioHint,
      );
      assertRefused(
        await run(large),
        `${what} --scenario <9 MiB>`,
        tooLarge,
        /Check that .* is the file you meant/,
      );
    }
    assert.deepEqual(readdirSync(dir).sort(), made, 'no --dir made, no simulated cluster started');
  });

  it('ctl left nothing beside the files it was given', () => {
    assert.deepEqual(readdirSync(dir).sort(), made);
  });
});
