import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { noReleaseFilesError } from '../../../src/planning/bundle-source.js';
import { releaseBundle } from '../../../src/planning/resolve.js';
import {
  checkUpgradePath,
  clusterTagFor,
  clusterTagsFor,
  gitTagFor,
  isRhel7OpenshiftTag,
  knownOperatorVersions,
  LAST_OPENSHIFT_RHEL7_RELEASE,
  missingTagReason,
  rhel7HopFor,
  taggedNeighboursOf,
} from '../../../src/release/catalog.js';
import { planUpgrade } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';

describe('re-published builds (release notes 7-2-4-releases/*, redis-facts.md §12)', () => {
  it('7.2.4-12 lists every re-published image, newest is the default', () => {
    assert.deepEqual(clusterTagsFor('7.2.4-12'), [
      '7.2.4-92',
      '7.2.4-105',
      '7.2.4-109',
      '7.2.4-117',
      '7.2.4-118',
      '7.2.4-122',
      '7.2.4-130',
    ]);
    assert.equal(clusterTagFor('7.2.4-12'), '7.2.4-130');
  });

  it('7.2.4-15 lists 7.2.4-138 and 7.2.4-144', () => {
    assert.deepEqual(clusterTagsFor('7.2.4-15'), ['7.2.4-138', '7.2.4-144']);
    assert.equal(clusterTagFor('7.2.4-15', 'openshift'), '7.2.4-144.rhel8-openshift');
  });
});

describe('OpenShift images', () => {
  it('7.4.6-6 on OpenShift is its newest notes image, 7.4.6-268.rhel8-openshift (June 2025), not the March one', () => {
    assert.equal(clusterTagFor('7.4.6-6', 'openshift'), '7.4.6-268.rhel8-openshift');
    assert.notEqual(clusterTagFor('7.4.6-6', 'openshift'), '7.4.6-232.rhel8-openshift');
  });

  it('a RHEL7 cluster keeps RHEL7 images up to 7.2.4-2', () => {
    const current = '6.2.18-65.rhel7-openshift';
    assert.ok(isRhel7OpenshiftTag(current));
    // 6.4.2-8 was re-published with 6.4.2-103 and 6.4.2-115 (its Dec 2023 and Oct 2024 notes).
    assert.equal(clusterTagFor('6.4.2-8', 'openshift', current), '6.4.2-115.rhel7-openshift');
    assert.equal(
      clusterTagFor(LAST_OPENSHIFT_RHEL7_RELEASE, 'openshift', current),
      '7.2.4-52.rhel7-openshift',
    );
    assert.equal(
      clusterTagFor('6.4.2-8', 'openshift', '6.2.18-65.rhel8-openshift'),
      '6.4.2-115.rhel8-openshift',
    );
    assert.equal(rhel7HopFor('7.2.4-2', current), undefined);
    assert.equal(rhel7HopFor('7.4.6-2', '6.2.18-65.rhel8-openshift'), undefined);
  });

  it('past 7.2.4-2 a RHEL7 cluster must hop through 7.2.4-2 with its RHEL7 image', () => {
    assert.deepEqual(rhel7HopFor('7.2.4-7', '6.4.2-94.rhel7-openshift'), {
      operator: '7.2.4-2',
      clusterTag: '7.2.4-52.rhel7-openshift',
    });
  });

  it('a RHEL7 cluster already on 7.2.4-2 has made the hop and may move on to RHEL8', () => {
    // "upgrade to version 7.2.4-2 with a RHEL7-based image, then you'll be able to migrate to a
    // RHEL8-based image" (DOCS kubernetes/7.4.6/upgrade/openshift-cli.md).
    assert.equal(rhel7HopFor('7.2.4-7', '7.2.4-52.rhel7-openshift'), undefined);
    assert.equal(rhel7HopFor('7.8.2-6', '7.2.4-52.rhel7-openshift'), undefined);
  });

  it('the plan blocks a RHEL7 cluster going past 7.2.4-2, naming the hop', () => {
    const snapshot = makeSnapshot((s) => {
      s.platform = 'openshift';
      s.operator!.version = '6.4.2-8';
      s.operator!.image = 'redislabs/operator:6.4.2-8';
      s.cluster!.image.versionTag = '6.4.2-94.rhel7-openshift';
      s.api.nodes = s.api.nodes.map((n) => ({ ...n, software_version: '6.4.2-94' }));
    });
    const plan = planUpgrade(snapshot, makeTarget({ to: '7.4.2-2', databases: 'none' }));
    const path = plan.checks.find((c) => c.id === 'upgrade-path')!;
    assert.equal(path.status, 'fail');
    assert.match(path.message, /RHEL7 image 6\.4\.2-94\.rhel7-openshift/);
    assert.match(
      path.fix,
      /--to 7\.2\.4-2 --cluster-version 7\.2\.4-52\.rhel7-openshift, then --to 7\.4\.2-2/,
    );
    assert.equal(plan.blocked, true);
  });
});

describe('releases without a git tag', () => {
  it('v7.4.6-6 does not exist: no tag, a reason, and 7.4.6-7 as the nearest tagged release', () => {
    assert.equal(gitTagFor('7.4.6-6'), undefined);
    assert.match(missingTagReason('7.4.6-6') ?? '', /no git tag v7\.4\.6-6/);
    assert.equal(taggedNeighboursOf('7.4.6-6')[0], '7.4.6-7');
    assert.equal(missingTagReason('7.4.6-7'), undefined);
  });

  it('the plan refuses a bundle upgrade to 7.4.6-6 before any change, naming --bundle and 7.4.6-11', () => {
    // On Kubernetes 1.30, which the 7.4.6 line supports: 7.4.6-7 is tagged, but
    // reaadb-empty-password affects it (fixed in 7.4.6-11), so the hint names 7.4.6-11.
    const snapshot = makeSnapshot((s) => {
      s.kubernetesVersion = 'v1.30.5';
    });
    assert.throws(
      () => planUpgrade(snapshot, makeTarget({ to: '7.4.6-6', databases: 'none' })),
      (error: UsageError) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, /no git tag v7\.4\.6-6/);
        assert.match(error.hint ?? '', /--bundle FILE_OR_URL with the bundle\.yaml of 7\.4\.6-6/);
        assert.match(
          error.hint ?? '',
          /--to 7\.4\.6-11, the nearest release with a tag, no known advisory and support for Kubernetes 1\.30\.$/,
        );
        return true;
      },
    );
  });

  it('--bundle makes it plannable', () => {
    const plan = planUpgrade(
      makeSnapshot(),
      makeTarget({ to: '7.4.6-6', databases: 'none', bundle: '/tmp/nowhere/bundle.yaml' }),
    );
    assert.equal(plan.target.operator, '7.4.6-6');
  });

  it('helm with watched namespaces still needs the release files: refused up front too', () => {
    const snapshot = makeSnapshot((s) => {
      s.operator!.helmRelease = { name: 'redis-enterprise-operator', namespace: 'redis' };
      s.watchedNamespaces = ['redis', 'apps'];
    });
    assert.throws(
      () => planUpgrade(snapshot, makeTarget({ to: '7.4.6-6', databases: 'none' })),
      /redb-role of the release are reapplied in apps/,
    );
    const alone = makeSnapshot((s) => {
      s.operator!.helmRelease = { name: 'redis-enterprise-operator', namespace: 'redis' };
    });
    assert.equal(planUpgrade(alone, makeTarget({ to: '7.4.6-6', databases: 'none' })).target.method, 'helm');
  });

  it('an upgrade-path hop is never a release without a trustworthy tag', () => {
    const known = knownOperatorVersions();
    for (const from of known) {
      for (const to of known) {
        const via = checkUpgradePath(clusterTagFor(from)!, clusterTagFor(to)!).via;
        if (via !== undefined) assert.notEqual(gitTagFor(via), undefined, `${from} -> ${to} via ${via}`);
      }
    }
  });

  it('the run-time bundle lookup has no upstream bundle to fall back on, and says the same', () => {
    assert.equal(releaseBundle({ bundle: undefined, operator: '7.4.6-6' }, 'kubernetes'), undefined);
    const error = noReleaseFilesError(
      '7.4.6-6',
      makeSnapshot((s) => {
        s.kubernetesVersion = 'v1.28.0';
      }),
      'the operator is upgraded from the release bundle',
    );
    assert.ok(error instanceof UsageError);
    assert.match(error.hint ?? '', /--to 7\.4\.6-11, the nearest release/);
    assert.match(error.message, /no git tag/);
  });
});
