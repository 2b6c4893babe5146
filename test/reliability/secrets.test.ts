/**
 * Guarantee 6 (docs/reliability.md): secrets stay secret. Every command runs with -vv (bodies,
 * stack traces) against a cluster whose admin password is a canary; every JWT the simulator
 * issues is a canary too. stdout, stderr, the state and lock files, the backup, the simulator's
 * audit and events logs, and the argv of every child process (read from /proc while ctl runs,
 * and logged by the helm wrapper) are searched: zero hits. Files ctl writes are 0600 whatever
 * the umask. (test/e2e/auth.test.ts covers `ctl auth token` alone.)
 */

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { lockPathFor } from '../../src/run/lock.js';
import {
  type Bed,
  type CtlProcess,
  figure,
  fixturePath,
  type HelmWrapper,
  installHelmWrapper,
  spawnOnBed,
  startBed,
  TARGET,
  UPGRADE,
} from './support.js';

const PASSWORD = `CANARY-P@ss-${randomBytes(6).toString('hex')} "quoted" $(id)`;

/** Every descendant of `pid` now, with its argv (from /proc). */
function descendants(pid: number): { pid: number; argv: string }[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Gone already.
    }
  }
  const found: { pid: number; argv: string }[] = [];
  const wanted = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, parent] of parents) {
      if (wanted.has(parent) && !wanted.has(child)) {
        wanted.add(child);
        grew = true;
        try {
          found.push({
            pid: child,
            argv: readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' '),
          });
        } catch {
          // Gone already.
        }
      }
    }
  }
  return found;
}

/** Samples the argv of ctl's children every 20 ms until it exits. */
async function watchChildren(run: CtlProcess): Promise<string[]> {
  const seen = new Set<string>();
  let done = false;
  void run.result.then(() => {
    done = true;
  });
  while (!done) {
    for (const child of descendants(run.pid)) seen.add(child.argv);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return [...seen];
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile());
}

describe('secrets: a canary password and canary tokens never leak', () => {
  let bed: Bed;
  let helm: HelmWrapper;
  const tokens: string[] = [];
  const haystacks: { where: string; text: string }[] = [];
  const childArgv: string[] = [];
  let commands = 0;

  before(async () => {
    bed = await startBed('helm-installed', {
      timing: { operatorStart: 0.3, podRestart: 0.3, databaseUpgrade: 0.2 },
      edit: (s) => ({
        ...s,
        cluster: {
          ...s.cluster,
          users: [
            { username: 'admin@example.com', password: PASSWORD, role: 'admin', passwordExpired: false },
          ],
        },
      }),
    });
    // Every token the simulator issues is a canary to look for.
    const model = bed.cluster.rest.model;
    const issue = model.issueToken.bind(model);
    model.issueToken = (user, ttl) => {
      const token = issue(user, ttl);
      tokens.push(token);
      return token;
    };
    helm = installHelmWrapper(bed, { holdMs: 300 });
    assert.equal(bed.env.CTL_PASSWORD, PASSWORD);
  });
  after(async () => {
    await bed?.close();
  });

  async function run(
    name: string,
    args: string[],
    options: { env?: Record<string, string | undefined>; stdin?: string; tokenOnStdout?: boolean } = {},
  ): Promise<number | null> {
    commands += 1;
    const child = spawnOnBed(bed, [...args, '-vv'], {
      env: { ...helm.env, ...options.env },
      stdin: options.stdin,
    });
    childArgv.push(...(await watchChildren(child)));
    const result = await child.result;
    // `ctl auth token` prints the token on stdout by design: only the password may not appear there.
    haystacks.push({
      where: `${name}: stdout`,
      text: options.tokenOnStdout ? result.stdout.replaceAll(/\S+\.\S+\.\S+/g, '<token>') : result.stdout,
    });
    haystacks.push({ where: `${name}: stderr`, text: result.stderr });
    return result.code;
  }

  test('every command with -vv: no canary in any output, file or child argv', async () => {
    const passwordFile = path.join(bed.dir, 'password');
    writeFileSync(passwordFile, PASSWORD, { mode: 0o600 });
    const noEnvPassword = { CTL_PASSWORD: undefined };
    assert.equal(await run('auth token', ['auth', 'token'], { tokenOnStdout: true }), 0);
    assert.equal(
      await run('auth token -o json', ['auth', 'token', '-o', 'json', '--ttl', '60'], {
        tokenOnStdout: true,
      }),
      0,
    );
    assert.equal(
      await run('auth token --password-stdin', ['auth', 'token', '--password-stdin'], {
        env: noEnvPassword,
        stdin: `${PASSWORD}\n`,
        tokenOnStdout: true,
      }),
      0,
    );
    assert.equal(
      await run('auth token --password-file', ['auth', 'token', '--password-file', passwordFile], {
        env: noEnvPassword,
        tokenOnStdout: true,
      }),
      0,
    );
    assert.equal(
      await run('auth token, wrong password', ['auth', 'token'], {
        env: { CTL_PASSWORD: `${PASSWORD}-wrong` },
      }),
      4,
    );
    assert.equal(
      await run('upgrade plan', ['upgrade', 'plan', '--to', TARGET, '-o', 'json', '--helm-bin', helm.bin]),
      0,
    );
    assert.equal(await run('upgrade run --dry-run', [...UPGRADE, '--dry-run', '--helm-bin', helm.bin]), 0);
    assert.equal(
      await run('upgrade run, wrong password', [...UPGRADE, '--helm-bin', helm.bin], {
        env: { CTL_PASSWORD: 'wrong' },
      }),
      4,
    );
    assert.equal(await run('upgrade run', [...UPGRADE, '--helm-bin', helm.bin]), 0);
    assert.equal(await run('upgrade run again', [...UPGRADE, '--helm-bin', helm.bin, '-o', 'json']), 0);
    assert.equal(await run('upgrade status', ['upgrade', 'status']), 0);
    assert.equal(await run('upgrade status json', ['upgrade', 'status', '-o', 'json']), 0);
    assert.equal(await run('upgrade steps', ['upgrade', 'steps']), 0);
    await run('upgrade unlock', ['upgrade', 'unlock']);

    for (const file of [
      ...filesUnder(bed.stateDir),
      ...filesUnder(bed.dir).filter((f) => /rec-backup|report/.test(f)),
    ]) {
      haystacks.push({ where: file, text: readFileSync(file, 'utf8') });
    }
    for (const log of ['audit.jsonl', 'events.jsonl']) {
      haystacks.push({ where: log, text: readFileSync(path.join(bed.cluster.dir, log), 'utf8') });
    }
    for (const event of helm.events())
      haystacks.push({ where: 'helm argv (wrapper log)', text: JSON.stringify(event.argv ?? []) });
    haystacks.push({ where: 'child argv from /proc', text: childArgv.join('\n') });

    const canaries = [PASSWORD, ...new Set(tokens)];
    // The password's most distinctive part alone, in case something trims or re-quotes it.
    canaries.push(PASSWORD.split(' ')[0] ?? PASSWORD);
    const hits: string[] = [];
    for (const { where, text } of haystacks) {
      for (const canary of canaries)
        if (text.includes(canary))
          hits.push(`${where} holds ${canary === PASSWORD ? 'the password' : 'a token'}`);
    }
    assert.ok(tokens.length >= 5, `only ${tokens.length} tokens issued`);
    assert.ok(
      helm.events().some((e) => e.argv?.includes('upgrade')),
      'helm upgrade ran',
    );
    figure(
      `secrets: ${commands} commands with -vv, ${tokens.length} canary tokens + the canary password, ${haystacks.length} outputs/files searched, ${childArgv.length} child argv seen in /proc, hits ${hits.length}`,
    );
    assert.deepEqual(hits, []);
  });

  test('the state, lock and backup files are 0600 under umask 000 and 022', async () => {
    for (const umask of ['000', '022']) {
      const fresh = await startBed('happy-path');
      try {
        const child = spawnOnBed(fresh, UPGRADE, {
          preload: fixturePath('umask-preload.js'),
          env: { CTL_TEST_UMASK: umask },
        });
        let lockMode: number | undefined;
        const lock = lockPathFor(fresh.statePath);
        void (async () => {
          while (child.child.exitCode === null && lockMode === undefined) {
            try {
              lockMode = statSync(lock).mode & 0o777;
            } catch {
              await new Promise((resolve) => setTimeout(resolve, 5));
            }
          }
        })();
        const result = await child.result;
        assert.equal(result.code, 0, result.stderr);
        assert.equal(
          (statSync(fresh.statePath).mode & 0o777).toString(8),
          '600',
          `state file, umask ${umask}`,
        );
        assert.equal(
          (statSync(path.dirname(fresh.statePath)).mode & 0o777).toString(8),
          '700',
          `state folder, umask ${umask}`,
        );
        if (lockMode !== undefined) assert.equal(lockMode.toString(8), '600', `lock file, umask ${umask}`);
        for (const backup of filesUnder(fresh.dir).filter((f) => /rec-backup/.test(f))) {
          assert.equal((statSync(backup).mode & 0o777).toString(8), '600', `${backup}, umask ${umask}`);
        }
      } finally {
        await fresh.close();
      }
    }
    figure('file modes: state, lock and backup 0600, state folder 0700, under umask 000 and 022');
  });
});
