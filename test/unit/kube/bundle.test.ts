import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { OperationError } from '../../../src/errors.js';
import { releaseBundle } from '../../../src/planning/resolve.js';
import { loadManifests, orderForApply, parseManifests, siblingLocation } from '../../../src/kube/bundle.js';

const YAML = `---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: op
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
---
# an empty document
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: hook
webhooks:
  - name: x.admission.redislabs
    clientConfig:
      service: { namespace: OPERATOR_NAMESPACE }
`;

describe('bundle locations', () => {
  it('takes --bundle (CTL_BUNDLE arrives as --bundle) with {version} replaced', () => {
    assert.equal(
      releaseBundle({ bundle: 'http://h/b/{version}/bundle.yaml', operator: '7.8.2-6' }, 'kubernetes'),
      'http://h/b/7.8.2-6/bundle.yaml',
    );
  });

  it('defaults to the upstream file of the platform, and has none for releases without a trustworthy tag', () => {
    assert.equal(
      releaseBundle({ bundle: undefined, operator: '7.8.2-6' }, 'openshift'),
      'https://raw.githubusercontent.com/RedisLabs/redis-enterprise-k8s-docs/v7.8.2-6/openshift.bundle.yaml',
    );
    assert.equal(releaseBundle({ bundle: undefined, operator: '7.4.6-9' }, 'kubernetes'), undefined);
  });

  it('finds the files next to the bundle, for URLs and paths', () => {
    assert.equal(
      siblingLocation('http://h/b/7.8.2-6/bundle.yaml', 'admission/webhook.yaml'),
      'http://h/b/7.8.2-6/admission/webhook.yaml',
    );
    assert.equal(
      siblingLocation('/r/7.8.2-6/bundle.yaml', 'multi-namespace-redb/role.yaml'),
      '/r/7.8.2-6/multi-namespace-redb/role.yaml',
    );
    assert.equal(siblingLocation('file:///r/bundle.yaml', 'a.yaml'), '/r/a.yaml');
  });
});

describe('parseManifests', () => {
  it('parses every document, skips empty ones, sets the namespace on namespaced objects and replaces text', () => {
    const objects = parseManifests(YAML, 'test.yaml', {
      namespace: 'redis',
      replacements: { OPERATOR_NAMESPACE: 'redis' },
    });
    assert.deepEqual(
      objects.map((o) => [o.kind, o.metadata?.namespace]),
      [
        ['ServiceAccount', 'redis'],
        ['CustomResourceDefinition', undefined],
        ['ValidatingWebhookConfiguration', undefined],
      ],
    );
    assert.match(JSON.stringify(objects[2]), /"namespace":"redis"/);
    assert.deepEqual(
      orderForApply(objects).map((o) => o.kind),
      ['CustomResourceDefinition', 'ServiceAccount', 'ValidatingWebhookConfiguration'],
    );
  });

  it('rejects what is not a manifest', () => {
    assert.throws(() => parseManifests('<html>', 'page'), OperationError);
    assert.throws(() => parseManifests('a: [', 'broken'), /not valid YAML/);
    assert.throws(() => parseManifests('---\n', 'empty'), /holds no Kubernetes objects/);
  });
});

describe('parseManifests of a manifest that is not YAML', () => {
  const secret = 'Bundle-Secret-9912';

  it('says the source, the place and what is wrong, quoting nothing of the text', () => {
    const cases: [string, RegExp][] = [
      [
        `kind: Secret\nstringData: {password: *${secret}}\n`,
        /^b\.yaml is not valid YAML: line 2, column \d+: an alias whose anchor is not set before it$/,
      ],
      // \U takes 8 hex digits: the parser's own message quotes the 8 characters it read.
      [
        `kind: Secret\nstringData: {password: "\\U${secret.slice(0, 8)}"}\n`,
        /^b\.yaml is not valid YAML: line 2, column \d+: expected hexadecimal character$/,
      ],
      [
        `kind: Secret\nstringData:\n  password: ${secret}\n    key: x\n`,
        /^b\.yaml is not valid YAML: line 4, column \d+: bad indentation of a mapping entry$/,
      ],
    ];
    for (const [text, expected] of cases) {
      assert.throws(
        () => parseManifests(text, 'b.yaml'),
        (error: unknown) => {
          assert.ok(error instanceof OperationError, String(error));
          assert.match(error.message, expected);
          assert.ok(!error.message.includes(secret.slice(0, 8)), error.message);
          assert.match(error.hint ?? '', /--bundle/);
          return true;
        },
        text,
      );
    }
  });

  it('a mapping used as a key is read without a warning that quotes it', async () => {
    const warnings: unknown[] = [];
    const listen = (warning: unknown) => warnings.push(warning);
    process.on('warning', listen);
    try {
      const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n  ? {password: ${secret}}\n  : x\n`;
      assert.equal(parseManifests(text, 'b.yaml').length, 1);
      // process.emitWarning delivers on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    assert.deepEqual(warnings, []);
  });
});

describe('loadManifests over HTTP', () => {
  it('downloads with undici and reports HTTP errors with a hint', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/7.8.2-6/bundle.yaml') {
        res.writeHead(200, { 'content-type': 'application/yaml' }).end(YAML);
      } else {
        res.writeHead(404).end('not found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const objects = await loadManifests(`${base}/7.8.2-6/bundle.yaml`, { namespace: 'ns', env: {} });
      assert.equal(objects.length, 3);
      await assert.rejects(loadManifests(`${base}/missing.yaml`, { env: {} }), (error: Error) => {
        assert.ok(error instanceof OperationError);
        assert.match(error.message, /HTTP 404/);
        assert.match(error.hint ?? '', /--bundle/);
        return true;
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('names a missing file', async () => {
    await assert.rejects(
      loadManifests('/nonexistent/bundle.yaml'),
      /cannot read \/nonexistent\/bundle\.yaml: no such file/,
    );
  });
});
