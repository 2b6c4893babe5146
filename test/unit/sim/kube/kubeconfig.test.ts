import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { kubeconfigYaml } from '../../../../src/sim/kube/kubeconfig.js';

describe('the simulator kubeconfig', () => {
  // Found by the generated-world test (test/worlds/found/namespace-y-read-as-a-boolean.yaml):
  // helm failed with "cannot unmarshal bool into Go struct field Context.contexts.context.namespace".
  it('keeps a namespace such as y, no or on a string for go-yaml v2 (YAML 1.1) readers like helm', () => {
    for (const namespace of ['y', 'no', 'on', 'off', 'yes', 'n', '0755']) {
      const text = kubeconfigYaml({ server: 'https://127.0.0.1:1', caPem: 'ca', token: 't', namespace });
      const config = parse(text, { version: '1.1' }) as { contexts: { context: { namespace: unknown } }[] };
      assert.equal(config.contexts[0]?.context.namespace, namespace);
    }
  });
});
