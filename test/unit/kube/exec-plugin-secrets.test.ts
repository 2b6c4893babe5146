/**
 * The secrets a kubeconfig hands its credential plugin or auth provider (src/kube/exec-plugin.ts
 * pluginSecrets) are found for the redactor, and the settings that are not secret are left
 * alone, so the plugin's words in an error stay readable.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pluginSecrets } from '../../../src/kube/exec-plugin.js';

describe('pluginSecrets', () => {
  it('takes the values of secret-named environment variables and flags, in both flag forms', () => {
    const found = pluginSecrets({
      exec: {
        command: 'kubelogin',
        args: [
          'get-token',
          '--oidc-client-secret=s3cret-a',
          '--token',
          's3cret-b',
          '--region',
          'eu-west-1',
          '--api-key',
        ],
        env: [
          { name: 'AZURE_CLIENT_SECRET', value: 's3cret-c' },
          { name: 'AWS_PROFILE', value: 'production' },
          { name: 'VAULT_TOKEN', value: 's3cret-d' },
        ],
      },
    });
    assert.deepEqual(found.sort(), ['s3cret-a', 's3cret-b', 's3cret-c', 's3cret-d']);
  });

  it("takes an auth provider's secret settings (an OIDC client secret and refresh token)", () => {
    const found = pluginSecrets({
      authProvider: {
        name: 'oidc',
        config: {
          'client-id': 'kube',
          'client-secret': 'oidc-s3cret',
          'refresh-token': 'oidc-refresh',
          'idp-issuer-url': 'https://issuer.example',
        },
      },
    });
    assert.deepEqual(found.sort(), ['oidc-refresh', 'oidc-s3cret']);
  });

  it('is empty for a user without a plugin, and ignores settings of the wrong type', () => {
    assert.deepEqual(pluginSecrets(undefined), []);
    assert.deepEqual(pluginSecrets({ token: 't' }), []);
    assert.deepEqual(pluginSecrets({ exec: { args: 'not-a-list', env: [{ name: 'TOKEN', value: 7 }] } }), []);
  });
});
