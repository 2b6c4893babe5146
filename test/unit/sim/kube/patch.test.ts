import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import jsonpatch from 'fast-json-patch';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  PatchError,
} from '../../../../src/sim/kube/patch.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The smallest merge patch turning `from` into `to` (valid when `to` holds no null member). */
function mergeDiff(from: unknown, to: unknown): unknown {
  if (!isObject(from) || !isObject(to)) return to;
  const patch: Record<string, unknown> = {};
  // defineProperty: a `__proto__` member must stay a member.
  const set = (key: string, value: unknown) =>
    Object.defineProperty(patch, key, { value, enumerable: true, writable: true, configurable: true });
  for (const key of Object.keys(from)) if (!Object.hasOwn(to, key)) set(key, null);
  for (const [key, value] of Object.entries(to)) {
    if (!Object.hasOwn(from, key)) set(key, value);
    else if (!isDeepStrictEqual(from[key], value)) set(key, mergeDiff(from[key], value));
  }
  return patch;
}

/** Every key anywhere in a value. */
function allKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(allKeys);
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => [key, ...allKeys(item)]);
}

const key = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), minLength: 1, maxLength: 2 });
/** JSON values whose object members are never null (a merge patch cannot express a null member). */
const { value: nullFreeJson } = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 3 }),
    fc.integer(),
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4, noNullPrototype: true }),
  ),
}));
const anyJson = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>;

describe('applyMergePatch (RFC 7386)', () => {
  it('follows the examples of RFC 7386 appendix A', () => {
    const cases: [Json, Json, Json][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [
        ['a', 'b'],
        ['c', 'd'],
        ['c', 'd'],
      ],
      [{ a: 'b' }, ['c'], ['c']],
      [{ a: 'foo' }, null, null],
      [{ a: 'foo' }, 'bar', 'bar'],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, expected] of cases) {
      assert.deepEqual(applyMergePatch(target, patch), expected, JSON.stringify({ target, patch }));
    }
  });

  it('reproduces the target from a diff-generated patch', () => {
    fc.assert(
      fc.property(anyJson, nullFreeJson, (from, to) => {
        assert.deepEqual(applyMergePatch(from, mergeDiff(from, to)), to);
      }),
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(anyJson, anyJson, (target, patch) => {
        const once = applyMergePatch(target, patch);
        assert.deepEqual(applyMergePatch(once, patch), once);
      }),
    );
  });

  it('keeps a __proto__ member a member', () => {
    const result = applyMergePatch(
      { a: {} },
      JSON.parse('{"__proto__": {"polluted": true}, "a": {"__proto__": 1}}'),
    );
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.deepEqual(Object.keys(result as object), ['a', '__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const strategic = applyStrategicMergePatch(
      {},
      JSON.parse('{"__proto__": {"polluted": true}}'),
      'ConfigMap',
    );
    assert.equal(Object.getPrototypeOf(strategic), Object.prototype);
    assert.deepEqual(Object.keys(strategic as object), ['__proto__']);
  });

  it('never mutates its inputs, nor shares structure with them', () => {
    fc.assert(
      fc.property(anyJson, anyJson, (target, patch) => {
        const [targetBefore, patchBefore] = [structuredClone(target), structuredClone(patch)];
        const result = applyMergePatch(target, patch);
        if (isObject(result)) (result as Record<string, unknown>).zz = 1;
        assert.deepEqual(target, targetBefore);
        assert.deepEqual(patch, patchBefore);
      }),
    );
    const target = { metadata: { labels: { a: '1' } }, spec: { nodes: 3 } };
    const result = applyMergePatch(target, { spec: { nodes: 5 } }) as typeof target;
    result.metadata.labels.a = 'changed';
    assert.equal(target.metadata.labels.a, '1');
  });
});

describe('applyJsonPatch (RFC 6902)', () => {
  const rec = { spec: { nodes: 3, image: { versionTag: '7.4.6-22' } }, metadata: { finalizers: ['a', 'b'] } };

  it('applies add, remove, replace, move, copy and test', () => {
    const result = applyJsonPatch(rec, [
      { op: 'test', path: '/spec/nodes', value: 3 },
      { op: 'replace', path: '/spec/nodes', value: 5 },
      { op: 'add', path: '/metadata/finalizers/-', value: 'c' },
      { op: 'remove', path: '/metadata/finalizers/0' },
      { op: 'copy', from: '/spec/image', path: '/spec/oldImage' },
      { op: 'move', from: '/spec/oldImage/versionTag', path: '/spec/previousTag' },
    ]);
    assert.deepEqual(result, {
      spec: { nodes: 5, image: { versionTag: '7.4.6-22' }, oldImage: {}, previousTag: '7.4.6-22' },
      metadata: { finalizers: ['b', 'c'] },
    });
    assert.equal(rec.spec.nodes, 3, 'the target is not mutated');
  });

  it('refuses a body that is not an array with the API server 400', () => {
    for (const [body, word] of [
      [{ spec: { nodes: 5 } }, 'object'],
      ['x', 'string'],
      [3, 'number'],
      [true, 'bool'],
    ] as const) {
      assert.throws(
        () => applyJsonPatch(rec, body),
        (error: unknown) =>
          error instanceof PatchError &&
          error.code === 400 &&
          error.message === `json: cannot unmarshal ${word} into Go value of type []handlers.jsonPatchOp`,
      );
    }
  });

  it('treats a null body as an empty patch', () => {
    assert.deepEqual(applyJsonPatch(rec, null), rec);
  });

  it('answers 422 when an operation fails, with the reason as a cause', () => {
    const expectFailure = (ops: unknown, cause: RegExp) =>
      assert.throws(
        () => applyJsonPatch(rec, ops),
        (error: unknown) =>
          error instanceof PatchError &&
          error.code === 422 &&
          error.message === 'the server rejected our request due to an error in our request' &&
          cause.test(error.causes[0] ?? ''),
      );
    expectFailure([{ op: 'test', path: '/spec/nodes', value: 4 }], /^testing value \/spec\/nodes failed/);
    expectFailure([{ op: 'remove', path: '/spec/missing' }], /missing path: "\/spec\/missing"/);
    expectFailure([{ op: 'replace', path: '/nothing/here', value: 1 }], /missing path/);
    expectFailure([{ op: 'frobnicate', path: '/spec' }], /Unexpected kind: frobnicate/);
    expectFailure([{ path: '/spec' }], /missing "op"/);
  });

  it('is all or nothing', () => {
    const before = structuredClone(rec);
    assert.throws(() =>
      applyJsonPatch(rec, [
        { op: 'replace', path: '/spec/nodes', value: 9 },
        { op: 'test', path: '/spec/nodes', value: 3 },
      ]),
    );
    assert.deepEqual(rec, before);
  });

  it('reproduces the target from a generated patch', () => {
    const object = fc.dictionary(key, nullFreeJson, { maxKeys: 4, noNullPrototype: true });
    fc.assert(
      fc.property(object, object, (from, to) => {
        assert.deepEqual(applyJsonPatch(from, jsonpatch.compare(from, to)), to);
      }),
    );
  });
});

describe('applyStrategicMergePatch', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'op', finalizers: ['a'], labels: { app: 'x' } },
    spec: {
      replicas: 1,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
      template: {
        spec: {
          containers: [
            {
              name: 'operator',
              image: 'redislabs/operator:7.4.6-2',
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
              ports: [{ containerPort: 8080, name: 'http' }],
              volumeMounts: [{ mountPath: '/etc/cert', name: 'cert' }],
            },
            { name: 'sidecar', image: 'busybox' },
          ],
          tolerations: [{ key: 'a', operator: 'Exists' }],
          volumes: [{ name: 'cert', secret: { secretName: 'admission-tls' } }],
        },
      },
    },
  };
  type Deployment = typeof deployment;
  const patchDeployment = (patch: unknown) =>
    applyStrategicMergePatch(deployment, patch, 'Deployment') as Deployment;

  function assertNoDirective(value: unknown): void {
    assert.deepEqual(
      allKeys(value).filter((k) => k.startsWith('$')),
      [],
    );
  }

  it('merges containers by name and env by name', () => {
    const result = patchDeployment({
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'operator', image: 'redislabs/operator:7.8.6-2', env: [{ name: 'B', value: '3' }] },
            ],
          },
        },
      },
    });
    const [operator, sidecar] = result.spec.template.spec.containers;
    assert.equal(operator?.image, 'redislabs/operator:7.8.6-2');
    assert.deepEqual(operator?.env, [
      { name: 'A', value: '1' },
      { name: 'B', value: '3' },
    ]);
    assert.deepEqual(operator?.ports, [{ containerPort: 8080, name: 'http' }]);
    assert.deepEqual(sidecar, { name: 'sidecar', image: 'busybox' });
    assert.equal(deployment.spec.template.spec.containers[0]?.image, 'redislabs/operator:7.4.6-2');
  });

  it('appends list elements with a new merge key, and keys ports by containerPort', () => {
    const result = patchDeployment({
      spec: {
        template: {
          spec: {
            containers: [{ name: 'operator', ports: [{ containerPort: 9090, name: 'metrics' }] }],
            volumes: [{ name: 'extra', emptyDir: {} }],
          },
        },
      },
    });
    assert.deepEqual(result.spec.template.spec.containers[0]?.ports, [
      { containerPort: 8080, name: 'http' },
      { containerPort: 9090, name: 'metrics' },
    ]);
    assert.deepEqual(
      result.spec.template.spec.volumes.map((v) => v.name),
      ['cert', 'extra'],
    );
  });

  it('replaces lists without a merge key (tolerations) and merges finalizers', () => {
    const result = patchDeployment({
      metadata: { finalizers: ['b', 'a'] },
      spec: { template: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } } },
    });
    assert.deepEqual(result.spec.template.spec.tolerations, [{ key: 'b', operator: 'Exists' }]);
    assert.deepEqual(result.metadata.finalizers, ['a', 'b']);
  });

  it('honours $patch: delete on a list element and $patch: replace on a list and a map', () => {
    const deleted = patchDeployment({
      spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } },
    });
    assert.deepEqual(
      deleted.spec.template.spec.containers.map((c) => c.name),
      ['operator'],
    );

    const replaced = patchDeployment({
      spec: { template: { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] } } },
    });
    assert.deepEqual(replaced.spec.template.spec.containers, [{ name: 'only', image: 'x' }]);

    const replacedMap = patchDeployment({ metadata: { labels: { $patch: 'replace', fresh: 'yes' } } });
    assert.deepEqual(replacedMap.metadata.labels, { fresh: 'yes' });

    const emptied = patchDeployment({ metadata: { labels: { $patch: 'delete' } } });
    assert.deepEqual(emptied.metadata.labels, {});
    for (const result of [deleted, replaced, replacedMap, emptied]) assertNoDirective(result);
  });

  it('honours $retainKeys (kubectl apply switching the deployment strategy)', () => {
    const result = patchDeployment({
      spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } },
    });
    assert.deepEqual(result.spec.strategy, { type: 'Recreate' });
    assertNoDirective(result);
  });

  it('honours $deleteFromPrimitiveList', () => {
    const target = { metadata: { finalizers: ['a', 'b', 'c'] } };
    const result = applyStrategicMergePatch(
      target,
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'], finalizers: ['d'] } },
      'Secret',
    );
    assert.deepEqual(result, { metadata: { finalizers: ['a', 'c', 'd'] } });
  });

  it('orders lists by $setElementOrder, keeping unmentioned live elements in place, and strips it', () => {
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'new' }, { name: 'operator' }],
            containers: [
              { name: 'new', image: 'n' },
              { name: 'operator', image: 'redislabs/operator:8' },
            ],
          },
        },
      },
    };
    const result = patchDeployment(patch);
    assert.deepEqual(
      result.spec.template.spec.containers.map((c) => c.name),
      ['new', 'operator', 'sidecar'],
    );
    assertNoDirective(result);

    const list = { items: [{ name: 'a' }, { name: 'x' }, { name: 'b' }, { name: 'c' }] };
    const reordered = applyStrategicMergePatch(
      { spec: { template: { spec: { containers: list.items } } } },
      {
        spec: {
          template: {
            spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }, { name: 'a' }] },
          },
        },
      },
      'Deployment',
    ) as { spec: { template: { spec: { containers: { name: string }[] } } } };
    // Like mergeSortedSlice: 'x' (not in the order) came live before 'c', so it stays before it.
    assert.deepEqual(
      reordered.spec.template.spec.containers.map((c) => c.name),
      ['x', 'c', 'b', 'a'],
    );

    const finalizers = applyStrategicMergePatch(
      { metadata: { finalizers: ['a', 'b'] } },
      { metadata: { '$setElementOrder/finalizers': ['b', 'a'] } },
      'Secret',
    );
    assert.deepEqual(finalizers, { metadata: { finalizers: ['b', 'a'] } });
  });

  it('merges the admission caBundle patch into the webhook by name', () => {
    const webhookConfiguration = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'redis-enterprise-admission' },
      webhooks: [
        {
          name: 'redisenterprise.admission.redislabs',
          clientConfig: { service: { name: 'admission', namespace: 'redis', path: '/admission' } },
          rules: [
            { apiGroups: ['app.redislabs.com'], operations: ['*'], resources: ['redisenterprisedatabases'] },
          ],
          sideEffects: 'None',
        },
      ],
    };
    const result = applyStrategicMergePatch(
      webhookConfiguration,
      { webhooks: [{ name: 'redisenterprise.admission.redislabs', clientConfig: { caBundle: 'Q0E=' } }] },
      'ValidatingWebhookConfiguration',
    ) as typeof webhookConfiguration;
    assert.equal(result.webhooks.length, 1);
    assert.deepEqual(result.webhooks[0]?.clientConfig, {
      service: { name: 'admission', namespace: 'redis', path: '/admission' },
      caBundle: 'Q0E=',
    });
    assert.deepEqual(result.webhooks[0]?.rules, webhookConfiguration.webhooks[0]?.rules);
  });

  it('refuses a body that is not an object like the API server, and treats null as no change', () => {
    assert.throws(
      () => applyStrategicMergePatch(deployment, [{ op: 'add' }], 'Deployment'),
      (error: unknown) =>
        error instanceof PatchError &&
        error.code === 400 &&
        error.message === 'json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
    assert.deepEqual(applyStrategicMergePatch(deployment, null, 'Deployment'), deployment);
  });

  it('keys Service ports by port', () => {
    const service = { spec: { ports: [{ port: 443, targetPort: 8443 }] } };
    const result = applyStrategicMergePatch(
      service,
      { spec: { ports: [{ port: 443, name: 'https' }] } },
      'Service',
    );
    assert.deepEqual(result, { spec: { ports: [{ port: 443, targetPort: 8443, name: 'https' }] } });
  });

  it('refuses a merge-list element without its merge key', () => {
    assert.throws(
      () => patchDeployment({ spec: { template: { spec: { containers: [{ image: 'x' }] } } } }),
      (error: unknown) =>
        error instanceof PatchError &&
        /does not contain declared merge key: name/.test(error.causes[0] ?? ''),
    );
  });

  it('never lets a directive into a new subtree', () => {
    const result = applyStrategicMergePatch(
      { metadata: { name: 'x' } },
      {
        spec: {
          strategy: { $retainKeys: ['type'], type: 'Recreate' },
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'a' }],
              containers: [
                { name: 'a', '$setElementOrder/env': [{ name: 'E' }], env: [{ name: 'E', value: '1' }] },
              ],
              tolerations: [{ key: 't', $patch: 'merge' }],
            },
          },
        },
      },
      'Deployment',
    );
    assertNoDirective(result);
    assert.deepEqual(result, {
      metadata: { name: 'x' },
      spec: {
        strategy: { type: 'Recreate' },
        template: {
          spec: {
            containers: [{ name: 'a', env: [{ name: 'E', value: '1' }] }],
            tolerations: [{ key: 't' }],
          },
        },
      },
    });
  });

  it('never lets a directive survive, whatever the patch', () => {
    const patchKey = fc.constantFrom(
      'containers',
      'env',
      'name',
      'image',
      'finalizers',
      'tolerations',
      '$patch',
      '$retainKeys',
      '$setElementOrder/containers',
      '$deleteFromPrimitiveList/finalizers',
    );
    const { value: patchValue } = fc.letrec<{ value: Json }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('replace', 'delete', 'merge', 'a', 'b'),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(patchKey, tie('value'), { maxKeys: 4, noNullPrototype: true }),
      ),
    }));
    fc.assert(
      fc.property(fc.dictionary(patchKey, patchValue, { maxKeys: 4, noNullPrototype: true }), (patch) => {
        let result: unknown;
        try {
          result = applyStrategicMergePatch(deployment, patch, 'Deployment');
        } catch (error) {
          if (error instanceof PatchError) return;
          throw error;
        }
        assertNoDirective(result);
      }),
      { numRuns: 300 },
    );
  });

  it('behaves as a JSON merge patch when no list or directive is involved', () => {
    const listFree = fc.letrec<{ value: Json }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ maxLength: 3 }),
        fc.integer(),
        fc.constant(null),
        fc.dictionary(key, tie('value'), { maxKeys: 4, noNullPrototype: true }),
      ),
    })).value;
    const object = fc.dictionary(key, listFree, { maxKeys: 4, noNullPrototype: true });
    fc.assert(
      fc.property(object, object, (target, patch) => {
        assert.deepEqual(
          applyStrategicMergePatch(target, patch, 'ConfigMap'),
          applyMergePatch(target, patch),
        );
      }),
    );
  });

  it('never mutates its inputs', () => {
    const before = structuredClone(deployment);
    const patch = {
      spec: {
        template: { spec: { containers: [{ name: 'operator', env: [{ name: 'A', $patch: 'delete' }] }] } },
      },
    };
    const patchBefore = structuredClone(patch);
    patchDeployment(patch);
    assert.deepEqual(deployment, before);
    assert.deepEqual(patch, patchBefore);
  });
});
