import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

/**
 * scripts/run-tests.mjs preloads scripts/test-module-hooks.mjs into every test file's process, so
 * that the compiled sources load client-node as ctl's bundle does: its config module without the
 * generated index (about 0.9 s of CPU per test file that reached KubeConfig), node-fetch without
 * whatwg-url. This file runs under that preload: client-node's KubeConfig loads through the two
 * modules it needs and still makes an API client and a request's options.
 */

interface HookRecord {
  redirected: string[];
}

describe('the test files load client-node as the bundle does', () => {
  it('KubeConfig without the generated index: the redirect happened, and the client it makes works', async () => {
    const record = (globalThis as Record<symbol, HookRecord | undefined>)[
      Symbol.for('ctl.test-module-hooks')
    ];
    assert.ok(
      record,
      'scripts/test-module-hooks.mjs is not preloaded: scripts/run-tests.mjs passes it with --import',
    );
    const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
    assert.ok(
      record.redirected.includes('client-node gen/index.js'),
      `client-node's config imported its generated index: ${JSON.stringify(record.redirected)}`,
    );
    assert.ok(
      record.redirected.includes('whatwg-url'),
      `node-fetch imported whatwg-url: ${JSON.stringify(record.redirected)}`,
    );

    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: false }],
      users: [{ name: 'u', token: 'not-a-secret' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const options: { headers?: Record<string, string> } = {};
    await config.applyToFetchOptions(options);
    assert.equal(options.headers?.Authorization, 'Bearer not-a-secret');
    // makeApiClient is what needs the two names the redirect keeps.
    class Probe {
      constructor(readonly configuration: { baseServer?: unknown }) {}
    }
    const client = config.makeApiClient(Probe as never) as unknown as Probe;
    assert.ok(client.configuration.baseServer, 'makeApiClient built a configuration with its server');
  });
});
