/**
 * The simulator's artifacts (src/sim/artifacts: what its helm repository and bundle URLs serve)
 * against the operator's published ones: same objects, same webhook, same role binding.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseYamlDocuments } from '../../src/io/yaml-from-outside.js';
import { parseManifests } from '../../src/kube/bundle.js';
import { bundleYaml, redbRoleBindingYaml, webhookYaml } from '../../src/sim/artifacts/bundles.js';
import { upstreamFile } from './support.js';

type Doc = { kind: string; metadata: { name: string }; [key: string]: unknown };

// ctl's own reader of manifests: what kubectl reads, the published bundles' quoting included.
const docs = (text: string): Doc[] =>
  parseYamlDocuments(text).filter((doc): doc is Doc => doc !== null && doc !== undefined) as Doc[];

describe('artifacts against the upstream manifests', () => {
  test('bundle.yaml holds what the upstream bundle holds (kinds and names)', () => {
    const ours = docs(bundleYaml('7.8.2-6', 'redis', 'kubernetes'));
    const upstream = docs(readFileSync(upstreamFile('bundle.yaml'), 'utf8'));
    assert.ok(upstream.length > 5, 'the upstream bundle parses');
    const key = (doc: Doc) => `${doc.kind}/${doc.metadata.name}`;
    const ourKeys = new Set(ours.map(key));
    for (const doc of upstream) {
      // The remote-cluster CRD is not simulated.
      if (doc.metadata.name === 'redisenterpriseremoteclusters.app.redislabs.com') continue;
      assert.ok(ourKeys.has(key(doc)), `missing ${key(doc)}`);
    }
  });

  test('webhook.yaml matches the upstream one in name, entry, service and placeholder', () => {
    const [ours] = docs(webhookYaml('7.8.2-6'));
    const [upstream] = docs(readFileSync(upstreamFile('admission-webhook.yaml'), 'utf8'));
    const shape = (doc: Doc | undefined) => {
      const webhook = ((doc?.webhooks ?? []) as { name: string; clientConfig: unknown; rules: unknown }[])[0];
      return {
        kind: doc?.kind,
        name: doc?.metadata.name,
        entry: webhook?.name,
        clientConfig: webhook?.clientConfig,
        rules: webhook?.rules,
      };
    };
    assert.ok(upstream, 'the upstream webhook parses');
    assert.deepEqual(shape(ours), shape(upstream));
  });

  test('the multi-namespace role binding has the upstream subjects and roleRef', () => {
    const [binding] = docs(redbRoleBindingYaml());
    const [upstreamBinding] = docs(
      readFileSync(upstreamFile('multi-namespace-redb-role-binding.yaml'), 'utf8'),
    );
    assert.ok(upstreamBinding, 'the upstream binding parses');
    assert.deepEqual(binding?.subjects, upstreamBinding.subjects);
    assert.deepEqual(binding?.roleRef, upstreamBinding.roleRef);
  });

  test('ctl reads every published bundle as kubectl does (its quoting included), each object whole', () => {
    for (const file of ['bundle.yaml', 'openshift.bundle.yaml', 'bundle-v7.22.2-40.yaml']) {
      const objects = parseManifests(readFileSync(upstreamFile(file), 'utf8'), file, { namespace: 'ns-a' });
      const crd = objects.find((o) => o.metadata?.name === 'redisenterpriseclusters.app.redislabs.com') as
        { spec: { versions: { schema: { openAPIV3Schema: unknown } }[] } } | undefined;
      assert.ok(crd, `${file}: the cluster CRD`);
      // The description the `yaml` package refused: one line, folded as Go's parser folds it.
      const schema = JSON.stringify(crd.spec.versions[0]?.schema.openAPIV3Schema);
      assert.match(
        schema,
        /"additional volume mounts within the redis enterprise containers\. More info: https:\/\/kubernetes\.io\/docs\/concepts\/storage\/volumes\/"/,
        file,
      );
      assert.ok(
        objects.some((o) => o.kind === 'Deployment' && o.metadata?.namespace === 'ns-a'),
        file,
      );
    }
  });
});
