import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareVersions, RestModel } from '../../../../src/sim/rest/model.js';

function model(now: { t: number }, serverVersion = '7.8.2-6') {
  return new RestModel({
    serverVersion,
    users: [{ username: 'a@example.com', password: 'secret-pass' }],
    bdbs: [{ name: 'db1', version: '7.2' }],
    actionDelayMs: 1000,
    now: () => now.t,
  });
}

describe('RestModel', () => {
  it('decides the authorize form from the server version', () => {
    const now = { t: 0 };
    assert.equal(model(now, '7.8.2-6').acceptsHeaderAuthorize, true);
    assert.equal(model(now, '7.22.0-216').acceptsHeaderAuthorize, true);
    assert.equal(model(now, '7.4.6-22').acceptsHeaderAuthorize, false);
    assert.equal(model(now, '7.8.0-10').acceptsHeaderAuthorize, false);
  });

  it('compares versions part by part', () => {
    assert.ok(compareVersions('7.8.2-6', '7.8.2') > 0);
    assert.ok(compareVersions('7.10.0', '7.8.2') > 0);
    assert.equal(compareVersions('7.8.2', '7.8.2'), 0);
    assert.ok(compareVersions('7.4.6-22', '7.8.2') < 0);
  });

  it('expires tokens by its clock and invalidates them all on rotation', () => {
    const now = { t: 1_000_000 };
    const m = model(now);
    const user = m.users[0]!;
    const token = m.issueToken(user, 60);
    assert.deepEqual(m.checkToken(token), { user });
    now.t += 61_000;
    assert.deepEqual(m.checkToken(token), { error: 'expired' });
    const fresh = m.issueToken(user, 60);
    m.rotateJwtSecret();
    assert.deepEqual(m.checkToken(fresh), { error: 'invalid' });
  });

  it('rotates the JWT secret when upgraded to 8.0.22 or later, not before', () => {
    const now = { t: 0 };
    const m = model(now);
    let rotations = 0;
    m.events.on('jwtSecretRotated', () => {
      rotations += 1;
    });
    m.setServerVersion('7.22.0-216');
    assert.equal(rotations, 0);
    m.setServerVersion('8.0.22-10');
    assert.equal(rotations, 1);
    assert.equal(m.nodes[0]?.software_version, '8.0.22-10');
  });

  it('completes timed actions on settle and applies their effect', () => {
    const now = { t: 0 };
    const m = model(now);
    const requested: string[] = [];
    m.onBdbUpgradeRequested((event) => requested.push(event.targetVersion));
    const bdb = m.bdbs[0]!;
    const { action } = m.requestBdbUpgrade(bdb, '7.4');
    assert.deepEqual(requested, ['7.4']);
    now.t = 500;
    m.settle();
    assert.equal(action.status, 'active');
    assert.equal(action.progress, 50);
    assert.equal(bdb.databaseVersion, '7.2');
    now.t = 1000;
    m.settle();
    assert.equal(action.status, 'completed');
    assert.equal(bdb.databaseVersion, '7.4');
    assert.equal(bdb.action_uid, undefined);
  });

  it('leaves untimed actions to the operator, who completes or fails them', () => {
    const now = { t: 0 };
    const m = model(now);
    m.actionDelayMs = undefined;
    const uploaded: string[] = [];
    m.onModuleUploaded((event) => uploaded.push(event.module.module_name));
    const { action } = m.uploadModule({ name: 'search', version: '2.8.4', platforms: ['rhel9/x86_64'] });
    assert.deepEqual(uploaded, ['search']);
    now.t = 1_000_000;
    m.settle();
    assert.equal(action.status, 'active');
    assert.equal(m.modules.length, 0);
    m.completeAction(action.action_uid);
    assert.equal(m.modules[0]?.module_name, 'search');
    const second = m.startAction('x', 'bdb:1');
    m.failAction(second.action_uid, 'boom');
    assert.equal(second.status, 'failed');
    assert.deepEqual(Object.keys(m.renderAction(second)).sort(), [
      'action_uid',
      'error_message',
      'name',
      'object_name',
      'progress',
      'status',
    ]);
  });
});
