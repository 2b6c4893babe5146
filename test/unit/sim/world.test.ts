import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ScenarioError, SimStartError } from '../../../src/sim/world/errors.js';
import {
  admissionWebhookName,
  bundledDatabaseVersions,
  clusterTagRunsRhel9,
  databaseTooOldForRhel9,
  defaultClusterTag,
  upgradesActiveActiveThroughReaadb,
} from '../../../src/sim/world/releases.js';
import {
  isNewerClusterTag,
  isNewerDatabase,
  operatorVersionOfImage,
} from '../../../src/sim/world/versions.js';
import { asCtlError } from '../../../src/commands/demo.js';
import { isCtlError } from '../../../src/errors.js';
import { repoRoot } from '../../helpers/tools.js';

describe("the simulator's own release facts (SIMULATOR.md Independence)", () => {
  test('an operator rolls to the newest image published for it, re-publications included', () => {
    assert.equal(defaultClusterTag('7.8.2-6', 'kubernetes'), '7.8.2-60');
    // Re-published builds of 7.2.4-12 and 7.2.4-15 (redis-facts.md §12).
    assert.equal(defaultClusterTag('7.2.4-12', 'kubernetes'), '7.2.4-130');
    assert.equal(defaultClusterTag('7.2.4-15', 'kubernetes'), '7.2.4-144');
    assert.equal(defaultClusterTag('8.0.18-14', 'kubernetes'), '8.0.18-36.14');
    assert.equal(defaultClusterTag('9.9.9-9', 'kubernetes'), undefined);
  });

  test('OpenShift tags carry the rhel suffix before 7.8.4-9, and the documented 7.4.6-6 image', () => {
    assert.equal(defaultClusterTag('6.2.8-15', 'openshift'), '6.2.8-64.rhel7-openshift');
    assert.equal(defaultClusterTag('7.4.6-2', 'openshift'), '7.4.6-102.rhel8-openshift');
    // 7.4.6-6 as re-published in June 2025 (7-4-6-6-june25.md): 7.4.6-268.rhel8-openshift.
    assert.equal(defaultClusterTag('7.4.6-6', 'openshift'), '7.4.6-268.rhel8-openshift');
    assert.equal(defaultClusterTag('7.8.4-9', 'openshift'), '7.8.4-95');
  });

  test('bundled database versions and the RHEL9 freeze rules', () => {
    assert.deepEqual(bundledDatabaseVersions('7.4.6-22'), ['6.0', '6.2', '7.2']);
    assert.deepEqual(bundledDatabaseVersions('8.0.18-36.14').at(-1), '8.6');
    assert.deepEqual(bundledDatabaseVersions('5.0.0-1'), []);
    assert.equal(clusterTagRunsRhel9('7.8.2-60'), true);
    assert.equal(clusterTagRunsRhel9('7.4.6-102.rhel8-openshift'), false);
    assert.equal(databaseTooOldForRhel9('6.2'), true);
    assert.equal(databaseTooOldForRhel9('7.2.4'), false);
    assert.equal(admissionWebhookName('6.2.18-41'), 'redb-admission');
    assert.equal(admissionWebhookName('6.4.2-4'), 'redis-enterprise-admission');
    assert.equal(upgradesActiveActiveThroughReaadb('8.0.2-2'), true);
    assert.equal(upgradesActiveActiveThroughReaadb('7.22.2-43'), false);
  });

  test('versions compare as numbers', () => {
    assert.equal(isNewerClusterTag('7.22.0-28', '7.8.6-303'), true);
    assert.equal(isNewerClusterTag('8.0.18-36.14', '8.0.18-36'), true);
    assert.equal(isNewerDatabase('8.10', '8.9'), true);
    assert.equal(
      operatorVersionOfImage('registry:5000/redislabs/operator:v8.0.20-23@sha256:ab'),
      '8.0.20-23',
    );
    assert.equal(operatorVersionOfImage('registry:5000/redislabs/operator'), undefined);
  });

  test("the CLI reports the simulator's errors by their exit code, turned into ctl's where it starts it", async () => {
    assert.equal(new ScenarioError('bad').exitCode, 2);
    assert.equal(new SimStartError('port').exitCode, 1);
    // The simulator's own errors are not ctl's until a starter turns them into ctl's.
    assert.equal(isCtlError(new ScenarioError('bad')), false);
    const usage = await asCtlError(new ScenarioError('bad file', { hint: 'fix it' }));
    assert.ok(isCtlError(usage));
    assert.deepEqual([usage.exitCode, usage.message, usage.hint], [2, 'bad file', 'fix it']);
    const start = await asCtlError(new SimStartError('port in use'));
    assert.ok(isCtlError(start));
    assert.equal(start.exitCode, 1);
    const other = new Error('x');
    assert.equal(await asCtlError(other), other);
    assert.equal(isCtlError(Object.assign(new Error('x'), { exitCode: 2, hint: 'h' })), false);
  });

  test('nothing under src/sim imports from the rest of src', () => {
    const simDir = path.join(repoRoot, 'src', 'sim');
    const outside: string[] = [];
    for (const file of readdirSync(simDir, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const full = path.join(simDir, file);
      for (const match of readFileSync(full, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = path.resolve(path.dirname(full), match[1]!);
        if (!target.startsWith(simDir + path.sep)) outside.push(`${file} -> ${match[1]}`);
      }
    }
    assert.deepEqual(outside, []);
  });
});
