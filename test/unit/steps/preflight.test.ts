import assert from 'node:assert/strict';
import fs, { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { ExitCode, PreflightError } from '../../../src/errors.js';
import { createPreflightStep } from '../../../src/steps/preflight.js';
import { harness, stderrLines } from './fakes.js';
import { tempDir } from '../../helpers/temp.js';

function recObject() {
  return {
    apiVersion: 'app.redislabs.com/v1',
    kind: 'RedisEnterpriseCluster',
    metadata: { name: 'rec', namespace: 'redis', uid: 'u1', managedFields: [{ manager: 'kubectl' }] },
    spec: { nodes: 3, redisEnterpriseImageSpec: { versionTag: '7.4.6-22' } },
    status: { state: 'Running' },
  };
}

describe('preflight step', () => {
  it('fails with exit 3 listing every failing check with its fix, and writes nothing', async () => {
    const dir = tempDir('ctl-preflight-');
    const h = harness({
      snapshot: (s) => {
        s.cluster!.license = { state: 'Expired' };
        s.operator!.version = '7.2.4-2';
        s.operator!.image = 'redislabs/operator:7.2.4-2';
      },
    });
    h.cluster.put(recObject());
    const failing = h.deps.plan.checks.filter((c) => c.status === 'fail');
    assert.ok(failing.length >= 2, 'the fixture fails at least two checks');
    await assert.rejects(h.run(createPreflightStep({ backupDir: dir })), (error: Error) => {
      assert.ok(error instanceof PreflightError);
      assert.equal(error.exitCode, ExitCode.preflight);
      for (const check of failing) {
        assert.ok(error.message.includes(`${check.id}: ${check.message}`), `names ${check.id}`);
        if (check.fix) assert.ok(error.message.includes(`fix: ${check.fix}`), `gives the fix of ${check.id}`);
      }
      assert.match(error.message, /nothing was changed/);
      return true;
    });
    assert.deepEqual(readdirSync(dir), []);
  });

  it('reports warnings, saves a restorable backup (0600) and never overwrites one', async () => {
    const dir = tempDir('ctl-preflight-');
    const h = harness({
      target: { ignoreCheck: ['license-valid'] },
      snapshot: (s) => (s.cluster!.license = { state: 'Expired' }),
    });
    h.cluster.put(recObject());
    const result = await h.run(createPreflightStep({ backupDir: dir }));
    const warned = h.log.filter((e) => e.type === 'warn');
    assert.ok(warned.some((e) => e.text.startsWith('license-valid: ')));
    assert.ok((result.outcome?.warnings as string[]).includes('license-valid'));
    assert.equal((result.outcome?.checks as { fail: number }).fail, 0);

    const backup = join(dir, 'rec-backup.yaml');
    assert.equal(result.outcome?.backup, backup);
    assert.equal(statSync(backup).mode & 0o777, 0o600);
    const saved = parse(readFileSync(backup, 'utf8'));
    assert.deepEqual(saved.metadata, { name: 'rec', namespace: 'redis' });
    assert.equal(saved.status, undefined);
    assert.deepEqual(saved.spec, recObject().spec);

    const again = await h.run(createPreflightStep({ backupDir: dir }));
    assert.equal(again.outcome?.backup, join(dir, 'rec-backup-20250102T030405Z.yaml'));
    assert.equal(readdirSync(dir).length, 2);
  });

  it('the backup reads back the same in YAML 1.1, as kubectl apply reads it (a namespace "y" stays a string)', async () => {
    const dir = tempDir('ctl-preflight-');
    const h = harness({ snapshot: (s) => (s.cluster!.namespace = 'y') });
    const rec = recObject();
    h.cluster.put({
      ...rec,
      metadata: { ...rec.metadata, namespace: 'y' },
      spec: { ...rec.spec, extraLabels: { tier: 'no', audit: 'on' } },
    });
    const result = await h.run(createPreflightStep({ backupDir: dir }));
    // kubectl (sigs.k8s.io/yaml, go-yaml v2) reads y, no and on as booleans unless quoted.
    const saved = parse(readFileSync(result.outcome?.backup as string, 'utf8'), { version: '1.1' });
    assert.deepEqual(saved.metadata, { name: 'rec', namespace: 'y' });
    assert.deepEqual(saved.spec.extraLabels, { tier: 'no', audit: 'on' });
  });

  it('dry-run says where the backup would go and writes no file', async () => {
    const dir = tempDir('ctl-preflight-');
    const h = harness({});
    h.cluster.put(recObject());
    await h.run(createPreflightStep({ backupDir: dir }), { dryRun: true });
    assert.deepEqual(stderrLines(h.test), [`would save rec/rec -n redis to ${join(dir, 'rec-backup.yaml')}`]);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('a backup torn by a full disk never appears under its name, and leaves no temp file', async () => {
    const dir = tempDir('ctl-preflight-');
    const h = harness({});
    h.cluster.put(recObject());
    // The disk fills half way through the write (ENOSPC), as in issue 28.
    const write = fs.write;
    (fs as { write: unknown }).write = (fd: number, data: string, callback: (e: Error | null) => void) => {
      fs.writeSync(fd, data.slice(0, Math.floor(data.length / 2)));
      callback(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    };
    let result;
    try {
      result = await h.run(createPreflightStep({ backupDir: dir }));
    } finally {
      (fs as { write: unknown }).write = write;
    }
    assert.equal(result.outcome?.backup, undefined);
    assert.ok(
      h.log.some((e) => e.type === 'warn' && /could not save the cluster resource.*ENOSPC/.test(e.text)),
    );
    assert.deepEqual(readdirSync(dir), []);
    // With room again, the next run saves it whole under the canonical name.
    const again = await h.run(createPreflightStep({ backupDir: dir }));
    assert.equal(again.outcome?.backup, join(dir, 'rec-backup.yaml'));
    assert.deepEqual(readdirSync(dir), ['rec-backup.yaml']);
    assert.deepEqual(parse(readFileSync(join(dir, 'rec-backup.yaml'), 'utf8')).spec, recObject().spec);
  });
});
