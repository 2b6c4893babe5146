import assert from 'node:assert/strict';
import { test } from 'node:test';
import { imageDigest } from '../../../src/sim/olm/objects.js';
import { pullReleaseImage } from '../../../src/sim/world/registry.js';

/** The simulated registry's rule for release images (operator, bootstrapper, rigger, call-home). */

const RELEASES = ['7.4.6-2', '7.8.2-6'];

test('by tag: a release tag pulls, any other tag is not found', () => {
  assert.deepEqual(pullReleaseImage('redislabs/k8s-controller:7.8.2-6', RELEASES), {
    pulled: true,
    tag: '7.8.2-6',
  });
  const missing = pullReleaseImage('redislabs/k8s-controller:7.8.2-99', RELEASES);
  assert.equal(missing.pulled, false);
  assert.match(!missing.pulled ? missing.message : '', /redislabs\/k8s-controller:7\.8\.2-99: not found$/);
  assert.equal(pullReleaseImage('redislabs/k8s-controller', RELEASES).pulled, false, 'no tag, no digest');
});

test('by digest: the digest decides, the tag is a label', () => {
  const digest = imageDigest('redislabs/operator:7.4.6-2');
  assert.deepEqual(pullReleaseImage(`redislabs/operator:7.8.2-6@${digest}`, RELEASES), {
    pulled: true,
    tag: '7.4.6-2',
  });
  assert.deepEqual(pullReleaseImage(`redislabs/operator@${digest}`, RELEASES), {
    pulled: true,
    tag: '7.4.6-2',
  });
  // Another repository's digest of the same tag names nothing here.
  const other = imageDigest('registry.connect.redhat.com/redislabs/redis-enterprise-operator:7.4.6-2');
  assert.equal(pullReleaseImage(`redislabs/operator:7.4.6-2@${other}`, RELEASES).pulled, false);
  // A registry port is no tag.
  const mirrored = imageDigest('mirror:5000/redislabs/operator:7.8.2-6');
  assert.deepEqual(pullReleaseImage(`mirror:5000/redislabs/operator@${mirrored}`, RELEASES), {
    pulled: true,
    tag: '7.8.2-6',
  });
  // The digest of a version the registry does not hold.
  assert.equal(
    pullReleaseImage(`redislabs/operator@${imageDigest('redislabs/operator:9.9.9-9')}`, RELEASES).pulled,
    false,
  );
});
