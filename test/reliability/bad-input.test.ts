/**
 * Guarantee 5 (docs/reliability.md): bad input never crashes ctl. fast-check properties over
 * every flag that takes a value (run through the built `main`, in-process, so thousands of inputs
 * fit), then a corpus run as child processes of the built bin: corrupt, truncated and foreign
 * state files, broken scenario files, broken kubeconfigs, and hostile management API answers.
 * The figure: inputs tried, with zero uncaught exceptions, zero stack traces, and every exit code
 * one that CLI.md lists, and the one it names for that input.
 *
 * This file holds the properties; the corpus is in bad-input-corpus.test.ts (one file for both
 * outlasted the per-file limit on a busy machine). The figure is printed by each file for its own inputs.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { main } from '../../src/main.js';
import { judge, problems, since, tally } from './bad-input-judge.js';
import { type Bed, figure, pick, startBed, TARGET } from './support.js';

const PROPERTY_RUNS = pick(60, 600);

/** The built main, in-process, with string stdout/stderr and an empty stdin. */
async function inProcess(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const stdin = Object.assign(Readable.from([]), { isTTY: false });
  const code = await main(argv, {
    env: { NO_COLOR: '1', PATH: process.env.PATH, ...env },
    stdin,
    stdout: { write: (chunk: string) => void (stdout += chunk) },
    stderr: { write: (chunk: string) => void (stderr += chunk) },
  });
  return { code, stdout, stderr };
}

/** Anything a user might type, including the awkward: unicode, control characters, huge numbers. */
const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '-1',
    '0',
    '1e3',
    '0x10',
    'NaN',
    'Infinity',
    '9'.repeat(30),
    '../../../etc/passwd',
    '/dev/null',
    '/',
    '~',
    '$(id)',
    '`id`',
    '%s%n',
    '\u0000',
    'a\nb',
    '--yes',
    '-vv',
  ),
);

let uncaughtInProcess = 0;
const onUncaught = (): void => {
  uncaughtInProcess += 1;
};

describe('bad input: properties over every flag (built main, in-process)', () => {
  let bed: Bed;
  let noCluster: NodeJS.ProcessEnv;
  let dir: string;
  before(async () => {
    bed = await startBed('happy-path');
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-rel-input-'));
    // No reachable cluster: commands fail fast after their flags are checked.
    noCluster = { HOME: dir, XDG_STATE_HOME: dir, KUBECONFIG: path.join(dir, 'missing-kubeconfig') };
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
  });
  after(async () => {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    await bed?.close();
    rmSync(dir, { recursive: true, force: true });
    figure(
      `bad inputs tried in-process ${tally.inputs}: uncaught exceptions ${tally.uncaught}, stack traces ${tally.stacks}, undocumented exit codes ${tally.undocumented}, unexpected exit codes ${tally.wrongCode}`,
    );
  });

  test('--ttl: 1..86400 gives a token (exit 0), anything else exit 2 before any request', async () => {
    const from = problems.length;
    const ttl = fc.oneof(
      fc.integer({ min: -100_000, max: 200_000 }).map(String),
      fc.integer({ min: 1, max: 86_400 }).map(String),
      anyText,
    );
    await fc.assert(
      fc.asyncProperty(ttl, async (value) => {
        const valid = /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 86_400;
        const before = bed.cluster.audit.entries.length;
        const result = await inProcess(['auth', 'token', `--ttl=${value}`], { ...bed.env });
        judge(`--ttl ${JSON.stringify(value)}`, result.code, result.stderr, valid ? [0] : [2]);
        if (!valid) assert.equal(bed.cluster.audit.entries.length, before, 'a request was sent');
      }),
      { numRuns: PROPERTY_RUNS },
    );
    assert.deepEqual(since(from), []);
  });

  test('--timeout / --stall-timeout: durations accepted, anything else exit 2 naming the flag', async () => {
    const from = problems.length;
    const duration = fc.oneof(
      fc
        .tuple(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom('ms', 's', 'm', 'h', '', 'd', 'S'))
        .map(([n, u]) => `${n}${u}`),
      anyText,
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('--timeout', '--stall-timeout'), duration, async (flag, value) => {
        const result = await inProcess(
          ['upgrade', 'run', '--to', TARGET, '--yes', `${flag}=${value}`],
          noCluster,
        );
        const valid = /^(\d+(ms|s|m|h))+$/.test(value.trim()) && /[1-9]/.test(value);
        judge(`${flag} ${JSON.stringify(value)}`, result.code, result.stderr, valid ? [1, 2] : [2]);
        if (!valid) assert.match(result.stderr, new RegExp(flag));
      }),
      { numRuns: PROPERTY_RUNS },
    );
    assert.deepEqual(since(from), []);
  });

  test('versions, names and paths in every flag that takes one: documented exit codes only', async () => {
    const from = problems.length;
    const flags = [
      ['upgrade', 'plan', '--to'],
      ['upgrade', 'plan', '--to', TARGET, '--cluster-version'],
      ['upgrade', 'plan', '--to', TARGET, '--db-version'],
      ['upgrade', 'plan', '--to', TARGET, '--method'],
      ['upgrade', 'plan', '--to', TARGET, '--databases'],
      ['upgrade', 'plan', '--to', TARGET, '--ignore-check'],
      ['upgrade', 'plan', '--to', TARGET, '--bundle'],
      ['upgrade', 'plan', '--to', TARGET, '--api-url'],
      ['upgrade', 'plan', '--to', TARGET, '--ca-file'],
      ['upgrade', 'plan', '--to', TARGET, '--password-file'],
      ['upgrade', 'plan', '--to', TARGET, '--auth-form'],
      ['upgrade', 'plan', '--to', TARGET, '-n'],
      ['upgrade', 'plan', '--to', TARGET, '--cluster'],
      ['upgrade', 'plan', '--to', TARGET, '--context'],
      ['upgrade', 'plan', '--to', TARGET, '--kubeconfig'],
      ['upgrade', 'plan', '--to', TARGET, '-o'],
      ['upgrade', 'run', '--to', TARGET, '--yes', '--only'],
      ['upgrade', 'run', '--to', TARGET, '--yes', '--skip'],
      ['upgrade', 'run', '--to', TARGET, '--yes', '--max-parallel'],
      ['upgrade', 'run', '--to', TARGET, '--yes', '--plan'],
      ['upgrade', 'run', '--to', TARGET, '--yes', '--module-file'],
      ['upgrade', 'run', '--to', TARGET, '--yes', '--state'],
      ['upgrade', 'status', '--state'],
      ['upgrade', 'status', '--cluster'],
      ['upgrade', 'unlock', '--lock-id'],
      ['auth', 'token', '--username'],
      ['auth', 'token', '--password-file'],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...flags), anyText, async (prefix, value) => {
        const result = await inProcess([...prefix, value], noCluster);
        // A value spelled like -vv still asks main for stack traces (it scans argv): judge the exit code only.
        const stderr = /^-v{2,}$/.test(value) ? '' : result.stderr;
        judge(`${prefix.join(' ')} ${JSON.stringify(value)}`, result.code, stderr);
      }),
      { numRuns: PROPERTY_RUNS * 3 },
    );
    assert.deepEqual(since(from), []);
  });

  test('random argument lists: documented exit codes only', async () => {
    const from = problems.length;
    const token = fc.oneof(
      fc.constantFrom(
        'upgrade',
        'run',
        'plan',
        'status',
        'steps',
        'unlock',
        'auth',
        'token',
        'help',
        'completion',
        'bash',
        '--to',
        TARGET,
        '--yes',
        '--dry-run',
        '-o',
        'json',
        '-v',
        '-vv',
        '-q',
        '--no-color',
        '--ttl',
        '--state',
        '--only',
        'cluster',
        '--',
        '-',
        '--unknown',
      ),
      anyText,
    );
    await fc.assert(
      fc.asyncProperty(fc.array(token, { maxLength: 8 }), async (argv) => {
        // Never start a simulator or a demo from the fuzzer.
        if (argv.includes('sim') || argv.includes('demo')) return;
        const result = await inProcess(argv, noCluster);
        // -vv asks for stack traces: judge those runs on the exit code only.
        judge(
          `argv ${JSON.stringify(argv)}`,
          result.code,
          argv.some((a) => /^-v{2,}$|^--verbose$/.test(a)) ? '' : result.stderr,
        );
      }),
      { numRuns: PROPERTY_RUNS * 3 },
    );
    assert.deepEqual(since(from), []);
    assert.equal(uncaughtInProcess, 0, 'uncaught exceptions or unhandled rejections in-process');
  });
});
