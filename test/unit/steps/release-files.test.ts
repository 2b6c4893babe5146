import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { releaseFilesOfPlan } from '../../../src/planning/plan.js';
import { resolveUpgrade, resolveVersions } from '../../../src/planning/resolve.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { targetReached } from '../../../src/planning/target-reached.js';
import { clusterTagFor, gitTagFor } from '../../../src/release/catalog.js';
import { planUpgrade, releaseFilesRead, STEPS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';

/**
 * Every file of the release tree the run fetches, by step, method and state
 * (src/steps/release-files.ts), and the plan's refusal of a target whose files it cannot locate:
 * 7.8.6-11 has no trustworthy upstream tag (its tag holds 8.0.10-21's bundle, redis-facts.md §1),
 * so without --bundle only a run that reads none of them may be planned.
 */

const UNTAGGED = '7.8.6-11';
const TAG = clusterTagFor(UNTAGGED) ?? '';

/** The operator already at UNTAGGED (ready), the cluster not: the cluster step has work. */
function operatorAtTarget(mutate: (s: Snapshot) => void = () => {}): Snapshot {
  return makeSnapshot((s) => {
    s.operator!.version = UNTAGGED;
    s.operator!.image = `redislabs/operator:${UNTAGGED}`;
    mutate(s);
  });
}

function helm(s: Snapshot): void {
  s.operator!.helmRelease = { name: 'redis-enterprise-operator', namespace: 'redis' };
}

function openshift(s: Snapshot): void {
  s.platform = 'openshift';
  s.openshiftVersion = '4.19.2';
  s.scc = { name: 'redis-enterprise-scc-v2', present: true, users: ['system:serviceaccount:redis:rec'] };
}

function olm(s: Snapshot): void {
  openshift(s);
  s.olm = { csv: `redis-enterprise-operator.v${UNTAGGED}`, installPlans: [] };
}

/** The UsageError of an untagged release, naming `why`, --bundle and the nearest tagged release. */
function refusedFor(why: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof UsageError, String(error));
    assert.match(error.message, new RegExp(`^no upstream release files for operator ${UNTAGGED}: `));
    assert.match(error.message, /holds another release's bundle \(8\.0\.10-21\)/);
    assert.match(error.message, why);
    assert.match(
      error.hint ?? '',
      /^Pass --bundle FILE_OR_URL with the (openshift\.)?bundle\.yaml of 7\.8\.6-11/,
    );
    // The fixture's Kubernetes 1.32, or OpenShift 4.19 here, which the 7.8.6 line supports:
    // 7.8.6-13 to -19 are tagged but reaadb-empty-password affects them
    // (src/planning/release-neighbour.ts).
    assert.match(
      error.hint ?? '',
      /, or upgrade to --to 7\.8\.6-20, the nearest release with a tag, no known advisory and support for (Kubernetes 1\.32|OpenShift 4\.19)\.$/,
    );
    return true;
  };
}

const target = (flags: Parameters<typeof makeTarget>[0] = {}) =>
  makeTarget({ to: UNTAGGED, databases: 'none', ...flags });

describe('release files the run fetches, and a release without a trustworthy tag', () => {
  it('the test release has no tag', () => {
    assert.equal(gitTagFor(UNTAGGED), undefined);
  });

  it('bundle method, operator already at the target, cluster not: the admission step reads webhook.yaml, refused', () => {
    assert.throws(
      () => planUpgrade(operatorAtTarget(), target()),
      refusedFor(/the admission step applies the release's webhook \(admission\/webhook\.yaml\)/),
    );
    assert.throws(
      () => planUpgrade(operatorAtTarget(), target()),
      (error: UsageError) =>
        /\(its admission\/webhook\.yaml next to it, as in the release tree\)/.test(error.hint ?? ''),
    );
  });

  it('the same with --bundle: planned, and the admission step acts', () => {
    const plan = planUpgrade(operatorAtTarget(), target({ bundle: '/srv/release/{version}/bundle.yaml' }));
    assert.equal(plan.steps.find((s) => s.id === 'admission')?.skip, null);
  });

  it('a run that skips the admission step reads no release file: planned', () => {
    const plan = planUpgrade(operatorAtTarget(), { ...target(), steps: { only: [], skip: ['admission'] } });
    assert.equal(plan.target.operator, UNTAGGED);
  });

  it('a cluster already at the target: the run ends before any step and reads nothing, so nothing is refused', () => {
    const plan = planUpgrade(
      operatorAtTarget((s) => {
        s.cluster!.image.versionTag = TAG;
        for (const node of s.api.nodes) node.software_version = TAG;
        s.databases[0]!.statusVersion = '7.4.2';
        s.api.bdbs[0]!.redis_version = '7.4';
      }),
      target(),
    );
    assert.equal(targetReached(plan), true, JSON.stringify(plan.steps.map((s) => [s.id, s.skip])));
    assert.equal(
      plan.steps.find((s) => s.id === 'admission')?.skip,
      'redis-enterprise-admission is current and trusts admission-tls',
    );
  });

  it('helm, operator at the target, on Kubernetes: the chart manages the webhook, nothing to fetch, planned', () => {
    const plan = planUpgrade(operatorAtTarget(helm), target());
    assert.equal(plan.target.method, 'helm');
    assert.equal(
      plan.steps.find((s) => s.id === 'admission')?.skip,
      'the helm chart manages the admission webhook',
    );
  });

  it('helm, operator not yet at the target, watching another namespace: the redb-role files, refused', () => {
    assert.throws(
      () =>
        planUpgrade(
          makeSnapshot((s) => {
            helm(s);
            s.watchedNamespaces = ['redis', 'apps'];
          }),
          target(),
        ),
      refusedFor(/the Role and RoleBinding redb-role of the release are reapplied in apps/),
    );
  });

  it('helm on OpenShift, operator at the target: the security-context step applies scc.yaml, refused', () => {
    assert.throws(
      () =>
        planUpgrade(
          operatorAtTarget((s) => (helm(s), openshift(s))),
          target(),
        ),
      refusedFor(/the security-context step applies redis-enterprise-scc-v2 of the release/),
    );
  });

  it('OLM owning the webhook, operator at the target: the SCC alone, refused', () => {
    const owned = operatorAtTarget((s) => {
      olm(s);
      s.webhooks[0]!.olmOwner = `redis-enterprise-operator.v${UNTAGGED}`;
    });
    assert.throws(
      () => planUpgrade(owned, target()),
      (error: UsageError) => {
        refusedFor(/the security-context step applies redis-enterprise-scc-v2/)(error);
        assert.doesNotMatch(error.message, /webhook/);
        return true;
      },
    );
  });

  it('OLM with a webhook applied by hand, operator at the target: the webhook and the SCC, refused', () => {
    assert.throws(
      () => planUpgrade(operatorAtTarget(olm), target()),
      refusedFor(/admission\/webhook\.yaml\); the security-context step applies redis-enterprise-scc-v2/),
    );
  });

  it('the files by step follow each step plan that acts (releaseFilesOfPlan)', () => {
    const snapshot = operatorAtTarget((s) => (olm(s), (s.watchedNamespaces = ['redis', 'apps'])));
    const withBundle = target({ bundle: '/srv/{version}/openshift.bundle.yaml' });
    const plan = planUpgrade(snapshot, withBundle);
    const context = {
      snapshot,
      target: withBundle,
      resolved: resolveUpgrade(snapshot, withBundle),
      checks: [],
    };
    // The operator is at the target: its step does not act, so no redb-role files.
    assert.deepEqual(
      releaseFilesOfPlan(STEPS, plan.steps, context).map((u) => u.file),
      ['admission/webhook.yaml', 'openshift/scc.yaml'],
    );
  });

  it('the target-available probes ask for the same files next to the bundle, OLM and the operator state included', () => {
    const bundle = '/srv/{version}/openshift.bundle.yaml';
    const at = operatorAtTarget((s) => (olm(s), (s.watchedNamespaces = ['redis', 'apps'])));
    const t = target({ bundle });
    assert.deepEqual(releaseFilesRead(at, resolveVersions(at, t), t), [
      'admission/webhook.yaml',
      'openshift/scc.yaml',
    ]);
    const before = makeSnapshot((s) => (s.watchedNamespaces = ['redis', 'apps']));
    const b = target({ bundle: '/srv/{version}/bundle.yaml' });
    assert.deepEqual(releaseFilesRead(before, resolveVersions(before, b), b), [
      'multi-namespace-redb/role.yaml',
      'multi-namespace-redb/role_binding.yaml',
      'admission/webhook.yaml',
    ]);
  });
});
