import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkReleaseAdvisories } from '../../../src/planning/advisories.js';
import { checkPlatformSupported } from '../../../src/planning/platform.js';
import { neighbourAdvice, neighbourToSuggest } from '../../../src/planning/release-neighbour.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { isAffectedByAny } from '../../../src/release/advisories.js';
import { gitTagFor, knownOperatorVersions, taggedNeighboursOf } from '../../../src/release/catalog.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

/**
 * The release the refusal of an untagged target names instead (src/planning/release-neighbour.ts):
 * the nearest tagged release of the line that the plan of `--to <it>` neither refuses nor warns
 * against for its release (no advisory, supported on this cluster's platform version), or none.
 */

function onKubernetes(version: string): Snapshot {
  return makeSnapshot((s) => {
    s.kubernetesVersion = `v${version}.4`;
  });
}

function onOpenshift(version: string | undefined): Snapshot {
  return makeSnapshot((s) => {
    s.platform = 'openshift';
    s.kubernetesVersion = 'v1.31.2';
    s.openshiftVersion = version;
  });
}

describe('taggedNeighboursOf: the line-mates with a trustworthy tag, nearest first', () => {
  it('7.8.6-11: the newer ones oldest first, then the older ones newest first', () => {
    const order = taggedNeighboursOf('7.8.6-11');
    assert.deepEqual(order.slice(0, 2), ['7.8.6-13', '7.8.6-14']);
    assert.equal(order.indexOf('7.8.6-20') < order.indexOf('7.8.6-8'), true);
    assert.deepEqual(order.slice(-2), ['7.8.6-2', '7.8.6-1']);
    assert.equal(order.includes('7.8.6-11'), false);
    for (const release of order) assert.notEqual(gitTagFor(release), undefined, release);
  });

  it('7.4.6-6 skips 7.4.6-9, whose tag holds another release', () => {
    assert.equal(taggedNeighboursOf('7.4.6-6').includes('7.4.6-9'), false);
    assert.equal(taggedNeighboursOf('7.4.6-6')[0], '7.4.6-7');
  });
});

describe('neighbourToSuggest: a release the plan of --to <it> takes on this cluster', () => {
  it('7.8.6-11 on Kubernetes 1.32: 7.8.6-20, not 7.8.6-13 (reaadb-empty-password affects 7.8.6-13 to -19)', () => {
    assert.equal(isAffectedByAny('7.8.6-13'), true);
    const choice = neighbourToSuggest('7.8.6-11', onKubernetes('1.32'));
    assert.equal(choice.release, '7.8.6-20');
    assert.equal(choice.qualities, 'a tag, no known advisory and support for Kubernetes 1.32');
    assert.equal(choice.caveat, undefined);
    assert.equal(
      neighbourAdvice('7.8.6-11', onKubernetes('1.32')),
      ', or upgrade to --to 7.8.6-20, the nearest release with a tag, no known advisory and support for Kubernetes 1.32.',
    );
  });

  it('7.8.6-11 on Kubernetes 1.33, newer than the whole line lists: none, and the target list to look at', () => {
    const snapshot = onKubernetes('1.33');
    assert.equal(neighbourToSuggest('7.8.6-11', snapshot).release, undefined);
    assert.equal(
      neighbourAdvice('7.8.6-11', snapshot),
      '. No other 7.8.6 release has a tag, no known advisory and support for Kubernetes 1.33: `ctl upgrade plan` lists the targets this cluster can take.',
    );
  });

  it('a deprecated platform version warns, so it does not qualify either (7.8.6 deprecates Kubernetes 1.29)', () => {
    assert.equal(neighbourToSuggest('7.8.6-11', onKubernetes('1.29')).release, undefined);
  });

  it('7.4.6-6 on Kubernetes 1.30: 7.4.6-11, past 7.4.6-7 (affected) and 7.4.6-9 (no tag)', () => {
    assert.equal(neighbourToSuggest('7.4.6-6', onKubernetes('1.30')).release, '7.4.6-11');
  });

  it('OpenShift: judged on the OpenShift version (7.8.6 supports 4.19, deprecates 4.16)', () => {
    assert.equal(neighbourToSuggest('7.8.6-11', onOpenshift('4.19.3')).release, '7.8.6-20');
    assert.equal(neighbourToSuggest('7.8.6-11', onOpenshift('4.16.0')).release, undefined);
  });

  it('an unread OpenShift version: tag and advisories only, and the hint says support was not judged', () => {
    const choice = neighbourToSuggest('7.8.6-11', onOpenshift(undefined));
    assert.equal(choice.release, '7.8.6-20');
    assert.equal(
      neighbourAdvice('7.8.6-11', onOpenshift(undefined)),
      ", or upgrade to --to 7.8.6-20, the nearest release with a tag and no known advisory (ctl could not read the cluster's OpenShift version to judge support for it).",
    );
  });

  it('every untagged release, on every platform version the catalog names: a named release passes both checks', () => {
    const untagged = knownOperatorVersions().filter((v) => gitTagFor(v) === undefined);
    assert.ok(untagged.length >= 3, untagged.join(', '));
    const snapshots = [
      ...['1.26', '1.28', '1.30', '1.31', '1.32', '1.33', '1.35'].map(onKubernetes),
      ...['4.14', '4.17', '4.19', '4.21'].map(onOpenshift),
    ];
    let named = 0;
    for (const operator of untagged)
      for (const snapshot of snapshots) {
        const release = neighbourToSuggest(operator, snapshot).release;
        if (!release) continue;
        named++;
        const target = makeTarget({ to: release, databases: 'none' });
        const where = `${operator} -> ${release} on ${snapshot.openshiftVersion ?? snapshot.kubernetesVersion}`;
        assert.notEqual(gitTagFor(release), undefined, where);
        assert.equal(checkReleaseAdvisories(snapshot, target).status, 'pass', where);
        assert.equal(checkPlatformSupported(snapshot, target).status, 'pass', where);
      }
    assert.ok(named > 0, 'some untagged release has a release to name');
  });
});
