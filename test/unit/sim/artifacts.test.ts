import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { parseYamlDocuments } from '../../../src/io/yaml-from-outside.js';
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';
import {
  bundleObjects,
  bundleYaml,
  redbRoleBindingYaml,
  redbRoleYaml,
  webhookYaml,
} from '../../../src/sim/artifacts/bundles.js';
import { chartFiles, renderChart } from '../../../src/sim/artifacts/chart.js';
import { type RunningArtifactsServer, startArtifactsServer } from '../../../src/sim/artifacts/server.js';
import { packTgz } from '../../../src/sim/artifacts/tgz.js';
import { releasedOperatorVersions } from '../../../src/sim/world/releases.js';

type Doc = { kind: string; metadata: { name: string }; [key: string]: unknown };

// ctl's own reader of manifests: what kubectl reads, the published bundles' quoting included.
const docs = (text: string): Doc[] =>
  parseYamlDocuments(text).filter((doc): doc is Doc => doc !== null && doc !== undefined) as Doc[];

/** Names of the files in a tar archive (ustar headers, 512-byte blocks). */
function tarEntries(tar: Buffer): { name: string; body: string }[] {
  const entries: { name: string; body: string }[] = [];
  let offset = 0;
  while (offset + 512 <= tar.length && tar[offset] !== 0) {
    const name = tar
      .subarray(offset, offset + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    const size = Number.parseInt(
      tar
        .subarray(offset + 124, offset + 136)
        .toString('utf8')
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    entries.push({ name, body: tar.subarray(offset + 512, offset + 512 + size).toString('utf8') });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

describe('artifacts: bundles', () => {
  // test/upstream/artifacts.test.ts compares the kinds and names with the upstream bundle's.
  test('bundle.yaml: one Deployment, Recreate, the operator and admission containers', () => {
    const ours = docs(bundleYaml('7.8.2-6', 'redis', 'kubernetes'));
    const deployment = ours.find((doc) => doc.kind === 'Deployment') as unknown as {
      spec: {
        strategy: { type: string };
        template: { spec: { containers: { name: string; image: string }[] } };
      };
    };
    assert.equal(deployment.spec.strategy.type, 'Recreate');
    assert.deepEqual(
      deployment.spec.template.spec.containers.map((c) => [c.name, c.image]),
      [
        ['redis-enterprise-operator', 'redislabs/operator:7.8.2-6'],
        ['admission', 'redislabs/operator:7.8.2-6'],
      ],
    );
  });

  test('the CRDs follow the dialect', () => {
    const field = (dialect: 'engine' | 'redis') =>
      JSON.stringify(
        bundleObjects('7.8.2-6', dialect, 'kubernetes').find((o) => o.kind === 'CustomResourceDefinition'),
      );
    assert.match(field('redis'), /redisEnterpriseImageSpec/);
    assert.match(field('engine'), /engineEnterpriseImageSpec/);
  });

  test('openshift.bundle.yaml: RHEL image, IS_OPENSHIFT=true, routes and nonroot-v2 in the Role', () => {
    const ours = docs(bundleYaml('7.8.2-6', 'redis', 'openshift'));
    const text = JSON.stringify(ours);
    assert.match(text, /registry\.connect\.redhat\.com\/redislabs\/redis-enterprise-operator:7\.8\.2-6/);
    assert.match(text, /"name":"IS_OPENSHIFT","value":"true"/);
    const role = ours.find((doc) => doc.kind === 'Role') as unknown as {
      rules: { apiGroups: string[]; resourceNames?: string[] }[];
    };
    assert.ok(role.rules.some((rule) => rule.apiGroups.includes('route.openshift.io')));
    assert.ok(role.rules.some((rule) => rule.resourceNames?.includes('nonroot-v2')));
    assert.doesNotMatch(bundleYaml('7.8.2-6', 'redis', 'kubernetes'), /route\.openshift\.io/);
  });

  test('before 6.4.2 the webhook is redb-admission with the old placeholder', () => {
    const [legacy] = docs(webhookYaml('6.2.10-45'));
    assert.equal(legacy?.metadata.name, 'redb-admission');
    assert.match(JSON.stringify(legacy), /redb\.admission\.redislabs/);
    assert.match(JSON.stringify(legacy), /NAMESPACE_OF_SERVICE_ACCOUNT/);
  });

  // test/upstream/artifacts.test.ts compares the binding's subjects and roleRef with upstream's.
  test('multi-namespace role and binding are named redb-role', () => {
    const [role] = docs(redbRoleYaml());
    const [binding] = docs(redbRoleBindingYaml());
    assert.equal(role?.kind, 'Role');
    assert.equal(role?.metadata.name, 'redb-role');
    assert.equal(binding?.kind, 'RoleBinding');
    assert.equal((binding?.roleRef as { name?: string } | undefined)?.name, 'redb-role');
  });
});

describe('artifacts: helm chart', () => {
  test('chart files: Chart.yaml, values.yaml defaults, templates, crds/', () => {
    const files = new Map(chartFiles('7.8.2-6', 'redis').map((file) => [file.path, file.content]));
    assert.deepEqual(parse(files.get('Chart.yaml') ?? ''), {
      apiVersion: 'v2',
      name: 'redis-enterprise-operator',
      description: 'Redis Enterprise operator (ctl simulator chart)',
      type: 'application',
      version: '7.8.2-6',
      appVersion: '7.8.2-6',
      kubeVersion: '>=1.23.0-0',
    });
    assert.deepEqual(parse(files.get('values.yaml') ?? ''), {
      operator: { image: { tag: '7.8.2-6' } },
      openshift: { mode: false, scc: { install: true } },
      admission: { limitToNamespace: true },
    });
    assert.match(
      files.get('templates/operator_deployment.yaml') ?? '',
      /\{\{- if \.Values\.openshift\.mode \}\}/,
    );
    assert.match(
      files.get('templates/webhook.yaml') ?? '',
      /redis-enterprise-admission-\{\{ \.Release\.Namespace \}\}/,
    );
    assert.equal([...files.keys()].filter((path) => path.startsWith('crds/')).length, 3);
  });

  test('renderChart: per-namespace webhook by default, RHEL image in openshift mode', () => {
    const plain = renderChart('7.8.2-6', 'redis', 'prod');
    assert.match(plain.manifest, /# Source: redis-enterprise-operator\/templates\/operator_deployment\.yaml/);
    const webhook = plain.templates.find((t) => t.object.kind === 'ValidatingWebhookConfiguration')
      ?.object as Doc;
    assert.equal(webhook.metadata.name, 'redis-enterprise-admission-prod');
    const openshift = renderChart('7.8.2-6', 'redis', 'prod', {
      openshift: { mode: true },
      admission: { limitToNamespace: false },
    });
    assert.match(openshift.manifest, /registry\.connect\.redhat\.com/);
    assert.match(openshift.manifest, /name: redis-enterprise-admission\n/);
  });

  test('archives are deterministic', async () => {
    const files = [{ path: 'a/Chart.yaml', content: 'x: 1\n' }];
    assert.deepEqual(await packTgz(files), await packTgz(files));
  });
});

describe('artifacts: server', () => {
  let server: RunningArtifactsServer;
  before(async () => {
    server = await startArtifactsServer({ dialect: 'engine', versions: ['7.4.6-2', '7.8.2-6'] });
  });
  after(async () => {
    await server.close();
  });

  test('index.yaml lists each version with the sha256 of its archive and a relative url', async () => {
    const index = parse(await (await fetch(`${server.url}/index.yaml`)).text()) as {
      apiVersion: string;
      entries: Record<
        string,
        { version: string; appVersion: string; digest: string; urls: string[]; created: string }[]
      >;
    };
    assert.equal(index.apiVersion, 'v1');
    const entries = index.entries['redis-enterprise-operator'] ?? [];
    assert.deepEqual(
      entries.map((entry) => entry.version),
      ['7.8.2-6', '7.4.6-2'],
    );
    for (const entry of entries) {
      assert.equal(entry.appVersion, entry.version);
      assert.ok(entry.created);
      const archive = Buffer.from(await (await fetch(`${server.url}/${entry.urls[0]}`)).arrayBuffer());
      assert.equal(createHash('sha256').update(archive).digest('hex'), entry.digest);
      const names = tarEntries(gunzipSync(archive)).map((file) => file.name);
      assert.ok(names.includes('redis-enterprise-operator/Chart.yaml'), names.join(', '));
      assert.ok(names.includes('redis-enterprise-operator/templates/operator_deployment.yaml'));
    }
  });

  test('bundle files per version; unknown versions and paths are 404; only GET and HEAD', async () => {
    for (const file of [
      'bundle.yaml',
      'openshift.bundle.yaml',
      'admission/webhook.yaml',
      'multi-namespace-redb/role.yaml',
      'multi-namespace-redb/role_binding.yaml',
    ]) {
      const response = await fetch(`${server.url}/bundles/7.8.2-6/${file}`);
      assert.equal(response.status, 200, file);
      assert.ok(docs(await response.text()).length >= 1, file);
    }
    // A git-tag style `v` prefix is accepted, as in the upstream URLs.
    assert.equal((await fetch(`${server.url}/bundles/v7.8.2-6/bundle.yaml`)).status, 200);
    assert.equal((await fetch(`${server.url}/bundles/8.2.0-13/bundle.yaml`)).status, 404);
    assert.equal((await fetch(`${server.url}/bundles/7.8.2-6/nothing.yaml`)).status, 404);
    assert.equal((await fetch(`${server.url}/redis-enterprise-operator-1.0.0-1.tgz`)).status, 404);
    assert.equal((await fetch(`${server.url}/index.yaml`, { method: 'POST' })).status, 405);
    const head = await fetch(`${server.url}/bundles/7.8.2-6/bundle.yaml`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.ok(Number(head.headers.get('content-length')) > 0);
  });

  test('by default every catalog version is served', async () => {
    const all = await startArtifactsServer({ dialect: 'redis' });
    try {
      for (const version of [releasedOperatorVersions()[0], releasedOperatorVersions().at(-1)]) {
        assert.equal((await fetch(`${all.url}/bundles/${version}/bundle.yaml`)).status, 200, version);
      }
    } finally {
      await all.close();
    }
  });
});
