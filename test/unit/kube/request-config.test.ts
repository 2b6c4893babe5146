import assert from 'node:assert/strict';
import { Agent as HttpsAgent } from 'node:https';
import { describe, it } from 'node:test';
import { requestConfig } from '../../../src/kube/request-config.js';

/** A config answering as client-node's does: a new agent on every call, the user's Authorization. */
function fakeConfig(authorization: () => string | undefined) {
  return {
    calls: 0,
    async applyToFetchOptions(options: object): Promise<unknown> {
      this.calls += 1;
      const headers = new Headers();
      const value = authorization();
      if (value) headers.set('authorization', value);
      return { ...options, agent: new HttpsAgent({ rejectUnauthorized: true }), headers };
    },
  };
}

describe('requestConfig: the one view every Kubernetes request goes through', () => {
  it('answers with one kept keep-alive agent, however often asked', async () => {
    const config = requestConfig(
      fakeConfig(() => undefined),
      () => {},
    );
    const first = (await config.applyToFetchOptions({})) as { agent: HttpsAgent };
    const second = (await config.applyToFetchOptions({})) as { agent: HttpsAgent };
    assert.equal(first.agent, second.agent);
    assert.equal((first.agent as HttpsAgent & { keepAlive?: boolean }).keepAlive, true);
  });

  it("reports each new Authorization header's credential, and a Basic one's password, once", async () => {
    let header: string | undefined = 'Bearer token-from-plugin-1';
    const reported: string[] = [];
    const config = requestConfig(
      fakeConfig(() => header),
      (secret) => reported.push(secret),
    );
    await config.applyToFetchOptions({});
    await config.applyToFetchOptions({});
    header = 'Bearer token-from-plugin-2';
    await config.applyToFetchOptions({});
    header = `Basic ${Buffer.from('admin:pa:ss').toString('base64')}`;
    await config.applyToFetchOptions({});
    assert.deepEqual(reported, [
      'token-from-plugin-1',
      'token-from-plugin-2',
      Buffer.from('admin:pa:ss').toString('base64'),
      'pa:ss',
    ]);
  });
});
