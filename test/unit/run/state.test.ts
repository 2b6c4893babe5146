import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { ExitCode, OperationError } from '../../../src/errors.js';
import { earlierPathSegment } from '../../../src/io/path-segment.js';
import {
  defaultStatePath,
  firstUnfinishedStep,
  newState,
  recordedStatePaths,
  StateFile,
} from '../../../src/run/state.js';
import { FileStateStore, withRedactedSaves } from '../../../src/run/state-store.js';
import { tempDir } from '../../helpers/temp.js';

const identity = { context: 'kind-dev', namespace: 'redis', cluster: 'rec' };
const steps = ['preflight', 'operator', 'cluster'];

async function tempPath(): Promise<string> {
  return join(tempDir('ctl-state-'), 'nested', 'rec.json');
}

describe('StateFile', () => {
  it('round-trips a state and bumps the serial on every write', async () => {
    const file = new StateFile(await tempPath());
    assert.equal(await file.load(), undefined);
    const first = await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
    const second = await file.save(first);
    assert.equal(first.serial, 1);
    assert.equal(second.serial, 2);
    const loaded = await file.load();
    assert.deepEqual(loaded, second);
  });

  it('writes mode 0600 whatever the umask', async () => {
    const previous = process.umask(0);
    try {
      const file = new StateFile(await tempPath());
      await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
      assert.equal((await stat(file.path)).mode & 0o777, 0o600);
    } finally {
      process.umask(previous);
    }
  });

  it('keeps a backup of a corrupt file under the lock and says what to do', async () => {
    const file = new StateFile(await tempPath());
    await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
    await writeFile(file.path, '{"apiVersion": "ctl/v1", "kind": "Upgr');
    await assert.rejects(file.load({ keepCorruptCopy: true }), (error: unknown) => {
      assert.ok(error instanceof OperationError);
      assert.equal(error.exitCode, ExitCode.failed);
      assert.match(error.message, /not a valid ctl state file: it is not JSON/);
      assert.match(error.hint ?? '', /copy was kept at .*corrupt-/);
      return true;
    });
    const names = await readdir(join(file.path, '..'));
    assert.ok(names.some((n) => n.startsWith('rec.json.corrupt-')));
  });

  it("the backup of a corrupt file is the bytes read, with the file's mode, and no temp file left", async () => {
    const file = new StateFile(await tempPath());
    await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
    // Not UTF-8: the copy is the bytes judged, not their text.
    const corrupt = Buffer.from([0x7b, 0xff, 0xfe, 0x22, 0x0a]);
    await writeFile(file.path, corrupt);
    await chmod(file.path, 0o640);
    await assert.rejects(file.load({ keepCorruptCopy: true }), /not a valid ctl state file/);
    const folder = join(file.path, '..');
    const names = await readdir(folder);
    const copies = names.filter((n) => n.startsWith('rec.json.corrupt-'));
    assert.equal(copies.length, 1, names.join(' '));
    const copy = join(folder, copies[0] ?? '');
    assert.deepEqual(await readFile(copy), corrupt);
    assert.equal((await stat(copy)).mode & 0o777, 0o640);
    assert.deepEqual(
      names.filter((n) => n.endsWith('.tmp')),
      [],
    );
  });

  it('the backup is the bytes that were read even when the file is replaced between the read and the copy', async (t) => {
    const file = new StateFile(await tempPath());
    await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
    const corrupt = Buffer.from('{"apiVersion": "ctl/v1", "kind": "Upgr');
    await writeFile(file.path, corrupt);
    const meanwhile = Buffer.from('{"written": "by someone else after ctl read the file"}\n');
    // load() takes the copy's name from Date.now() after the read and before the copy: another
    // writer replaces the file (a rename over it, as an atomic save does) at that moment. Were
    // the copy made from the path again (copyFile, before 3f8bd30), it would hold these bytes.
    let swapped = false;
    const now = 1_700_000_000_000;
    t.mock.method(Date, 'now', () => {
      if (!swapped) {
        swapped = true;
        writeFileSync(`${file.path}.other`, meanwhile);
        renameSync(`${file.path}.other`, file.path);
      }
      return now;
    });
    await assert.rejects(file.load({ keepCorruptCopy: true }), (error: unknown) => {
      assert.ok(error instanceof OperationError);
      assert.match(error.message, /not a valid ctl state file: it is not JSON/);
      assert.match(error.hint ?? '', /^A copy was kept at .*corrupt-1700000000000\./);
      return true;
    });
    assert.ok(swapped, 'the file was replaced during load()');
    assert.deepEqual(await readFile(`${file.path}.corrupt-${now}`), corrupt);
    assert.deepEqual(
      await readFile(file.path),
      meanwhile,
      'the file itself is left as the other writer left it',
    );
  });

  it('a copy that cannot be kept is not said to be kept: the hint says so and what to do', async (t) => {
    const file = new StateFile(await tempPath());
    await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
    await writeFile(file.path, '{"apiVersion": "ctl/v1", "kind": "Upgr');
    // The copy's name already taken (it is never written over): the copy fails. By name, since
    // the tests run as root, whom no folder's mode stops.
    const now = 1_700_000_000_000;
    t.mock.method(Date, 'now', () => now);
    const taken = `${file.path}.corrupt-${now}`;
    await writeFile(taken, 'someone else’s');
    await assert.rejects(file.load({ keepCorruptCopy: true }), (error: unknown) => {
      assert.ok(error instanceof OperationError);
      assert.match(error.message, /not a valid ctl state file: it is not JSON/);
      assert.doesNotMatch(error.hint ?? '', /copy was kept/);
      assert.match(
        error.hint ?? '',
        /^No copy could be kept \(.*corrupt-1700000000000: .*\)\. Copy it aside yourself/,
      );
      return true;
    });
    assert.equal(await readFile(taken, 'utf8'), 'someone else’s', 'the file of that name untouched');
  });

  it('rejects a foreign JSON document naming the field', async () => {
    const file = new StateFile(await tempPath());
    await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
    await writeFile(file.path, JSON.stringify({ apiVersion: 'ctl/v1', kind: 'Something' }));
    await assert.rejects(file.load(), /kind: /);
  });

  it('a FIFO where the state goes (the default path has no flag check): exit 1 at once, not a wait', async () => {
    const path = await tempPath();
    await mkdir(dirname(path), { recursive: true });
    execFileSync('mkfifo', [path]);
    await assert.rejects(new StateFile(path).load(), (error: unknown) => {
      assert.ok(error instanceof OperationError);
      assert.equal(error.exitCode, ExitCode.failed);
      assert.equal(
        error.message,
        `the state file ${path} is a FIFO (named pipe), not a regular file; ctl did not read it`,
      );
      assert.match(error.hint ?? '', /move it aside/);
      return true;
    });
  });

  it('treats an empty file as corrupt, not as a crash', async () => {
    const file = new StateFile(await tempPath());
    await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
    await writeFile(file.path, '');
    await assert.rejects(file.load(), /it is empty/);
  });

  it('reading writes nothing: no copy of a corrupt file, no temp file removed', async () => {
    const file = new StateFile(await tempPath());
    await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
    const dead = `${file.path}.00000000-0000-0000-0000-000000000000.999999999@${hostname()}.tmp`;
    await writeFile(dead, '{"half":');
    await writeFile(file.path, 'not json');
    const before = (await readdir(join(file.path, '..'))).sort();
    await assert.rejects(file.load(), (error: unknown) => {
      assert.ok(error instanceof OperationError);
      assert.match(error.hint ?? '', /move it aside/);
      return true;
    });
    assert.deepEqual((await readdir(join(file.path, '..'))).sort(), before);
  });

  it('refusesContent: what load() refuses for what the file holds, read-only; a missing or unreadable file is not judged', async () => {
    const file = new StateFile(await tempPath());
    assert.equal(await file.refusesContent(), false, 'missing: a first run');
    const valid = await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
    assert.equal(await file.refusesContent(), false, 'a valid state, whoever it belongs to');
    await writeFile(file.path, JSON.stringify({ ...valid, lineage: { ...valid.lineage, cluster: 'other' } }));
    assert.equal(
      await file.refusesContent(),
      false,
      "another cluster's state is judged once the cluster is read",
    );
    for (const content of [
      'not json',
      '',
      JSON.stringify({ ...valid, kind: 'UpgradePlan' }),
      JSON.stringify({ ...valid, apiVersion: 'ctl/v9' }),
      JSON.stringify({ ...valid, serial: 'seven' }),
    ]) {
      await writeFile(file.path, content);
      assert.equal(await file.refusesContent(), true, content.slice(0, 40));
      await assert.rejects(file.load(), /not a valid ctl state file/);
    }
    const before = (await readdir(join(file.path, '..'))).sort();
    assert.deepEqual(before, ['rec.json'], 'it keeps no copy and writes nothing');
    // A folder where the file should be: no regular file, refused whatever the cluster (load() too).
    const folder = new StateFile(join(file.path, '..'));
    assert.equal(await folder.refusesContent(), true);
    await assert.rejects(folder.load(), /is a directory, not a regular file; ctl did not read it/);
  });

  it('under the lock removes only the temp files of writers that are gone', async () => {
    const file = new StateFile(await tempPath());
    await file.save(newState(identity, { operator: '7.8.2-6' }, steps));
    const dead = `${file.path}.00000000-0000-0000-0000-000000000000.999999999@${hostname()}.tmp`;
    const live = `${file.path}.00000000-0000-0000-0000-000000000001.${process.ppid}@${hostname()}.tmp`;
    const users = [`${file.path}.1`, `${file.path}.123456789`, `${file.path}.2026`];
    for (const name of [dead, live, ...users]) await writeFile(name, '{"half":');
    assert.deepEqual(await file.removeAbandonedTemps(), [dead.slice(dead.lastIndexOf('/') + 1)]);
    await assert.rejects(readFile(dead));
    for (const name of [live, ...users]) await readFile(name);
  });

  it('never stores anything but ids, versions and messages', async () => {
    const file = new StateFile(await tempPath());
    const state = newState(identity, { operator: '7.8.2-6' }, steps);
    const text = JSON.stringify(await file.save(state));
    assert.doesNotMatch(text, /password|token/i);
  });
});

describe('state helpers', () => {
  it('resumes at the first step that is neither done nor skipped', () => {
    const state = newState(identity, { operator: '7.8.2-6' }, steps);
    assert.equal(firstUnfinishedStep(state, steps), 'preflight');
    state.steps.preflight = { status: 'done' };
    state.steps.operator = { status: 'skipped', skipReason: 'already at target' };
    assert.equal(firstUnfinishedStep(state, steps), 'cluster');
    state.steps.cluster = { status: 'done' };
    assert.equal(firstUnfinishedStep(state, steps), undefined);
  });

  it('puts the default path under XDG_STATE_HOME with path-safe names', () => {
    const path = defaultStatePath(
      { context: 'arn:aws:eks:eu-west-1:1:cluster/prod', namespace: 'redis', cluster: 'rec' },
      { XDG_STATE_HOME: '/s' },
    );
    assert.equal(path, '/s/ctl/arn_aws_eks_eu-west-1_1_cluster_prod/redis/rec.json');
    assert.equal(defaultStatePath(identity, { HOME: '/h' }), '/h/.local/state/ctl/kind-dev/redis/rec.json');
  });

  it('a context name longer than a file system takes is cut with a digest: the state file can be written', async () => {
    // 300 characters: mkdir failed with ENAMETOOLONG, so such a context had no default state.
    const long = `arn:aws:eks:eu-west-1:1:cluster/${'x'.repeat(268)}`;
    const other = `${long.slice(0, -1)}y`;
    const base = tempDir('ctl-state-long-');
    const path = defaultStatePath({ ...identity, context: long }, { XDG_STATE_HOME: base });
    const segment = path.split('/').at(-3) ?? '';
    assert.equal(segment.length, 200);
    assert.match(segment, /^arn_aws_eks_eu-west-1_1_cluster_x+-[0-9a-f]{16}$/);
    assert.notEqual(defaultStatePath({ ...identity, context: other }, { XDG_STATE_HOME: base }), path);
    const saved = await new StateFile(path).save(
      newState({ ...identity, context: long }, { operator: '7.8.2-6' }, steps),
    );
    assert.equal((await new StateFile(path).load())?.serial, saved.serial);
    // A name of 200 characters or fewer stays as it was.
    const exact = 'c'.repeat(200);
    assert.equal(
      defaultStatePath({ ...identity, context: exact }, { XDG_STATE_HOME: '/s' }),
      `/s/ctl/${exact}/redis/rec.json`,
    );
  });

  it('a run recorded before long context names were cut (8617bc7) is found in its folder, and carried on there', async () => {
    // 230 characters: ctl before 8617bc7 kept it whole, a folder name a file system takes.
    const context = `arn:aws:eks:eu-west-1:123456789012:cluster/${'p'.repeat(187)}`;
    const long = { ...identity, context };
    const base = tempDir('ctl-state-earlier-');
    const env = { XDG_STATE_HOME: base };
    const today = defaultStatePath(long, env);
    const earlier = join(base, 'ctl', context.replace(/[^A-Za-z0-9._-]/g, '_'), 'redis', 'rec.json');
    assert.notEqual(dirname(dirname(today)), dirname(dirname(earlier)));
    const before = await new StateFile(earlier).save(newState(long, { operator: '7.8.2-6' }, steps));
    // Found, and a save goes to the same file (the run carries on in it): nothing made beside.
    assert.equal(defaultStatePath(long, env), earlier);
    const next = await new StateFile(defaultStatePath(long, env)).save(before);
    assert.equal((await new StateFile(earlier).load())?.serial, next.serial);
    assert.deepEqual(await readdir(join(base, 'ctl')), [basename(dirname(dirname(earlier)))]);
    assert.deepEqual(await recordedStatePaths(long, env), [earlier]);
    // Another cluster of the context in today's folder: each file where it is.
    const other = { ...long, cluster: 'other' };
    const otherPath = defaultStatePath(other, env);
    assert.equal(dirname(otherPath), dirname(today));
    await new StateFile(otherPath).save(newState(other, { operator: '7.8.2-6' }, steps));
    assert.deepEqual(await recordedStatePaths(long, env), [otherPath, earlier]);
    // Once today's folder holds the cluster's file, today's is the one.
    await new StateFile(today).save(newState(long, { operator: '7.8.2-6' }, steps));
    assert.equal(defaultStatePath(long, env), today);
    assert.deepEqual(await recordedStatePaths(long, env), [otherPath, today]);
  });

  it('no context name makes a state path outside the state root, today or in the earlier folder', async () => {
    const base = tempDir('ctl-state-root-');
    const root = join(base, 'ctl');
    for (const context of [
      '..',
      '.',
      '',
      '../'.repeat(70),
      '/..'.repeat(80),
      `../${'.'.repeat(220)}`,
      '\\..\\'.repeat(50),
    ]) {
      const long = { ...identity, context };
      const earlier = earlierPathSegment(context);
      // The earlier folder made, so that the look-up answers with it where there is one.
      if (earlier !== undefined) {
        await mkdir(join(root, earlier, 'redis'), { recursive: true });
        await writeFile(join(root, earlier, 'redis', 'rec.json'), '{}');
      }
      const path = defaultStatePath(long, { XDG_STATE_HOME: base });
      const parts = relative(root, path).split(sep);
      assert.equal(parts.length, 3, `${JSON.stringify(context)} -> ${path}`);
      assert.ok(
        parts.every((part) => part !== '..' && part !== '.' && part !== ''),
        path,
      );
      if (earlier !== undefined) assert.equal(parts[0], earlier, 'the earlier folder is found');
    }
  });
});

describe('withRedactedSaves', () => {
  it('saves the resume and next commands redacted (a --bundle URL may carry a token)', async () => {
    const path = await tempPath();
    const store = withRedactedSaves(new FileStateStore(path), (text) =>
      text.replaceAll('s3cr3t', '[REDACTED]'),
    );
    const bundle = 'https://u:s3cr3t@example.com/{version}.yaml';
    await store.save({
      ...newState(identity, { operator: '7.8.2-6' }, steps),
      resumeCommand: `ctl upgrade run --to 7.8.2-6 --bundle ${bundle} --yes`,
      nextCommand: `ctl upgrade run --to 7.8.2-6 --bundle ${bundle}`,
    });
    const text = await readFile(path, 'utf8');
    assert.doesNotMatch(text, /s3cr3t/);
    const saved = await new StateFile(path).load();
    assert.equal(
      saved?.nextCommand,
      'ctl upgrade run --to 7.8.2-6 --bundle https://u:[REDACTED]@example.com/{version}.yaml',
    );
    assert.match(saved?.resumeCommand ?? '', /u:\[REDACTED\]@/);
  });
});
