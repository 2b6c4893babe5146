import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_KUBE_TARGET } from '../../../src/kube/kube-target.js';
import type { KubeObject } from '../../../src/kube/reads.js';
import { dialectFields } from '../../../src/release/dialect.js';
import {
  describeImagePullFailure,
  imagePullFailure,
  imagePullHint,
} from '../../../src/steps/monitor-image-pull.js';
import { stalledError } from '../../../src/steps/monitor-failures.js';

/** A node pod whose `waiting` container waits with `reason`, the other running. */
function pod(name: string, waiting: string | undefined, reason = 'ImagePullBackOff'): KubeObject {
  const containers = [
    { name: 'redis-enterprise-node', image: 'redislabs/redis:7.8.2-60' },
    { name: 'bootstrapper', image: `redislabs/operator:7.8.2-6@sha256:${'ab'.repeat(32)}` },
  ];
  return {
    metadata: { name },
    spec: { containers },
    status: {
      containerStatuses: containers.map((c) => ({
        name: c.name,
        image: c.image,
        state:
          c.name === waiting
            ? { waiting: { reason, message: `Back-off pulling image "${c.image}"` } }
            : { running: {} },
      })),
    },
  } as KubeObject;
}

const kube = DEFAULT_KUBE_TARGET;
const target = { name: 'rec', namespace: 'redis' };

test('the first pod (by name) waiting on an image is named with its container and image', () => {
  assert.equal(imagePullFailure([pod('rec-0', undefined), pod('rec-1', undefined)]), undefined);
  assert.equal(imagePullFailure([pod('rec-2', 'bootstrapper', 'CrashLoopBackOff')]), undefined, 'not a pull');
  const failure = imagePullFailure([
    pod('rec-2', 'bootstrapper'),
    pod('rec-10', 'redis-enterprise-node', 'ErrImagePull'),
  ]);
  assert.deepEqual(failure, {
    pod: 'rec-2',
    container: 'bootstrapper',
    image: `redislabs/operator:7.8.2-6@sha256:${'ab'.repeat(32)}`,
    reason: 'ImagePullBackOff',
  });
  assert.equal(
    describeImagePullFailure(failure!),
    `pod rec-2 cannot pull the image "redislabs/operator:7.8.2-6@sha256:${'ab'.repeat(32)}" of its container bootstrapper (ImagePullBackOff)`,
  );
});

test('the way out: a digest set or removed in the image spec of that container, a tag mirrored', () => {
  const fields = dialectFields('redis');
  const pinned = imagePullFailure([pod('rec-2', 'bootstrapper')])!;
  const hint = imagePullHint(pinned, target, fields, kube);
  assert.match(
    hint,
    /^The registry does not serve that image: read its answer with kubectl describe pod rec-2 -n redis; /,
  );
  assert.match(
    hint,
    /bootstrapperImageSpec\.digestHash names no image of redislabs\/operator: set it to the digest of redislabs\/operator:7\.8\.2-6 in that repository, or remove it \(kubectl patch rec rec -n redis --type merge -p '\{"spec":\{"bootstrapperImageSpec":\{"digestHash":null\}\}\}'\)/,
  );
  assert.match(hint, /run ctl again to resume\.$/);
  assert.match(
    imagePullHint(pinned, target, fields, kube, true),
    /ctl keeps waiting for it \(--stall-timeout\)\.$/,
  );

  const tagged = imagePullFailure([pod('rec-2', 'redis-enterprise-node')])!;
  assert.match(
    imagePullHint(tagged, target, fields, kube),
    /push or mirror redislabs\/redis:7\.8\.2-60 to the registry the nodes pull from, or set redisEnterpriseImageSpec\.repository to one that holds it/,
  );
  // The engine dialect's node image spec.
  assert.match(
    imagePullHint(tagged, target, dialectFields('engine'), kube),
    /engineEnterpriseImageSpec\.repository/,
  );
});

test('the stall error names the pod and the image, with the fix before the general look', () => {
  const fields = dialectFields('redis');
  const failure = imagePullFailure([pod('rec-2', 'bootstrapper')])!;
  const error = stalledError(
    { ...target, tag: '7.8.2-60', recApiVersion: 'app.redislabs.com/v1' },
    600_000,
    'cluster Upgrade, pods 0/3 upgraded',
    [],
    undefined,
    'redis',
    kube,
    { failure, fields },
  );
  assert.match(
    error.message,
    /made no progress for 10m .*; pod rec-2 cannot pull the image "redislabs\/operator:7\.8\.2-6@sha256:[a-f0-9]{64}" of its container bootstrapper \(ImagePullBackOff\)$/,
  );
  const hint = (error as { hint?: string }).hint ?? '';
  assert.ok(hint.startsWith('The registry does not serve that image'), hint);
  assert.match(hint, /Look at kubectl get rec rec -n redis/);
});
