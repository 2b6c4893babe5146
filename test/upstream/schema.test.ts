/**
 * The Kubernetes API emulator's CRD schema handling (validation messages, pruning, defaults)
 * with the operator's published CRDs and examples; test/unit/sim/kube/schema.test.ts covers the
 * same functions with small schemas of its own.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { applySchemaDefaults, compileCrdValidator, pruneUnknownFields } from '../../src/sim/kube/schema.js';
import { upstreamFile } from './support.js';

type Json = Record<string, unknown>;

function loadYaml(file: string): Json[] {
  return parseAllDocuments(readFileSync(upstreamFile(file), 'utf8')).map((d) => d.toJS() as Json);
}

interface CrdVersion {
  name: string;
  schema: { openAPIV3Schema: Json };
}

function crdSchemas(file: string): Map<string, Json> {
  const [crd] = loadYaml(file) as { spec: { versions: CrdVersion[] } }[];
  assert.ok(crd);
  return new Map(crd.spec.versions.map((v) => [v.name, v.schema.openAPIV3Schema]));
}

const recSchemas = crdSchemas('crd-rec.yaml');
const redbSchemas = crdSchemas('crd-redb.yaml');
const recV1 = recSchemas.get('v1')!;
const redbSchema = redbSchemas.get('v1alpha1')!;
const example = (file: string) => loadYaml(file)[0]!;

describe('compileCrdValidator with the upstream CRDs', () => {
  it('compiles every version of every upstream CRD', () => {
    for (const file of ['crd-rec.yaml', 'crd-redb.yaml', 'crd-reaadb.yaml', 'crd-rerc.yaml']) {
      for (const [version, schema] of crdSchemas(file)) {
        // Compilation happens on first use; an empty object is valid against every upstream schema.
        assert.deepEqual(compileCrdValidator(schema)({}), [], `${file} ${version}`);
      }
    }
  });

  it('caches validators by schema identity', () => {
    assert.equal(compileCrdValidator(recV1), compileCrdValidator(recV1));
    const rerc = crdSchemas('crd-rerc.yaml').get('v1alpha1')!;
    assert.notEqual(compileCrdValidator(rerc), compileCrdValidator(structuredClone(rerc)));
  });

  it('accepts the upstream examples', () => {
    assert.deepEqual(compileCrdValidator(recV1)(example('example-rec-v1.yaml')), []);
    assert.deepEqual(
      compileCrdValidator(recSchemas.get('v1alpha1')!)(example('example-rec-v1alpha1.yaml')),
      [],
    );
    assert.deepEqual(compileCrdValidator(redbSchema)(example('example-redb-v1alpha1.yaml')), []);
    const reaadb = crdSchemas('crd-reaadb.yaml').get('v1alpha1')!;
    assert.deepEqual(compileCrdValidator(reaadb)(example('example-reaadb-v1alpha1.yaml')), []);
    const rerc = crdSchemas('crd-rerc.yaml').get('v1alpha1')!;
    assert.deepEqual(compileCrdValidator(rerc)(example('example-rerc-v1alpha1.yaml')), []);
  });

  it('reports a wrong type as Kubernetes does', () => {
    const rec = example('example-rec-v1.yaml');
    (rec.spec as Json).nodes = 'three';
    assert.deepEqual(compileCrdValidator(recV1)(rec), [
      {
        field: 'spec.nodes',
        reason: 'FieldValueTypeInvalid',
        message: 'Invalid value: "string": spec.nodes in body must be of type integer: "string"',
      },
    ]);
  });

  it('treats x-kubernetes-int-or-string as integer or string', () => {
    const rec = example('example-rec-v1.yaml') as {
      spec: { redisEnterpriseNodeResources: { limits: Json } };
    };
    rec.spec.redisEnterpriseNodeResources.limits.cpu = 2;
    rec.spec.redisEnterpriseNodeResources.limits.memory = '4Gi';
    assert.deepEqual(compileCrdValidator(recV1)(rec), []);
    rec.spec.redisEnterpriseNodeResources.limits.cpu = true;
    rec.spec.redisEnterpriseNodeResources.limits.memory = 'lots';
    assert.deepEqual(compileCrdValidator(recV1)(rec), [
      {
        field: 'spec.redisEnterpriseNodeResources.limits.cpu',
        reason: 'FieldValueTypeInvalid',
        message:
          'Invalid value: "boolean": spec.redisEnterpriseNodeResources.limits.cpu in body must be of type integer,string: "boolean"',
      },
      {
        field: 'spec.redisEnterpriseNodeResources.limits.memory',
        reason: 'FieldValueInvalid',
        message: `Invalid value: "lots": spec.redisEnterpriseNodeResources.limits.memory in body should match '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$'`,
      },
    ]);
  });

  it('reports a missing required field as FieldValueRequired', () => {
    const rec = example('example-rec-v1.yaml');
    (rec.spec as Json).upgradeSpec = {};
    assert.deepEqual(compileCrdValidator(recV1)(rec), [
      {
        field: 'spec.upgradeSpec.autoUpgradeRedisEnterprise',
        reason: 'FieldValueRequired',
        message: 'Required value',
      },
    ]);
  });

  it('reports a bad enum value as FieldValueNotSupported with the supported values', () => {
    const redb = example('example-redb-v1alpha1.yaml');
    (redb.spec as Json).tlsMode = 'sometimes';
    assert.deepEqual(compileCrdValidator(redbSchema)(redb), [
      {
        field: 'spec.tlsMode',
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "sometimes": supported values: "disabled", "enabled", "replica_ssl"',
      },
    ]);
  });

  it('names list elements with their index', () => {
    const redb = example('example-redb-v1alpha1.yaml');
    (redb.spec as Json).rolesPermissions = [
      { acl: 'a', role: 'r', type: 'redis-enterprise' },
      { acl: 'b', type: 'x' },
    ];
    const causes = compileCrdValidator(redbSchema)(redb);
    assert.deepEqual(
      causes.map((c) => `${c.field} ${c.reason}`),
      [
        'spec.rolesPermissions[1].role FieldValueRequired',
        'spec.rolesPermissions[1].type FieldValueNotSupported',
      ],
    );
  });
});

describe('pruneUnknownFields with the upstream REC schema', () => {
  it('drops undeclared fields of the upstream REC, keeps apiVersion/kind/metadata and preserved subtrees', () => {
    const rec = {
      apiVersion: 'app.redislabs.com/v1',
      kind: 'RedisEnterpriseCluster',
      metadata: { name: 'rec', annotations: { a: 'b' } },
      spec: {
        nodes: 3,
        engineEnterpriseImageSpec: { versionTag: '7.4.6-22' },
        redisEnterpriseImageSpec: { versionTag: '7.4.6-22', bogus: true },
        redisEnterpriseAdditionalPodSpecAttributes: { hostNetwork: true, anything: { goes: 1 } },
        redisEnterpriseNodeResources: { limits: { cpu: 2, memory: '4Gi' } },
      },
      status: { state: 'Running', invented: 1 },
      extra: 'dropped',
    };
    pruneUnknownFields(recV1, rec);
    assert.deepEqual(rec, {
      apiVersion: 'app.redislabs.com/v1',
      kind: 'RedisEnterpriseCluster',
      metadata: { name: 'rec', annotations: { a: 'b' } },
      spec: {
        nodes: 3,
        redisEnterpriseImageSpec: { versionTag: '7.4.6-22' },
        redisEnterpriseAdditionalPodSpecAttributes: { hostNetwork: true },
        redisEnterpriseNodeResources: { limits: { cpu: 2, memory: '4Gi' } },
      },
      status: { state: 'Running' },
    });

    // v1alpha1 declares the same field with x-kubernetes-preserve-unknown-fields.
    const old = { spec: { redisEnterpriseAdditionalPodSpecAttributes: { anything: { goes: 1 } }, bogus: 1 } };
    pruneUnknownFields(recSchemas.get('v1alpha1')!, old);
    assert.deepEqual(old, {
      spec: { redisEnterpriseAdditionalPodSpecAttributes: { anything: { goes: 1 } } },
    });
  });
});

describe('applySchemaDefaults with the upstream REDB schema', () => {
  it('fills defaults of the upstream REDB schema in list items', () => {
    const redb = example('example-redb-v1alpha1.yaml') as { spec: Json };
    redb.spec.rolesPermissions = [{ acl: 'a', role: 'r' }];
    assert.equal(compileCrdValidator(redbSchema)(redb)[0]?.reason, 'FieldValueRequired');
    applySchemaDefaults(redbSchema, redb);
    assert.deepEqual(redb.spec.rolesPermissions, [{ acl: 'a', role: 'r', type: 'redis-enterprise' }]);
    assert.deepEqual(compileCrdValidator(redbSchema)(redb), []);
  });
});
