import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseImageReference } from '../../../src/release/image-reference.js';

describe('parseImageReference', () => {
  it('splits repository, tag and digest; a registry port is not a tag', () => {
    assert.deepEqual(parseImageReference('redislabs/redis:7.8.2-60'), {
      repository: 'redislabs/redis',
      tag: '7.8.2-60',
      digest: undefined,
    });
    assert.deepEqual(parseImageReference('registry:5000/redislabs/operator:v8.0.20-23@sha256:ab'), {
      repository: 'registry:5000/redislabs/operator',
      tag: 'v8.0.20-23',
      digest: 'sha256:ab',
    });
    assert.deepEqual(parseImageReference('registry:5000/redislabs/operator@sha256:ab'), {
      repository: 'registry:5000/redislabs/operator',
      tag: undefined,
      digest: 'sha256:ab',
    });
  });
});
