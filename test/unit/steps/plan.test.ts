import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { canonicalJson, type Plan, planFingerprint } from '../../../src/planning/plan.js';
import { planUpgrade } from '../../../src/steps/index.js';
import { renderPlan } from '../../../src/planning/render-plan.js';
import { targetReached } from '../../../src/planning/target-reached.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';

function step(plan: Plan, id: string) {
  const found = plan.steps.find((s) => s.id === id);
  assert.ok(found, `step ${id}`);
  return found;
}

function check(plan: Plan, id: string) {
  const found = plan.checks.find((c) => c.id === id);
  assert.ok(found, `check ${id}`);
  return found;
}

describe('buildPlan', () => {
  it('happy path: seven steps, every check passes (but the three about the release), not blocked', () => {
    const plan = planUpgrade(makeSnapshot(), makeTarget());
    assert.equal(plan.apiVersion, 'ctl/v1');
    assert.equal(plan.kind, 'UpgradePlan');
    assert.deepEqual(plan.cluster, {
      context: 'sim',
      namespace: 'redis',
      name: 'rec',
      dialect: 'redis',
      platform: 'kubernetes',
    });
    assert.deepEqual(plan.current, {
      operator: '7.4.6-2',
      clusterVersion: '7.4.6-22',
      databases: [{ name: 'db1', namespace: 'redis', version: '7.2' }],
    });
    assert.deepEqual(plan.target, {
      operator: '7.8.2-6',
      clusterVersion: '7.8.2-60',
      databaseVersion: '7.4',
      method: 'bundle',
      // What the user selected travels with the plan, so `run --plan` does exactly this.
      selection: {
        databases: { kind: 'all' },
        ignoreChecks: [],
        bundle: null,
        helm: { release: null, chart: null, repo: null },
        stateStore: 'file',
      },
    });
    assert.deepEqual(
      plan.checks.map((c) => [c.id, c.status]),
      [
        ['cluster-found', 'pass'],
        ['cluster-running', 'pass'],
        ['license-valid', 'pass'],
        ['operator-min-version', 'pass'],
        ['upgrade-path', 'pass'],
        ['target-available', 'pass'],
        ['database-min-version', 'pass'],
        ['database-version-supported', 'pass'],
        ['modules-compatible', 'pass'],
        ['database-availability', 'pass'],
        ['auto-upgrade-digest', 'pass'],
        ['helm-release-healthy', 'pass'],
        ['helm-available', 'pass'],
        ['operator-method', 'pass'],
        ['olm-cluster-name', 'pass'],
        ['olm-approval', 'pass'],
        ['olm-update-path', 'pass'],
        ['olm-csv-healthy', 'pass'],
        ['admission-tls', 'pass'],
        ['api-reachable', 'pass'],
        ['permissions', 'pass'],
        ['api-permissions', 'pass'],
        // No --remediate: no module package to judge.
        ['module-packages', 'pass'],
        // 7.8.2-6 predates the fix of advisory reaadb-empty-password; nothing here triggers it.
        ['release-advisories', 'warn'],
        // The cluster runs RS 7.4, whose end of life is 2026-11-30 (near or past it).
        ['release-rules', 'warn'],
        // Kubernetes 1.32 came out after 7.8.2-6 (1.28-1.31): not in its table.
        ['platform-supported', 'warn'],
      ],
    );
    assert.ok(plan.checks.every((c) => c.status !== 'pass' || c.fix === ''));
    assert.equal(plan.blocked, false);
    assert.match(plan.fingerprint, /^sha256:[0-9a-f]{64}$/);

    assert.deepEqual(
      plan.steps.map((s) => [s.id, s.skip]),
      [
        ['preflight', null],
        ['operator', null],
        ['admission', null],
        ['security-context', 'not OpenShift'],
        ['cluster', null],
        ['monitor', null],
        ['databases', null],
      ],
    );
    assert.deepEqual(step(plan, 'operator').actions, [
      {
        description: 'Apply the operator bundle of 7.8.2-6 (CRDs, RBAC, Deployment), server-side',
        command:
          'kubectl apply --server-side --force-conflicts --field-manager=ctl -n redis -f https://raw.githubusercontent.com/RedisLabs/redis-enterprise-k8s-docs/v7.8.2-6/bundle.yaml',
      },
      {
        description: 'Wait for the operator 7.8.2-6 to be ready',
        command: 'kubectl rollout status deployment/redis-enterprise-operator -n redis --timeout=10m',
      },
    ]);
    // As the step does it: wait for the Secret, then, since the live webhook trusts admission-tls
    // already, one apply with the caBundle set only if the live webhook differs from the release's
    // (the run skips when it does not: src/steps/admission.ts reapplyWebhook).
    assert.deepEqual(step(plan, 'admission').actions, [
      {
        description: "Wait for the operator to create Secret admission-tls (its cert is the webhook's CA)",
        command:
          'until [ -n "$(kubectl get secret admission-tls -n redis -o \'jsonpath={.data.cert}\')" ]; do sleep 5; done',
      },
      {
        description:
          'Compare the live webhook redis-enterprise-admission with the one of 7.8.2-6 for namespace redis (caBundle from Secret admission-tls) and apply it only if they differ: it trusts admission-tls already, so an unchanged webhook.yaml leaves nothing to write',
        command:
          "CERT=$(kubectl get secret admission-tls -n redis -o 'jsonpath={.data.cert}') && WEBHOOK=$(curl -fsSL https://raw.githubusercontent.com/RedisLabs/redis-enterprise-k8s-docs/v7.8.2-6/admission/webhook.yaml | sed -e 's/OPERATOR_NAMESPACE/redis/g' -e \"s|caBundle:.*|caBundle: $CERT|\") && { printf '%s\\n' \"$WEBHOOK\" | kubectl diff --server-side --force-conflicts --field-manager=ctl -f - >/dev/null || printf '%s\\n' \"$WEBHOOK\" | kubectl apply --server-side --force-conflicts --field-manager=ctl -f -; }",
      },
    ]);
    assert.deepEqual(step(plan, 'cluster').actions, [
      {
        description: 'Set redisEnterpriseImageSpec.versionTag from 7.4.6-22 to 7.8.2-60',
        command:
          'kubectl patch rec rec -n redis --type merge -p \'{"spec":{"redisEnterpriseImageSpec":{"versionTag":"7.8.2-60"}}}\'',
      },
    ]);
    assert.equal(
      step(plan, 'monitor').actions[0]?.command,
      'kubectl rollout status sts/rec -n redis --timeout=60m',
    );
    assert.deepEqual(step(plan, 'databases').actions, [
      {
        description: 'Upgrade database redis/db1 from 7.2 to 7.4',
        command: 'kubectl patch redb db1 -n redis --type merge -p \'{"spec":{"redisVersion":"7.4"}}\'',
        database: { kind: 'redb', name: 'db1', namespace: 'redis', version: '7.4', manual: false },
      },
    ]);
    assert.equal(step(plan, 'preflight').actions.length, 2);
    assert.ok(plan.steps.every((s) => s.title.length > 0));
  });

  it('is pure: the same inputs give the same plan and fingerprint', () => {
    const a = planUpgrade(makeSnapshot(), makeTarget());
    const b = planUpgrade(makeSnapshot(), makeTarget());
    assert.deepEqual(a, b);
  });

  it('fingerprint changes with the cluster generation, the helm revision and the target, not with status churn', () => {
    const base = planUpgrade(makeSnapshot(), makeTarget());
    const bumped = planUpgrade(
      makeSnapshot((s) => {
        if (s.cluster) s.cluster.generation = 2;
      }),
      makeTarget(),
    );
    const otherTarget = planUpgrade(makeSnapshot(), makeTarget({ to: '7.8.4-9' }));
    const churn = planUpgrade(
      makeSnapshot((s) => {
        if (s.cluster) s.cluster.resourceVersion = '999';
      }),
      makeTarget(),
    );
    assert.notEqual(base.fingerprint, bumped.fingerprint);
    assert.notEqual(base.fingerprint, otherTarget.fingerprint);
    assert.equal(base.fingerprint, churn.fingerprint);
    // run --plan recomputes it from the saved target and a fresh snapshot
    assert.equal(planFingerprint(makeSnapshot(), base.target), base.fingerprint);
  });

  it('license invalid: license-valid fails with the command that fixes it, and the plan is blocked', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        if (s.cluster) s.cluster.license = { state: 'Invalid' };
      }),
      makeTarget(),
    );
    const license = check(plan, 'license-valid');
    assert.equal(license.status, 'fail');
    assert.match(license.message, /licence Invalid/);
    assert.match(license.fix, /kubectl create secret generic rec-license -n redis --from-file=license=/);
    assert.match(license.fix, /"licenseSecretName":"rec-license"/);
    assert.equal(plan.blocked, true);
  });

  it('operator 7.2.4-12: operator-min-version fails and names the intermediate hop', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        if (s.operator) {
          s.operator.version = '7.2.4-12';
          s.operator.image = 'redislabs/operator:7.2.4-12';
        }
        if (s.cluster) s.cluster.image.versionTag = '7.2.4-92';
        for (const node of s.api.nodes) node.software_version = '7.2.4-92';
      }),
      makeTarget(),
    );
    const min = check(plan, 'operator-min-version');
    assert.equal(min.status, 'fail');
    assert.equal(
      min.message,
      'operator 7.2.4-12 is older than 7.4.2-2, the oldest that may upgrade to 7.8.2-6',
    );
    assert.match(min.fix, /first ctl upgrade run --to 7\.4\.\d+-\d+, then --to 7\.8\.2-6/);
    assert.equal(plan.blocked, true);
  });

  it('database 6.2: database-min-version fails with the patch to 7.2', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        const db = s.databases[0];
        if (db) {
          db.versionSpec = '6.2';
          db.statusVersion = '6.2.13';
        }
        const bdb = s.api.bdbs[0];
        if (bdb) bdb.redis_version = '6.2';
      }),
      makeTarget(),
    );
    const min = check(plan, 'database-min-version');
    assert.equal(min.status, 'fail');
    assert.equal(min.message, 'redis/db1 (6.2) is below 7.2: the upgrade to 7.8.2-6 would freeze');
    assert.equal(
      min.fix,
      'Upgrade it to 7.2 first: kubectl patch redb db1 -n redis --type merge -p \'{"spec":{"redisVersion":"7.2"}}\'',
    );
    assert.equal(plan.blocked, true);
  });

  it('a module in use with only rhel8 builds: modules-compatible fails', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        const search = s.api.modules[0];
        if (search) search.platforms = { 'rhel8/x86_64': {} };
      }),
      makeTarget(),
    );
    const modules = check(plan, 'modules-compatible');
    assert.equal(modules.status, 'fail');
    assert.match(modules.message, /search 2\.8\.4 \(platforms: rhel8\/x86_64; used by db1\)/);
    assert.match(
      modules.fix,
      /curl -sfk -u USERNAME:PASSWORD -X POST -F module=@MODULE_RHEL9_ZIP https:\/\/localhost:9443\/v2\/modules/,
    );
    assert.equal(plan.blocked, true);
  });

  it('a module without rhel9 build does not matter for targets before 7.8.2-6', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        const search = s.api.modules[0];
        if (search) search.platforms = { 'rhel8/x86_64': {} };
      }),
      makeTarget({ to: '7.4.6-7' }),
    );
    assert.equal(check(plan, 'modules-compatible').status, 'pass');
  });

  it('autoUpgrade with a digestHash: auto-upgrade-digest fails; the cluster step leaves it to the operator', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        if (s.cluster) {
          s.cluster.autoUpgrade = true;
          s.cluster.image.digestHash = 'sha256:abc';
        }
      }),
      makeTarget(),
    );
    const digest = check(plan, 'auto-upgrade-digest');
    assert.equal(digest.status, 'fail');
    assert.match(digest.message, /spec\.upgradeSpec\.autoUpgradeRedisEnterprise is true/);
    assert.match(digest.fix, /'\{"spec":\{"upgradeSpec":\{"autoUpgradeRedisEnterprise":false\}\}\}'/);
    assert.match(digest.fix, /'\{"spec":\{"redisEnterpriseImageSpec":\{"digestHash":null\}\}\}'/);
    assert.equal(step(plan, 'cluster').skip, 'auto-upgrade is on: the operator upgrades the cluster');
    assert.equal(step(plan, 'monitor').skip, null);
    assert.equal(plan.blocked, true);
  });

  it('--ignore-check turns a fail into a warn, recorded in the check, and unblocks the plan', () => {
    const snapshot = makeSnapshot((s) => {
      if (s.cluster) s.cluster.license = { state: 'Expired' };
    });
    const plan = planUpgrade(snapshot, makeTarget({ ignoreCheck: ['license-valid'] }));
    const license = check(plan, 'license-valid');
    assert.equal(license.status, 'warn');
    assert.equal(license.ignored, true);
    assert.match(license.message, /\(ignored with --ignore-check license-valid\)$/);
    assert.equal(plan.blocked, false);
  });

  it('redis vs engine dialect: the patches use the dialect field names', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        s.dialect = 'engine';
      }),
      makeTarget(),
    );
    assert.equal(plan.cluster.dialect, 'engine');
    assert.match(
      step(plan, 'cluster').actions[0]?.command ?? '',
      /"engineEnterpriseImageSpec":\{"versionTag":"7\.8\.2-60"\}/,
    );
    assert.match(step(plan, 'databases').actions[0]?.command ?? '', /"engineVersion":"7\.4"/);

    const redis = planUpgrade(makeSnapshot(), makeTarget());
    assert.match(step(redis, 'cluster').actions[0]?.command ?? '', /"redisEnterpriseImageSpec"/);
    assert.match(step(redis, 'databases').actions[0]?.command ?? '', /"redisVersion":"7\.4"/);
  });

  describe('openshift', () => {
    const openshift = (mutate: Parameters<typeof makeSnapshot>[0] = () => {}) =>
      makeSnapshot((s) => {
        s.platform = 'openshift';
        s.scc = {
          name: 'redis-enterprise-scc-v2',
          present: true,
          users: ['system:serviceaccount:redis:rec'],
        };
        mutate(s);
      });

    const APPLY_722 =
      'oc apply --server-side --force-conflicts --field-manager=ctl -f https://raw.githubusercontent.com/RedisLabs/redis-enterprise-k8s-docs/v7.22.0-7/openshift/scc.yaml';
    const BIND = 'oc adm policy add-scc-to-user redis-enterprise-scc-v2 -z rec -n redis';
    const UNBIND = 'oc adm policy remove-scc-from-user redis-enterprise-scc-v2 -z rec -n redis';

    it('target 7.22.0-7 (>= 7.22.0-6): nothing before the roll, unbind and delete after it (monitor)', () => {
      const plan = planUpgrade(openshift(), makeTarget({ to: '7.22.0-7' }));
      assert.equal(plan.cluster.platform, 'openshift');
      const scc = step(plan, 'security-context');
      assert.match(scc.skip ?? '', /stays until the cluster has rolled; the monitor step removes it then/);
      const monitor = step(plan, 'monitor').actions.map((a) => a.command);
      assert.deepEqual(monitor.slice(-2), [UNBIND, 'oc delete scc redis-enterprise-scc-v2']);
      assert.match(
        step(plan, 'operator').actions[0]?.command ?? '',
        /\/v7\.22\.0-7\/openshift\.bundle\.yaml$/,
      );
    });

    it('target before 7.22.0-6: the SCC of the target is re-applied and bound, never removed', () => {
      const plan = planUpgrade(openshift(), makeTarget({ to: '7.8.6-2' }));
      const scc = step(plan, 'security-context');
      assert.equal(scc.skip, null);
      assert.deepEqual(
        scc.actions.map((a) => a.command),
        [
          'oc apply --server-side --force-conflicts --field-manager=ctl -f https://raw.githubusercontent.com/RedisLabs/redis-enterprise-k8s-docs/v7.8.6-2/openshift/scc.yaml',
          BIND,
        ],
      );
      assert.ok(!step(plan, 'monitor').actions.some((a) => /scc/.test(a.command)));
    });

    it('another cluster still in the users list: after the roll only this one is unbound', () => {
      const plan = planUpgrade(
        openshift((s) => {
          s.scc?.users.push('system:serviceaccount:other:rec2');
        }),
        makeTarget({ to: '7.22.0-7' }),
      );
      const after = step(plan, 'monitor').actions.slice(-2);
      assert.equal(after[0]?.command, UNBIND);
      assert.match(
        after[1]?.description ?? '',
        /keep redis-enterprise-scc-v2, still used by system:serviceaccount:other:rec2/,
      );
      assert.ok(!after.some((a) => a.command === 'oc delete scc redis-enterprise-scc-v2'));
    });

    it('allowAutoAdjustment keeps the SCC: the target scc.yaml re-applied, bound', () => {
      const plan = planUpgrade(
        openshift((s) => {
          if (s.cluster) s.cluster.allowAutoAdjustment = true;
          if (s.scc) s.scc.users = [];
        }),
        makeTarget({ to: '7.22.0-7' }),
      );
      assert.deepEqual(
        step(plan, 'security-context').actions.map((a) => a.command),
        [APPLY_722, BIND],
      );
      assert.ok(!step(plan, 'monitor').actions.some((a) => /scc/.test(a.command)));
    });

    it('helm chart owning the SCC: the plan warns that the chart upgrade deletes it and re-applies it', () => {
      const plan = planUpgrade(
        openshift((s) => {
          if (s.operator) s.operator.helmRelease = { name: 'rep', namespace: 'redis' };
          if (s.scc) s.scc.helmOwned = true;
        }),
        makeTarget({ to: '7.22.0-11' }),
      );
      const scc = step(plan, 'security-context');
      assert.match(
        scc.actions[0]?.description ?? '',
        /^Warning: the helm upgrade to chart 7\.22\.0-11 deletes redis-enterprise-scc-v2/,
      );
      assert.equal(scc.actions[1]?.command, BIND);
      assert.equal(step(plan, 'monitor').actions.at(-1)?.command, 'oc delete scc redis-enterprise-scc-v2');
    });

    it('helm on OpenShift sets openshift.mode', () => {
      const plan = planUpgrade(
        openshift((s) => {
          if (s.operator) s.operator.helmRelease = { name: 'rep', namespace: 'redis' };
          s.helmRelease = {
            name: 'rep',
            namespace: 'redis',
            revision: 2,
            status: 'deployed',
            lastDeployedRevision: 2,
          };
        }),
        makeTarget({ to: '7.22.0-7' }),
      );
      assert.equal(
        step(plan, 'operator').actions[0]?.command,
        'helm upgrade rep redis-enterprise-operator --version 7.22.0-7 --namespace redis --repo https://helm.redis.io --set openshift.mode=true --reset-then-reuse-values',
      );
    });
  });

  describe('helm method', () => {
    const helmSnapshot = (status = 'deployed') =>
      makeSnapshot((s) => {
        if (s.operator)
          s.operator.helmRelease = {
            name: 'redis-op',
            namespace: 'redis',
            chart: 'redis-enterprise-operator-7.4.6-2',
          };
        s.helmRelease = {
          name: 'redis-op',
          namespace: 'redis',
          revision: 3,
          status,
          lastDeployedRevision: 2,
        };
      });

    it('auto detects helm from the Deployment labels; helm upgrades the operator and owns the webhook', () => {
      const plan = planUpgrade(helmSnapshot(), makeTarget());
      assert.equal(plan.target.method, 'helm');
      assert.equal(check(plan, 'helm-release-healthy').status, 'pass');
      // No `helm repo add`: the step passes --repo, and keeps the release's values.
      assert.deepEqual(step(plan, 'operator').actions, [
        {
          description:
            'Upgrade helm release redis-op to chart 7.8.2-6 (operator 7.8.2-6; the chart upgrades the CRDs; helm before 3.14 has no --reset-then-reuse-values)',
          command:
            'helm upgrade redis-op redis-enterprise-operator --version 7.8.2-6 --namespace redis --repo https://helm.redis.io --reset-then-reuse-values',
        },
        {
          description: 'Wait for the operator 7.8.2-6 to be ready',
          command: 'kubectl rollout status deployment/redis-enterprise-operator -n redis --timeout=10m',
        },
      ]);
      assert.equal(step(plan, 'admission').skip, 'the helm chart manages the admission webhook');
    });

    it('a pending release fails helm-release-healthy with the rollback command', () => {
      const plan = planUpgrade(helmSnapshot('pending-upgrade'), makeTarget());
      const helm = check(plan, 'helm-release-healthy');
      assert.equal(helm.status, 'fail');
      assert.equal(helm.fix, 'Roll back to the last deployed revision: helm rollback redis-op 2 -n redis');
    });

    it('--method helm without a helm release fails', () => {
      const plan = planUpgrade(makeSnapshot(), makeTarget({ method: 'helm' }));
      assert.equal(check(plan, 'helm-release-healthy').status, 'fail');
    });

    it('--method bundle on a helm install warns', () => {
      const plan = planUpgrade(helmSnapshot(), makeTarget({ method: 'bundle' }));
      assert.equal(plan.target.method, 'bundle');
      assert.equal(check(plan, 'helm-release-healthy').status, 'warn');
    });
  });

  it('no cluster resource: cluster-found fails, every step says why it is skipped', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        s.cluster = undefined;
        s.clusterCandidates = ['a', 'b'];
      }),
      makeTarget(),
    );
    const found = check(plan, 'cluster-found');
    assert.equal(found.status, 'fail');
    assert.equal(found.message, '2 cluster resources in namespace redis: a, b');
    assert.equal(found.fix, 'Pass --cluster NAME, e.g. --cluster a.');
    assert.ok(plan.steps.every((s) => s.skip === 'no cluster resource found (cluster-found)'));
    assert.equal(plan.blocked, true);
  });

  it('already on the target: operator, cluster and monitor are skipped with reasons', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        if (s.operator) s.operator.version = '7.8.2-6';
        if (s.cluster) s.cluster.image.versionTag = '7.8.2-60';
        for (const node of s.api.nodes) node.software_version = '7.8.2-60';
        const db = s.databases[0];
        if (db) db.statusVersion = '7.4.2';
      }),
      makeTarget(),
    );
    assert.equal(step(plan, 'operator').skip, 'the operator already runs 7.8.2-6');
    assert.equal(step(plan, 'cluster').skip, 'the cluster already runs 7.8.2-60');
    assert.equal(step(plan, 'monitor').skip, 'the cluster already runs 7.8.2-60: nothing to wait for');
    assert.equal(
      step(plan, 'admission').skip,
      'redis-enterprise-admission is current and trusts admission-tls',
    );
    assert.equal(step(plan, 'databases').skip, 'no database needs a change (db1: already runs 7.4)');
    // The plan (and so `ctl upgrade run`) sees the target reached and says so, not "Ready to run".
    assert.equal(targetReached(plan), true);
    assert.equal(targetReached(planUpgrade(makeSnapshot(), makeTarget())), false, 'a plan with work');
    const text = renderPlan(plan, false);
    assert.match(text, /\nAlready at 7\.8\.2-6: nothing to do\.\n/);
    assert.doesNotMatch(text, /Ready to run|Next: ctl upgrade run/);
  });

  it('operator already on the target, cluster not: admission compares and applies only if they differ', () => {
    // The run has work (the cluster step), so it runs the admission step, which reads the
    // release's webhook.yaml and writes when the live webhook differs (reapplyWebhook).
    const plan = planUpgrade(
      makeSnapshot((s) => {
        if (s.operator) s.operator.version = '7.8.2-6';
      }),
      makeTarget(),
    );
    assert.equal(step(plan, 'operator').skip, 'the operator already runs 7.8.2-6');
    assert.equal(step(plan, 'cluster').skip, null);
    const admission = step(plan, 'admission');
    assert.equal(admission.skip, null);
    assert.equal(
      admission.actions[1]?.description,
      'Compare the live webhook redis-enterprise-admission with the one of 7.8.2-6 for namespace redis (caBundle from Secret admission-tls) and apply it only if they differ: the operator already runs 7.8.2-6 and the webhook trusts admission-tls, so only a change made to the live webhook leaves something to write',
    );
    assert.match(admission.actions[1]?.command ?? '', /kubectl diff --server-side .* \|\| printf/);
    assert.equal(targetReached(plan), false);
  });

  it('no admission webhook: admission step skipped, admission-tls passes', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        s.webhooks = [];
      }),
      makeTarget(),
    );
    assert.equal(step(plan, 'admission').skip, 'admission controller not enabled for the operator in redis');
    assert.equal(check(plan, 'admission-tls').message, 'admission controller not enabled');
  });

  it('a webhook that does not trust admission-tls (or is missing) is applied: the run cannot skip it', () => {
    for (const mutate of [
      (s: Snapshot) => {
        for (const entry of s.webhooks[0]?.webhooks ?? []) entry.caBundle = 'c3RhbGU=';
      },
      (s: Snapshot) => {
        s.admissionTls = { ...s.admissionTls, present: false, cert: undefined };
      },
    ]) {
      const actions = step(planUpgrade(makeSnapshot(mutate), makeTarget()), 'admission').actions;
      assert.match(
        actions[1]?.description ?? '',
        /^Apply the webhook redis-enterprise-admission of 7\.8\.2-6 for namespace redis with its caBundle set from Secret admission-tls$/,
      );
      assert.doesNotMatch(actions[1]?.command ?? '', /kubectl diff/);
    }
  });

  it('legacy redb-admission webhook is deleted first', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        s.webhooks.push({ name: 'redb-admission', webhooks: [{ name: 'redb.admission.redislabs' }] });
      }),
      makeTarget(),
    );
    // After the wait for admission-tls, before the new webhook, as the step does.
    assert.deepEqual(
      step(plan, 'admission').actions.map((a) => a.command.split(' ').slice(0, 3).join(' ')),
      ['until [ -n', 'kubectl delete validatingwebhookconfiguration', 'CERT=$(kubectl get secret'],
    );
    assert.equal(
      step(plan, 'admission').actions[1]?.command,
      'kubectl delete validatingwebhookconfiguration redb-admission',
    );
  });

  it('--databases none skips the databases step; unknown names are a usage error', () => {
    const plan = planUpgrade(makeSnapshot(), makeTarget({ databases: 'none' }));
    assert.equal(step(plan, 'databases').skip, 'not selected (--databases none)');
    assert.throws(() => planUpgrade(makeSnapshot(), makeTarget({ databases: 'nope' })), UsageError);
  });

  it('multi-namespace: the operator role is reapplied in every other watched namespace', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        s.watchedNamespaces = ['redis', 'apps'];
        s.operatorConfig = { redbNamespaces: 'apps' };
      }),
      makeTarget(),
    );
    const role = step(plan, 'operator').actions.find((a) => a.description.includes('namespace apps'));
    assert.ok(role);
    const sed = "sed -e 's/NAMESPACE_OF_SERVICE_ACCOUNT/redis/g' -e 's/NAME_OF_REC_SERVICE_ACCOUNT/rec/g'";
    const apply = 'kubectl apply --server-side --force-conflicts --field-manager=ctl -n apps -f -';
    const base = 'https://raw.githubusercontent.com/RedisLabs/redis-enterprise-k8s-docs/v7.8.2-6';
    // The binding is applied only when absent or bound to the release's Role (roleRef is immutable).
    const ref = `REF=$(kubectl get rolebinding redb-role -n apps --ignore-not-found -o 'jsonpath={.roleRef.kind}/{.roleRef.name}')`;
    assert.equal(
      role.command,
      `curl -fsSL ${base}/multi-namespace-redb/role.yaml | ${sed} | ${apply} && ${ref}; if [ -z "$REF" ] || [ "$REF" = Role/redb-role ]; then curl -fsSL ${base}/multi-namespace-redb/role_binding.yaml | ${sed} | ${apply}; else echo "keeping RoleBinding redb-role ($REF): roleRef cannot change"; fi`,
    );
  });

  it('Active-Active databases: held back while a participant cannot run the version, or is not known', () => {
    const withAa = (remote: NonNullable<Snapshot['remoteClusters']>) =>
      makeSnapshot((s) => {
        s.activeActiveDatabases = [
          {
            name: 'aa1',
            namespace: 'redis',
            versionSpec: '7.2',
            participatingClusters: [{ name: 'rec' }, { name: 'rerc1' }],
          },
        ];
        s.api.bdbs.push({ uid: 2, name: 'aa1', redis_version: '7.2', crdt: true });
        s.remoteClusters = remote;
      });
    const target = makeTarget({ to: '8.0.2-6', ignoreCheck: ['upgrade-path'] });
    const heldBy = (remote: NonNullable<Snapshot['remoteClusters']>) =>
      step(planUpgrade(withAa(remote), target), 'databases').actions.find((a) => a.database?.name === 'aa1');
    const current = heldBy([{ name: 'rerc1', namespace: 'redis', local: false, rsVersion: '8.0.20-108' }]);
    assert.equal(
      current?.database?.heldBack,
      undefined,
      'a participant on 8.0.20 (operator 8.0.20-27) runs 8.2',
    );
    // RS 8.0.2-17 bundles 8.2, but shipped with 8.0.2-2, which the empty-password advisory affects.
    const affected = heldBy([{ name: 'rerc1', namespace: 'redis', local: false, rsVersion: '8.0.2-17' }]);
    assert.match(
      affected?.database?.heldBack ?? '',
      /participant rerc1 runs Redis Software 8\.0\.2-17, shipped with operator 8\.0\.2-2, which is affected by advisory reaadb-empty-password .*upgrade the operator of rerc1 to 8\.0\.20-27/,
    );
    // A build no catalogued release ships: its operator cannot be told, so it holds the database back.
    const unknown = heldBy([{ name: 'rerc1', namespace: 'redis', local: false, rsVersion: '8.0.20-95' }]);
    assert.match(
      unknown?.database?.heldBack ?? '',
      /participant rerc1 runs Redis Software 8\.0\.20-95, which no operator release in ctl's catalog ships/,
    );
    const behind = heldBy([{ name: 'rerc1', namespace: 'redis', local: false, rsVersion: '7.22.2-179' }]);
    assert.match(behind?.database?.heldBack ?? '', /participant rerc1 runs Redis Software 7\.22\.2-179/);
    assert.equal(
      behind?.command,
      'ctl --context sim upgrade run -n redis --cluster rec --to 8.0.2-6 --databases redis/aa1',
    );
    const unreachable = heldBy([
      { name: 'rerc1', namespace: 'redis', local: false, unreachable: true, error: 'no answer within 10 s' },
    ]);
    assert.match(
      unreachable?.database?.heldBack ?? '',
      /participant rerc1 is unreachable: no answer within 10 s/,
    );
    const missing = heldBy([]);
    assert.match(missing?.database?.heldBack ?? '', /no RedisEnterpriseRemoteCluster rerc1/);
  });

  it('Active-Active databases: through the REAADB from 8.0.2-2, by hand before', () => {
    const withAa = makeSnapshot((s) => {
      s.activeActiveDatabases = [
        { name: 'aa1', namespace: 'redis', versionSpec: '7.2', participatingClusters: [{ name: 'rerc1' }] },
      ];
      s.api.bdbs.push({ uid: 2, name: 'aa1', redis_version: '7.2', crdt: true });
      // The other participant already runs an RS that bundles 8.2, with a fixed operator
      // (src/planning/active-active.ts, participant-judgment.ts).
      s.remoteClusters = [
        {
          name: 'rerc1',
          namespace: 'redis',
          local: false,
          apiUrl: 'https://east:443',
          rsVersion: '8.0.20-108',
        },
      ];
    });
    const recent = planUpgrade(withAa, makeTarget({ to: '8.0.2-6', ignoreCheck: ['upgrade-path'] }));
    const aa = step(recent, 'databases').actions.find((a) => a.description.includes('aa1'));
    assert.match(
      aa?.command ?? '',
      /kubectl patch reaadb aa1 -n redis --type merge -p '\{"spec":\{"globalConfigurations":\{"redisVersion":"8\.2"\}\}\}'/,
    );
    assert.deepEqual(aa?.database, {
      kind: 'reaadb',
      name: 'aa1',
      namespace: 'redis',
      version: '8.2',
      manual: false,
    });
    const older = planUpgrade(withAa, makeTarget());
    const manual = step(older, 'databases').actions.find((a) => a.description.includes('aa1'));
    assert.equal(
      manual?.command,
      'kubectl exec -it rec-0 -n redis -- rladmin upgrade db aa1 redis_version 7.4',
    );
    assert.deepEqual(manual?.database, {
      kind: 'reaadb',
      name: 'aa1',
      namespace: 'redis',
      version: '7.4',
      manual: true,
    });
    // The manual path asks the participants too: one on RS 7.2.4 (no 7.4 bundled) holds the
    // database back instead of the rladmin commands.
    const behind = makeSnapshot((s) => {
      s.activeActiveDatabases = withAa.activeActiveDatabases;
      s.api.bdbs.push({ uid: 2, name: 'aa1', redis_version: '7.2', crdt: true });
      s.remoteClusters = [{ name: 'rerc1', namespace: 'redis', local: false, rsVersion: '7.2.4-64' }];
    });
    const held = step(planUpgrade(behind, makeTarget()), 'databases').actions.find((a) =>
      a.description.includes('aa1'),
    );
    assert.match(
      held?.database?.heldBack ?? '',
      /participant rerc1 runs Redis Software 7\.2\.4-64, which does not bundle Redis 7\.4/,
    );
    assert.doesNotMatch(held?.command ?? '', /rladmin/);
    assert.equal(held?.database?.manual, false);
  });

  it('upgrade policy major: databases go to the newest major version only; spec words are left to the operator', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        if (s.cluster) s.cluster.upgradePolicy = 'major';
        s.databases.push({
          name: 'db2',
          namespace: 'redis',
          versionSpec: 'latest',
          statusVersion: '7.2.4',
          modules: [],
        });
      }),
      makeTarget(),
    );
    assert.equal(
      step(plan, 'databases').skip,
      'no database needs a change (db1: already runs 7.2; db2: its version is "latest": the operator chooses it)',
    );
  });

  it('--bundle (or CTL_BUNDLE): every release file comes from next to the bundle, not from GitHub', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        s.watchedNamespaces = ['redis', 'apps'];
      }),
      makeTarget({ bundle: 'http://127.0.0.1:8/bundles/{version}/bundle.yaml' }),
    );
    const commands = plan.steps.flatMap((s) => s.actions.map((a) => a.command));
    assert.ok(
      commands.every((c) => !c.includes('githubusercontent')),
      commands.join('\n'),
    );
    assert.match(
      step(plan, 'operator').actions[0]?.command ?? '',
      / -n redis -f http:\/\/127\.0\.0\.1:8\/bundles\/7\.8\.2-6\/bundle\.yaml$/,
    );
    assert.match(
      step(plan, 'admission').actions[1]?.command ?? '',
      /[ (]curl -fsSL http:\/\/127\.0\.0\.1:8\/bundles\/7\.8\.2-6\/admission\/webhook\.yaml \| /,
    );
    assert.match(
      step(plan, 'operator').actions[2]?.command ?? '',
      /^curl -fsSL http:\/\/127\.0\.0\.1:8\/bundles\/7\.8\.2-6\/multi-namespace-redb\/role\.yaml \| /,
    );

    const file = planUpgrade(makeSnapshot(), makeTarget({ bundle: '/srv/release/bundle.yaml' }));
    assert.match(
      step(file, 'admission').actions[1]?.command ?? '',
      /[ (]cat \/srv\/release\/admission\/webhook\.yaml \| sed /,
    );
  });

  it('the webhook and its Secret are in the operator namespace', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        if (s.operator) s.operator.namespace = 'ops';
        // The operator in ops: its webhook calls its service there.
        for (const entry of s.webhooks[0]?.webhooks ?? []) entry.serviceNamespace = 'ops';
      }),
      makeTarget(),
    );
    const [wait, apply] = step(plan, 'admission').actions;
    assert.match(wait?.command ?? '', /get secret admission-tls -n ops /);
    assert.match(apply?.command ?? '', /s\/OPERATOR_NAMESPACE\/ops\/g/);
    assert.match(step(plan, 'operator').actions[0]?.command ?? '', / -n ops -f /);
  });

  it('helm: --helm-repo, a chart of a repository of the user, and a chart file', () => {
    const helm = (flags: Parameters<typeof makeTarget>[0]) =>
      step(
        planUpgrade(
          makeSnapshot((s) => {
            if (s.operator) s.operator.helmRelease = { name: 'op', namespace: 'operators' };
          }),
          makeTarget({ method: 'helm', ...flags }),
        ),
        'operator',
      ).actions[0]?.command;
    assert.equal(
      helm({ helmRepo: 'http://127.0.0.1:8/charts' }),
      'helm upgrade op redis-enterprise-operator --version 7.8.2-6 --namespace operators --repo http://127.0.0.1:8/charts --reset-then-reuse-values',
    );
    assert.equal(
      helm({ helmChart: 'mine/redis-enterprise-operator' }),
      'helm upgrade op mine/redis-enterprise-operator --version 7.8.2-6 --namespace operators --reset-then-reuse-values',
    );
    assert.equal(
      helm({ helmChart: './charts/operator-7.8.2-6.tgz', helmRelease: 'other' }),
      'helm upgrade other ./charts/operator-7.8.2-6.tgz --version 7.8.2-6 --namespace operators --reset-then-reuse-values',
    );
  });

  it('the Plan JSON has exactly the CLI.md keys', () => {
    const plan = planUpgrade(makeSnapshot(), makeTarget());
    assert.deepEqual(Object.keys(plan), [
      'apiVersion',
      'kind',
      'cluster',
      'current',
      'target',
      'checks',
      'steps',
      'blocked',
      'fingerprint',
      // An addition to CLI.md's shape: the release catalog behind the plan.
      'catalog',
      // Another: what the roll will do to each database (check database-availability).
      'availability',
    ]);
    for (const s of plan.steps) assert.deepEqual(Object.keys(s), ['id', 'title', 'skip', 'actions']);
    // Actions keep description and command; the databases step adds `database` (an addition).
    for (const s of plan.steps) {
      for (const a of s.actions) {
        assert.deepEqual(
          Object.keys(a),
          s.id === 'databases' ? ['description', 'command', 'database'] : ['description', 'command'],
        );
      }
    }
    for (const c of plan.checks) assert.deepEqual(Object.keys(c), ['id', 'status', 'message', 'fix']);
    // JSON round trip keeps it whole (no undefined, no class instances)
    assert.deepEqual(JSON.parse(JSON.stringify(plan)), plan);
  });
});

describe('canonicalJson', () => {
  it('sorts keys and drops undefined', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: undefined, c: [2, { z: 1, y: 2 }] } }),
      '{"a":{"c":[2,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('writes every value as the key-sorting recursion does, lists without objects included', () => {
    // The recursion canonicalJson was before lists without objects went to JSON.stringify: a
    // saved plan's fingerprint must stay the same text's hash.
    const recursive = (value: unknown): string => {
      if (value === undefined) return 'null';
      if (value === null || typeof value !== 'object') return JSON.stringify(value);
      if (Array.isArray(value)) return `[${value.map(recursive).join(',')}]`;
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${recursive(v)}`).join(',')}}`;
    };
    const leaves = [
      '',
      'redis-002/db-00002',
      'quote " and \\ and \n',
      'é€\u2028',
      0,
      -0,
      1.5,
      NaN,
      Infinity,
      true,
      false,
      null,
      undefined,
    ];
    const values: unknown[] = [
      [],
      leaves,
      leaves.map((leaf, i) => [leaf, i, [leaf, leaves[(i + 3) % leaves.length]]]),
      [
        ['ns/a', 'uid-1', 2, undefined],
        ['ns/b', undefined, undefined, '7.2'],
      ],
      [1, { b: 2, a: [3, undefined] }, ['x', { d: null, c: undefined }]],
      {
        z: leaves,
        a: [
          [1, 'a'],
          [2, 'b'],
        ],
        m: { y: [{ b: 1, a: 2 }], x: [] },
      },
    ];
    for (const value of values) assert.equal(canonicalJson(value), recursive(value));
  });
});

describe('renderPlan', () => {
  it('shows components, checks with fixes, steps with commands and skip reasons', () => {
    const plan = planUpgrade(
      makeSnapshot((s) => {
        if (s.cluster) s.cluster.license = { state: 'Invalid' };
      }),
      makeTarget(),
    );
    const text = renderPlan(plan, false);
    assert.match(text, /Upgrade plan for rec/);
    assert.match(text, /operator\s+7\.4\.6-2 {2}-> 7\.8\.2-6 \(bundle\)/);
    assert.match(text, /cluster\s+7\.4\.6-22 {2}-> 7\.8\.2-60/);
    assert.match(text, /FAIL license-valid/);
    assert.match(text, /fix: Put a valid licence/);
    assert.match(text, /4\. security-context .*skip: not OpenShift/);
    assert.match(text, /\$ kubectl patch rec rec -n redis/);
    assert.match(text, /Blocked: license-valid failed\./);
    assert.ok(!text.includes('\u001b['), 'no colour codes');
    assert.ok(renderPlan(plan, true).includes('\u001b[31m'), 'red for the failure');
  });

  it('the databases row says what the databases step writes, not only the target version', () => {
    const moving = renderPlan(planUpgrade(makeSnapshot(), makeTarget()), false);
    assert.match(moving, /databases\s+7\.2 \(1\) {2}-> 7\.4\n/);
    const chooser = makeSnapshot((s) => {
      s.databases[0]!.versionSpec = 'major';
      s.databases.push({
        ...s.databases[0]!,
        uid: 'uid-db2',
        name: 'db2',
        databaseUid: '2',
        versionSpec: '7.2',
      });
    });
    const some = renderPlan(planUpgrade(chooser, makeTarget()), false);
    assert.match(some, /databases\s+7\.2 \(2\) {2}-> 7\.4 \(1 unchanged\)/);
    const none = renderPlan(planUpgrade(chooser, makeTarget({ databases: 'none' })), false);
    assert.match(none, /databases\s+7\.2 \(2\) {2}-> unchanged/);
  });
});
