import assert from 'node:assert/strict';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { afterEach, before, describe, it } from 'node:test';
import { endCommand } from '../../../src/io/command-end.js';
import { keepAliveAgent } from '../../../src/kube/agent.js';
import { createCertificateAuthority, createServerCertificate } from '../../../src/sim/tls.js';

/**
 * src/kube/agent.ts keeps one pool per TLS settings and compares a request's settings with the
 * kept ones value by value: client-node builds new option objects (a new Buffer of the same CA)
 * for every request.
 */
describe('the kept pool of a request: one per TLS settings, compared by value', () => {
  const pem = { caOne: '', caTwo: '', certOne: '', keyOne: '', certTwo: '', keyTwo: '' };
  before(async () => {
    const one = await createCertificateAuthority('agent test CA one');
    const two = await createCertificateAuthority('agent test CA two');
    const clientOne = await createServerCertificate(one);
    const clientTwo = await createServerCertificate(one);
    Object.assign(pem, {
      caOne: one.certPem,
      caTwo: two.certPem,
      certOne: clientOne.certPem,
      keyOne: clientOne.keyPem,
      certTwo: clientTwo.certPem,
      keyTwo: clientTwo.keyPem,
    });
  });
  afterEach(() => endCommand());

  it('the same CA, client certificate and server name in new objects: the same pool', () => {
    // As client-node builds them for each request: new Buffers of the same bytes.
    const settings = () => ({
      ca: Buffer.from(pem.caOne),
      cert: Buffer.from(pem.certOne),
      key: Buffer.from(pem.keyOne),
      servername: 'api.example',
      rejectUnauthorized: true,
    });
    const first = keepAliveAgent(new HttpsAgent(settings()));
    assert.ok(first instanceof HttpsAgent);
    assert.equal(keepAliveAgent(new HttpsAgent(settings())), first);
    assert.equal(keepAliveAgent(new HttpsAgent(settings())), first);
  });

  it('another CA, client certificate, server name or verification: another pool', () => {
    const base = {
      ca: Buffer.from(pem.caOne),
      cert: Buffer.from(pem.certOne),
      key: Buffer.from(pem.keyOne),
      servername: 'a',
      rejectUnauthorized: true,
    };
    const others = [
      { ...base, ca: Buffer.from(pem.caTwo) },
      { ...base, cert: Buffer.from(pem.certTwo), key: Buffer.from(pem.keyTwo) },
      { ...base, servername: 'b' },
      { ...base, rejectUnauthorized: false },
      { ...base, ca: [Buffer.from(pem.caOne), Buffer.from(pem.caTwo)] },
      // The same PEM as a string: another value, another pool.
      { ...base, ca: pem.caOne },
    ];
    const first = keepAliveAgent(new HttpsAgent(base));
    const pools = others.map((options) => keepAliveAgent(new HttpsAgent(options)));
    assert.equal(new Set([first, ...pools]).size, others.length + 1, 'a pool for each');
    others.forEach((options, i) => {
      const again = {
        ...options,
        ca: Array.isArray(options.ca) ? options.ca.map((b) => Buffer.from(b)) : options.ca,
      };
      assert.equal(keepAliveAgent(new HttpsAgent(again)), pools[i], `the same pool again for settings ${i}`);
    });
  });

  it('a plain http pool is never an https one', () => {
    const plain = keepAliveAgent(new HttpAgent());
    const tls = keepAliveAgent(new HttpsAgent());
    assert.notEqual(plain, tls);
    assert.ok(plain instanceof HttpAgent && !(plain instanceof HttpsAgent));
    assert.ok(tls instanceof HttpsAgent);
  });
});
