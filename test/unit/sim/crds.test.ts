import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { detectDialect, dialectFields, toJsonPath } from '../../../src/release/dialect.js';
import { CRD_GROUP, crdsFor } from '../../../src/sim/crds.js';
import { byKind, type Crd, declaredPaths, rootSchema, type Schema } from '../../helpers/crd.js';

// test/upstream/crds.test.ts compares these CRDs with the upstream ones, field by field.
describe('crdsFor("redis")', () => {
  const ours = crdsFor('redis');

  it('keeps unknown fields of spec and status', () => {
    for (const crd of ours as Crd[]) {
      for (const version of crd.spec.versions) {
        const root = version.schema.openAPIV3Schema as {
          properties: Record<string, Record<string, unknown>>;
        };
        assert.equal(root.properties.spec?.['x-kubernetes-preserve-unknown-fields'], true);
        assert.equal(root.properties.status?.['x-kubernetes-preserve-unknown-fields'], true);
      }
    }
  });

  it('types the enums the real product has', () => {
    const rec = rootSchema(byKind(ours, 'RedisEnterpriseCluster'), 'v1');
    assert.deepEqual(rec.properties?.spec?.properties?.redisUpgradePolicy?.enum, ['major', 'latest']);
    const states = rec.properties?.status?.properties?.state?.enum ?? [];
    for (const state of ['Running', 'Upgrade', 'InvalidUpgrade', 'RunningRollingUpdate'])
      assert.ok(states.includes(state));
    const redb = rootSchema(byKind(ours, 'RedisEnterpriseDatabase'), 'v1alpha1');
    assert.ok(redb.properties?.status?.properties?.status?.enum?.includes('active-change-pending'));
    assert.ok(redb.properties?.status?.properties?.status?.enum?.includes(''));
  });

  it('nests auto-upgrade in upgradeSpec and requires it there, as the real CRD does', () => {
    const rec = rootSchema(byKind(ours, 'RedisEnterpriseCluster'), 'v1') as Schema & {
      properties: { spec: Schema & { properties: { upgradeSpec: Schema & { required: string[] } } } };
    };
    assert.deepEqual(rec.properties.spec.properties.upgradeSpec.required, ['autoUpgradeRedisEnterprise']);
  });
});

// test/upstream/crds.test.ts validates the upstream examples against them.
describe('the redis-dialect schemas', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validatorFor = (kind: string, version: string) =>
    ajv.compile(rootSchema(byKind(crdsFor('redis'), kind), version));
  it('reject wrong types and values outside the enums', () => {
    const validate = validatorFor('RedisEnterpriseCluster', 'v1');
    const bad = {
      spec: { nodes: 'three', redisUpgradePolicy: 'sometimes', upgradeSpec: {} },
      status: { state: 'Sleeping' },
    };
    assert.equal(validate(bad), false);
    const where = new Set((validate.errors ?? []).map((error) => error.instancePath));
    for (const field of ['/spec/nodes', '/spec/upgradeSpec', '/spec/redisUpgradePolicy', '/status/state'])
      assert.ok(where.has(field), `${field} is rejected`);
  });
});

function columnsOf(crd: Crd, version: string) {
  return crd.spec.versions
    .find((v) => v.name === version)
    ?.additionalPrinterColumns?.map(({ name, jsonPath }) => ({ name, jsonPath }));
}

describe('crdsFor("engine")', () => {
  const engine = crdsFor('engine');
  const text = JSON.stringify(engine);

  it('uses the engine field names', () => {
    const rec = declaredPaths(rootSchema(byKind(engine, 'RedisEnterpriseCluster'), 'v1'));
    for (const field of [
      'spec.engineEnterpriseImageSpec.versionTag',
      'spec.engineEnterpriseImageSpec.digestHash',
      'spec.autoUpgradeEngineEnterprise',
      'spec.engineUpgradePolicy',
    ])
      assert.ok(rec.has(field), field);
    const redb = declaredPaths(rootSchema(byKind(engine, 'RedisEnterpriseDatabase'), 'v1alpha1'));
    assert.equal(redb.get('spec.engineVersion'), 'string');
    const reaadb = declaredPaths(
      rootSchema(byKind(engine, 'RedisEnterpriseActiveActiveDatabase'), 'v1alpha1'),
    );
    assert.equal(reaadb.get('spec.globalConfigurations.engineVersion'), 'string');
    const version = columnsOf(byKind(engine, 'RedisEnterpriseCluster'), 'v1')?.find(
      (c) => c.name === 'Version',
    );
    assert.equal(version?.jsonPath, '.spec.engineEnterpriseImageSpec.versionTag');
  });

  it('has none of the redis names', () => {
    for (const name of [
      'redisEnterpriseImageSpec',
      'autoUpgradeRedisEnterprise',
      'redisUpgradePolicy',
      'redisVersion',
    ])
      assert.ok(!text.includes(name), `engine CRDs mention ${name}`);
  });

  it('declares the same three resources in the same group', () => {
    assert.deepEqual(
      (engine as Crd[]).map((crd) => [crd.metadata.name, crd.spec.group]),
      [
        [`redisenterpriseclusters.${CRD_GROUP}`, CRD_GROUP],
        [`redisenterprisedatabases.${CRD_GROUP}`, CRD_GROUP],
        [`redisenterpriseactiveactivedatabases.${CRD_GROUP}`, CRD_GROUP],
      ],
    );
  });
});

describe('dialect table', () => {
  it('gives each dialect its paths and REST body key', () => {
    assert.equal(
      toJsonPath(dialectFields('redis').autoUpgradePath),
      '.spec.upgradeSpec.autoUpgradeRedisEnterprise',
    );
    assert.equal(toJsonPath(dialectFields('engine').autoUpgradePath), '.spec.autoUpgradeEngineEnterprise');
    assert.equal(dialectFields('redis').upgradeBodyKey, 'redis_version');
    assert.equal(dialectFields('engine').upgradeBodyKey, 'engine_version');
    assert.equal(dialectFields('engine').databaseVersionField, 'engineVersion');
  });

  it('detects the dialect from a cluster resource', () => {
    assert.equal(
      detectDialect({ spec: { nodes: 3, redisEnterpriseImageSpec: { versionTag: '7.4.6-22' } } }),
      'redis',
    );
    assert.equal(
      detectDialect({ spec: { engineEnterpriseImageSpec: { versionTag: '7.4.6-22' } } }),
      'engine',
    );
    assert.equal(detectDialect({ spec: { nodes: 3 } }), undefined);
    assert.equal(detectDialect(null), undefined);
  });
});
