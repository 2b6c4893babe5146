import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHECK_IDS, type CheckResult, isBlocked, runChecks } from '../../../src/planning/checks/index.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';
import { REQUIRED_PERMISSIONS, STEP_IDS } from '../../../src/steps/index.js';

function result(
  mutate: (s: Snapshot) => void,
  id: string,
  flags: Parameters<typeof makeTarget>[0] = {},
): CheckResult {
  const found = runChecks(makeSnapshot(mutate), makeTarget(flags), { required: REQUIRED_PERMISSIONS }).find(
    (c) => c.id === id,
  );
  assert.ok(found, id);
  return found;
}

describe('runChecks', () => {
  it('returns every check id of CLI.md, in order, each with a message', () => {
    const checks = runChecks(makeSnapshot(), makeTarget(), { required: REQUIRED_PERMISSIONS });
    assert.deepEqual(
      checks.map((c) => c.id),
      [...CHECK_IDS],
    );
    assert.ok(checks.every((c) => c.message.length > 0));
    assert.equal(isBlocked(checks), false);
  });

  it('every failing check names a fix', () => {
    const broken = makeSnapshot((s) => {
      if (s.cluster) {
        s.cluster.state = 'Error';
        s.cluster.license = { state: 'Expired' };
        s.cluster.autoUpgrade = true;
        s.cluster.image.digestHash = 'sha256:1';
      }
      if (s.operator) s.operator.version = '7.2.4-12';
      s.admissionTls = { name: 'admission-tls', present: false };
      s.api = { reachable: false, error: 'connect ECONNREFUSED', modules: [], bdbs: [], nodes: [] };
      s.permissions = [
        {
          verb: 'patch',
          group: 'app.redislabs.com',
          resource: 'redisenterpriseclusters',
          namespace: 'redis',
          allowed: false,
        },
      ];
    });
    const checks = runChecks(broken, makeTarget(), { required: REQUIRED_PERMISSIONS });
    const failing = checks.filter((c) => c.status === 'fail');
    assert.ok(failing.length >= 6, failing.map((c) => c.id).join(','));
    for (const check of failing) assert.ok(check.fix.length > 0, `${check.id} has a fix`);
  });

  describe('cluster-running', () => {
    it('fails in state Upgrade towards another version, with the wait command', () => {
      const check = result((s) => {
        if (s.cluster) s.cluster.state = 'Upgrade';
      }, 'cluster-running');
      assert.equal(check.status, 'fail');
      assert.match(check.fix, /kubectl wait rec\/rec -n redis '--for=jsonpath=\{\.status\.state\}=Running'/);
    });

    it('warns when the upgrade in progress is the one planned (a resumed run)', () => {
      const check = result((s) => {
        if (s.cluster) {
          s.cluster.state = 'Upgrade';
          s.cluster.image.versionTag = '7.8.2-60';
        }
      }, 'cluster-running');
      assert.equal(check.status, 'warn');
    });

    it('warns on InvalidUpgrade, which the operator accepts a new upgrade from', () => {
      assert.equal(
        result((s) => {
          if (s.cluster) s.cluster.state = 'InvalidUpgrade';
        }, 'cluster-running').status,
        'warn',
      );
    });
  });

  it('license-valid warns when the licence state is unknown', () => {
    const check = result((s) => {
      if (s.cluster) s.cluster.license = undefined;
    }, 'license-valid');
    assert.equal(check.status, 'warn');
  });

  it('operator-min-version fails without an operator Deployment', () => {
    const check = result((s) => {
      s.operator = undefined;
    }, 'operator-min-version');
    assert.equal(check.status, 'fail');
    assert.match(check.message, /no operator Deployment redis-enterprise-operator in namespace redis/);
  });

  it('operator-min-version passes any operator for targets before 7.8.2-6', () => {
    const check = result(
      (s) => {
        if (s.operator) s.operator.version = '7.2.4-12';
      },
      'operator-min-version',
      { to: '7.4.6-7' },
    );
    assert.equal(check.status, 'pass');
  });

  describe('upgrade-path', () => {
    it('fails a downgrade', () => {
      const check = result(() => {}, 'upgrade-path', { to: '7.4.2-2' });
      assert.equal(check.status, 'fail');
      assert.match(check.message, /downgrades are not supported/);
      // No hint offers --ignore-check for it: nothing ctl does goes down a release.
      assert.equal(check.ignorable, false);
    });

    it('--ignore-check upgrade-path leaves a downgrade failing and says why; an ignorable fail turns into a warning', () => {
      const snapshot = makeSnapshot((s) => {
        if (s.cluster) s.cluster.license = { state: 'Expired' };
      });
      const target = makeTarget({ to: '7.4.2-2', ignoreCheck: ['upgrade-path', 'license-valid'] });
      const checks = runChecks(snapshot, target, { required: REQUIRED_PERMISSIONS });
      const path = checks.find((c) => c.id === 'upgrade-path');
      assert.equal(path?.status, 'fail');
      assert.equal(path.ignored, undefined);
      assert.match(
        path.message,
        /downgrades are not supported \(--ignore-check upgrade-path cannot get past it: ctl takes no cluster down a release: /,
      );
      assert.equal('firmBecause' in path, false, 'the reason is in the message, not a field of its own');
      const license = checks.find((c) => c.id === 'license-valid');
      assert.equal(license?.status, 'warn');
      assert.equal(license.ignored, true);
      assert.equal(isBlocked(checks), true);
    });

    it('fails an unsupported RS path and names the hop', () => {
      const check = result(
        (s) => {
          if (s.operator) s.operator.version = '7.4.6-2';
          for (const node of s.api.nodes) node.software_version = '6.4.2-94';
          if (s.cluster) s.cluster.image.versionTag = '6.4.2-94';
        },
        'upgrade-path',
        { to: '8.2.0-13' },
      );
      assert.equal(check.status, 'fail');
      assert.match(check.message, /RS 6\.4\.2 -> 8\.2\.0/);
      assert.match(check.fix, /first ctl upgrade run --to \S+, then --to 8\.2\.0-13/);
    });

    it('the hop names the kubeconfig and context ctl was given (src/kube/kube-target.ts)', () => {
      const check = result(
        (s) => {
          s.kubeTarget = { kubeconfigs: ['/k/prod.yaml'], context: 'prod east' };
          if (s.operator) s.operator.version = '7.4.6-2';
          for (const node of s.api.nodes) node.software_version = '6.4.2-94';
          if (s.cluster) s.cluster.image.versionTag = '6.4.2-94';
        },
        'upgrade-path',
        { to: '8.2.0-13' },
      );
      assert.match(
        check.fix,
        /first ctl --kubeconfig \/k\/prod\.yaml --context 'prod east' upgrade run --to \S+, then --to 8\.2\.0-13/,
      );
    });

    it('the hop repeats the -n and --cluster ctl was given, quoted, and only those given', () => {
      const hop = (given: { namespace?: string; cluster?: string }) =>
        result(
          (s) => {
            s.kubeTarget = { context: 'prod east' };
            if (given.namespace !== undefined) s.requestedNamespace = given.namespace;
            if (given.cluster !== undefined) s.requestedCluster = given.cluster;
            for (const node of s.api.nodes) node.software_version = '6.4.2-94';
            if (s.cluster) s.cluster.image.versionTag = '6.4.2-94';
          },
          'upgrade-path',
          { to: '8.2.0-13' },
        ).fix;
      assert.match(
        hop({ namespace: 'redis', cluster: 'rec' }),
        /first ctl --context 'prod east' upgrade run --to \S+ -n redis --cluster rec, then --to 8\.2\.0-13/,
      );
      assert.match(hop({ namespace: 'redis' }), /upgrade run --to \S+ -n redis, then/);
      assert.match(hop({}), /upgrade run --to \S+, then/);
      // A name is quoted as one word, never left as a `<placeholder>` that a shell takes for a redirection.
      assert.match(
        hop({ namespace: '<prod>', cluster: "rec'a" }),
        /--to \S+ -n '<prod>' --cluster 'rec'\\''a', then/,
      );
    });

    it('reads the running RS from the nodes, not the spec', () => {
      const check = result((s) => {
        if (s.cluster) s.cluster.image.versionTag = '9.9.9-1';
      }, 'upgrade-path');
      assert.equal(check.status, 'pass');
      assert.match(check.message, /RS 7\.4\.6 -> 7\.8\.2/);
    });
  });

  it('database-min-version uses the API when the database has no resource', () => {
    const check = result((s) => {
      s.api.bdbs.push({ uid: 7, name: 'legacy', redis_version: '6.0' });
    }, 'database-min-version');
    assert.equal(check.status, 'fail');
    assert.match(check.message, /bdb 7 \(6\.0\)/);
    assert.match(
      check.fix,
      /curl -sfk -u USERNAME:PASSWORD -X POST -H 'Content-Type: application\/json' -d '\{"redis_version":"7\.2"\}' https:\/\/localhost:9443\/v1\/bdbs\/7\/upgrade/,
    );
  });

  describe('database-version-supported', () => {
    it('fails a --db-version the target does not bundle', () => {
      const check = result(() => {}, 'database-version-supported', { dbVersion: '8.0' });
      assert.equal(check.status, 'fail');
      assert.match(check.message, /--db-version 8\.0 is not bundled with RS 7\.8\.2/);
      assert.match(check.fix, /6\.2, 7\.2, 7\.4/);
    });

    it('warns when a database is newer than the requested version', () => {
      const check = result(() => {}, 'database-version-supported', { dbVersion: '6.2' });
      assert.equal(check.status, 'warn');
      assert.match(check.message, /redis\/db1 runs 7\.2, newer than 6\.2: left as is/);
    });
  });

  describe('modules-compatible', () => {
    it('warns when the API is unreachable and the target needs RHEL9 builds', () => {
      const check = result((s) => {
        s.api = { reachable: false, error: 'x', modules: [], bdbs: [], nodes: [] };
      }, 'modules-compatible');
      assert.equal(check.status, 'warn');
    });

    it('fails user-defined modules with auto-upgrade on', () => {
      const check = result((s) => {
        if (s.cluster) {
          s.cluster.userDefinedModules = ['custom'];
          s.cluster.autoUpgrade = true;
        }
      }, 'modules-compatible');
      assert.equal(check.status, 'fail');
      assert.match(check.fix, /"autoUpgradeRedisEnterprise":false/);
    });
  });

  it('auto-upgrade-digest warns about auto-upgrade with an upgrade policy', () => {
    const check = result((s) => {
      if (s.cluster) {
        s.cluster.autoUpgrade = true;
        s.cluster.upgradePolicy = 'latest';
      }
    }, 'auto-upgrade-digest');
    assert.equal(check.status, 'warn');
  });

  describe('admission-tls', () => {
    it('fails without the Secret and says how to get it back', () => {
      const check = result((s) => {
        s.admissionTls = { name: 'admission-tls', present: false };
      }, 'admission-tls');
      assert.equal(check.status, 'fail');
      assert.equal(
        check.fix,
        'Restart the operator, which creates it: kubectl rollout restart deployment/redis-enterprise-operator -n redis',
      );
    });

    it('warns when the caBundle does not match', () => {
      const check = result((s) => {
        const hook = s.webhooks[0]?.webhooks[0];
        if (hook) hook.caBundle = 'c3RhbGU=';
      }, 'admission-tls');
      assert.equal(check.status, 'warn');
    });
  });

  it('api-reachable fails with the error and the connection flags', () => {
    const check = result((s) => {
      s.api = {
        reachable: false,
        error: 'connect ECONNREFUSED 127.0.0.1:9443',
        modules: [],
        bdbs: [],
        nodes: [],
      };
      s.credentials = { name: 'rec', present: false, hasUsername: false, hasPassword: false };
    }, 'api-reachable');
    assert.equal(check.status, 'fail');
    assert.match(check.message, /ECONNREFUSED/);
    assert.match(check.message, /Secret rec with the API credentials was not found/);
    assert.match(check.fix, /--api-url/);
  });

  describe('permissions', () => {
    it('fails a denied permission with the can-i command', () => {
      const check = result((s) => {
        s.permissions = [
          {
            verb: 'patch',
            group: 'app.redislabs.com',
            resource: 'redisenterpriseclusters',
            namespace: 'redis',
            allowed: false,
          },
        ];
      }, 'permissions');
      assert.equal(check.status, 'fail');
      assert.match(check.message, /patch redisenterpriseclusters\.app\.redislabs\.com -n redis/);
      assert.match(
        check.fix,
        /kubectl auth can-i patch redisenterpriseclusters\.app\.redislabs\.com -n redis/,
      );
    });

    it('warns about permissions that were not reviewed', () => {
      const check = result((s) => {
        s.permissions = [{ verb: 'get', group: '', resource: 'nothing', allowed: true }];
      }, 'permissions');
      assert.equal(check.status, 'warn');
    });

    it('a review for every namespace answers a question about one', () => {
      const check = result((s) => {
        s.watchedNamespaces = ['redis', 'a', 'b', 'c', 'd'];
        s.permissions = [];
      }, 'permissions');
      assert.equal(check.status, 'pass');
    });
  });

  it('REQUIRED_PERMISSIONS is data an RBAC manifest test can compare', () => {
    const clusterPatch = REQUIRED_PERMISSIONS.find(
      (p) => p.resource === 'redisenterpriseclusters' && p.verbs.includes('patch'),
    );
    assert.equal(clusterPatch?.scope, 'namespace');
    assert.ok(REQUIRED_PERMISSIONS.every((p) => p.verbs.length > 0 && p.why.length > 0));
    // Gathered from the step modules, each row tagged with the step that lists it.
    assert.equal(clusterPatch?.step, 'cluster');
    assert.deepEqual(
      [...new Set(REQUIRED_PERMISSIONS.map((p) => p.step))].sort(),
      [...STEP_IDS].sort(),
      'every step lists the permissions it needs',
    );
  });
});
