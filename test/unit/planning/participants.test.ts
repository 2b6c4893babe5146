/**
 * Where a participant's credentials may go (src/planning/participants.ts, issue 35): only the
 * RERC's documented Secret, never the local REC's own, and only to a host name with the port
 * of spec.apiPort. Every refusal says why.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/reads.js';
import { participantEndpoint, participantSecret } from '../../../src/planning/participants.js';

function rerc(spec: Record<string, unknown>): KubeObject {
  return { metadata: { name: 'east', namespace: 'redis' }, spec } as unknown as KubeObject;
}

describe('participantEndpoint', () => {
  it('takes a host name and the port of spec.apiPort (443 by default)', () => {
    assert.deepEqual(participantEndpoint(rerc({ apiFqdnUrl: 'api-east.example.com', apiPort: 8443 })), {
      host: 'api-east.example.com',
      port: 8443,
    });
    assert.deepEqual(participantEndpoint(rerc({ apiFqdnUrl: 'api.example.com' })), {
      host: 'api.example.com',
      port: 443,
    });
  });

  const refused: [string, RegExp][] = [
    ['127.0.0.1:18511/#', /port or an IPv6 address|path/],
    ['evil.example.com:444', /names a port/],
    ['evil.example.com/#', /path, a query or a fragment/],
    ['api.example.com?x=1', /path, a query or a fragment/],
    ['admin:pw@evil.example.com', /user information/],
    ['https://api.example.com', /has a scheme/],
    ['10.0.0.8', /IP address/],
    ['[::1]', /port or an IPv6 address/],
    ['::1', /port or an IPv6 address/],
    ['api example.com', /not a host name/],
    ['-api.example.com', /not a host name/],
    ['a'.repeat(64) + '.example.com', /not a host name/],
  ];
  for (const [host, why] of refused) {
    it(`refuses ${JSON.stringify(host)}, saying why`, () => {
      const result = participantEndpoint(rerc({ apiFqdnUrl: host, apiPort: 443 }));
      assert.equal(typeof result, 'string', JSON.stringify(result));
      assert.match(String(result), why);
      assert.match(String(result), /ctl sends no credentials/);
    });
  }

  it('refuses a port that is not one', () => {
    for (const port of [0, 70000, 1.5, '443', -1]) {
      assert.match(
        String(participantEndpoint(rerc({ apiFqdnUrl: 'api.example.com', apiPort: port }))),
        /not a port/,
      );
    }
  });
});

describe('participantSecret', () => {
  const cluster = { name: 'rec', credentialSecretName: 'rec' };
  it('is redis-enterprise-<RERC name>, set or not', () => {
    assert.equal(participantSecret(rerc({}), 'east', cluster), 'redis-enterprise-east');
    assert.equal(
      participantSecret(rerc({ secretName: 'redis-enterprise-east' }), 'east', cluster),
      'redis-enterprise-east',
    );
  });
  it("refuses any other Secret, the local cluster's own above all", () => {
    const own = participantSecret(rerc({ secretName: 'rec' }), 'east', cluster);
    assert.match(JSON.stringify(own), /is not redis-enterprise-east.*this cluster's own admin Secret/);
    const other = participantSecret(rerc({ secretName: 'some-secret' }), 'east', cluster);
    assert.match(JSON.stringify(other), /"some-secret\\" is not redis-enterprise-east/);
  });
  it('refuses the documented name when it is the local admin Secret', () => {
    const result = participantSecret(rerc({}), 'east', {
      name: 'rec',
      credentialSecretName: 'redis-enterprise-east',
    });
    assert.match(JSON.stringify(result), /this cluster's own admin Secret/);
  });
});
