import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OwnRole } from '../../../src/api/own-role.js';
import { apiIdentityMismatch } from '../../../src/planning/api-identity.js';
import { databaseVisibility, unlistedDatabases } from '../../../src/planning/api-visibility.js';
import { runChecks } from '../../../src/planning/checks/index.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

const roles = (...held: { management: string; databases?: number[] }[]): OwnRole => ({
  kind: 'read',
  roles: held,
  credentialsFrom: 'CTL_USERNAME',
});
const onRs = (version: string) => (s: Snapshot) => {
  s.api.nodes = s.api.nodes.map((node) => ({ ...node, software_version: version }));
};
/** db1 (uid 1) has a REDB; a second REDB, ledger (uid 2), whose database the API leaves out. */
const ledgerHidden = (s: Snapshot) => {
  const [db1] = s.databases;
  assert.ok(db1, 'the fixture has a database');
  s.databases.push({ ...db1, uid: 'uid-ledger', name: 'ledger', databaseUid: '2' });
};

describe('api-visibility: which databases the API user sees (RS 8.2 database-scoped roles)', () => {
  const table: [string, OwnRole | undefined, string, string][] = [
    ['an admin sees them all', roles({ management: 'admin' }), '8.2.0-78', 'all'],
    [
      'a role limited to databases sees those',
      roles({ management: 'db_member', databases: [2] }),
      '8.2.0-78',
      'limited',
    ],
    [
      'one unlimited role besides a limited one: all',
      roles({ management: 'db_member', databases: [2] }, { management: 'cluster_viewer' }),
      '8.2.0-78',
      'all',
    ],
    [
      'user_manager lists every database (view_all_bdbs_info)',
      roles({ management: 'user_manager' }, { management: 'db_viewer', databases: [2] }),
      '8.2.0-78',
      'all',
    ],
    [
      'a role that lists no database decides nothing: RS 8.2, unknown',
      roles({ management: 'none' }),
      '8.2.0-78',
      'unknown',
    ],
    ['not an admin on RS 8.2: may be limited', { kind: 'not-admin' }, '8.2.0-78', 'unknown'],
    ['not an admin before RS 8.2: no role is limited there', { kind: 'not-admin' }, '7.22.0-28', 'all'],
    ['an LDAP user on RS 8.2', { kind: 'unknown', why: 'LDAP' }, '8.2.0-78', 'unknown'],
    ['role not read before RS 8.2', undefined, '7.4.6-22', 'all'],
  ];
  for (const [name, user, version, expected] of table) {
    it(name, () => {
      const snapshot = makeSnapshot((s) => {
        onRs(version)(s);
        if (user) s.api.user = user;
      });
      assert.equal(databaseVisibility(snapshot.api).kind, expected);
    });
  }

  it('the limited uids are those of the roles that list databases', () => {
    const snapshot = makeSnapshot((s) => {
      s.api.user = roles(
        { management: 'db_member', databases: [2, 3] },
        { management: 'db_viewer', databases: [3, 5] },
      );
    });
    assert.deepEqual(databaseVisibility(snapshot.api), { kind: 'limited', uids: [2, 3, 5] });
  });

  it('unlistedDatabases: the database resources whose uid GET /v1/bdbs left out', () => {
    assert.deepEqual(unlistedDatabases(makeSnapshot(ledgerHidden)), [{ resource: 'redis/ledger', uid: '2' }]);
    assert.deepEqual(unlistedDatabases(makeSnapshot(() => undefined)), []);
  });
});

describe("api-identity: a database the API leaves out is another cluster's sign only when the user sees them all", () => {
  it('an admin (every database listed): the missing uid is a mismatch', () => {
    const snapshot = makeSnapshot((s) => {
      onRs('8.2.0-78')(s);
      ledgerHidden(s);
      s.api.user = roles({ management: 'admin' });
    });
    assert.deepEqual(apiIdentityMismatch(snapshot), {
      expected: 'REDB redis/ledger (database uid 2)',
      found: 'no database with uid 2',
    });
  });

  it('a role limited to other databases, or a role not read on RS 8.2: no mismatch (api-reachable says it)', () => {
    for (const user of [
      roles({ management: 'db_member', databases: [1] }),
      { kind: 'not-admin' } as OwnRole,
    ]) {
      const snapshot = makeSnapshot((s) => {
        onRs('8.2.0-78')(s);
        ledgerHidden(s);
        s.api.user = user;
      });
      assert.equal(apiIdentityMismatch(snapshot), undefined, user.kind);
    }
  });

  it('a listed database under another name is still a mismatch for a limited user', () => {
    const snapshot = makeSnapshot((s) => {
      onRs('8.2.0-78')(s);
      s.api.user = roles({ management: 'db_member', databases: [1] });
      const [bdb] = s.api.bdbs;
      assert.ok(bdb);
      bdb.name = 'orders';
    });
    assert.equal(apiIdentityMismatch(snapshot)?.found, 'database uid 1 named orders');
  });

  it('not an admin before RS 8.2: the missing uid is a mismatch (no role is limited there)', () => {
    const snapshot = makeSnapshot((s) => {
      onRs('7.22.0-28')(s);
      ledgerHidden(s);
      s.api.user = { kind: 'not-admin' };
    });
    assert.equal(apiIdentityMismatch(snapshot)?.found, 'no database with uid 2');
  });
});

describe('api-reachable: an API that does not list every database the resources name fails, firm', () => {
  const check = (mutate: (s: Snapshot) => void) =>
    runChecks(makeSnapshot(mutate), makeTarget({ to: '8.2.0-18' }), { required: REQUIRED_PERMISSIONS }).find(
      (c) => c.id === 'api-reachable',
    );

  it('a limited role: names the database, the role, and both fixes', () => {
    const result = check((s) => {
      onRs('8.2.0-78')(s);
      ledgerHidden(s);
      s.api.user = roles({ management: 'db_member', databases: [1] });
    });
    assert.equal(result?.status, 'fail');
    assert.equal(result?.ignorable, false);
    assert.match(
      result?.message ?? '',
      /does not list the database\(s\) of redis\/ledger \(uid 2\): the API user's role is limited to database uid\(s\) 1$/,
    );
    assert.match(result?.fix ?? '', /Give the API user's role every database/);
    assert.match(result?.fix ?? '', /the admin the operator keeps in the Secret rec/);
    assert.doesNotMatch(result?.fix ?? '', /--api-url/, 'the cause is known: the role');
  });

  it('a role that cannot be read on RS 8.2: both causes, and the --api-url to check', () => {
    const result = check((s) => {
      onRs('8.2.0-78')(s);
      ledgerHidden(s);
      s.api.user = { kind: 'not-admin', credentialsFrom: 'Secret rec' };
    });
    assert.equal(result?.status, 'fail');
    assert.match(
      result?.message ?? '',
      /either the API user has a role limited to some databases \(RS 8\.2 and later\) or the API reached is not this cluster's/,
    );
    assert.match(
      result?.fix ?? '',
      /put the username and password of a user whose role covers every database in Secret rec/,
    );
    assert.match(result?.fix ?? '', /--api-url \(or CTL_API_URL\)/);
  });

  /** An Active-Active database of this cluster (rec) whose local bdb the API leaves out. */
  const geoHidden = (s: Snapshot) => {
    s.activeActiveDatabases.push({
      name: 'geo',
      namespace: 'redis',
      participatingClusters: [{ name: 'rec' }, { name: 'rerc-east' }],
    } as Snapshot['activeActiveDatabases'][number]);
  };

  it('a limited role that hides an Active-Active database: fails, naming it (found by the world test)', () => {
    const result = check((s) => {
      onRs('8.2.0-78')(s);
      geoHidden(s);
      s.api.user = roles({ management: 'db_member', databases: [1] });
    });
    assert.equal(result?.status, 'fail');
    assert.match(result?.message ?? '', /does not list the database\(s\) of redis\/geo \(Active-Active\)/);
  });

  it('an admin whose list lacks an Active-Active database: not counted (matched by name only)', () => {
    const result = check((s) => {
      onRs('8.2.0-78')(s);
      geoHidden(s);
      s.api.user = roles({ management: 'admin' });
    });
    assert.equal(result?.status, 'pass');
  });

  it('every database listed: passes as before', () => {
    const result = check((s) => {
      onRs('8.2.0-78')(s);
      s.api.user = roles({ management: 'db_member', databases: [1] });
    });
    assert.equal(result?.status, 'pass');
  });
});

describe('api-identity: a database the operator upgrades on its own is ahead in the API, not another cluster', () => {
  const at = (spec: string, apiVersion: string) =>
    makeSnapshot((s) => {
      const [db] = s.databases;
      const [bdb] = s.api.bdbs;
      assert.ok(db && bdb);
      db.versionSpec = spec;
      db.statusVersion = '7.2';
      bdb.redis_version = apiVersion;
    });

  it('version latest or major, status 7.2, the API already at 7.4: no mismatch (found by the world test)', () => {
    assert.equal(apiIdentityMismatch(at('latest', '7.4')), undefined);
    assert.equal(apiIdentityMismatch(at('major', '7.4')), undefined);
  });

  it('the API behind the status, or a concrete version the API does not run: still a mismatch', () => {
    assert.equal(apiIdentityMismatch(at('latest', '6.2'))?.found, 'database db1 at 6.2');
    assert.equal(apiIdentityMismatch(at('7.2', '7.4'))?.found, 'database db1 at 7.4');
  });
});
