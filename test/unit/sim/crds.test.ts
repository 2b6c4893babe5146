import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parseDocument } from 'yaml';
import { detectDialect, dialectFields, toJsonPath } from '../../../src/release/dialect.js';
import { CRD_GROUP, crdsFor } from '../../../src/sim/crds.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const upstreamDir = path.resolve(repoRoot, '../shared/reference/redis-enterprise-k8s');

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  enum?: unknown[];
};
interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: { status?: object };
  additionalPrinterColumns?: { name: string; jsonPath: string }[];
  schema: { openAPIV3Schema: Schema };
}
interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; shortNames: string[] };
    versions: Version[];
  };
}

/**
 * crd-rec.yaml has one single-quoted description whose continuation line is not indented
 * (line 4588): Go's YAML parser takes it, the `yaml` package reports MISSING_CHAR but still
 * recovers the document. Only that description is damaged, so the recovered tree is used.
 */
function loadUpstream(file: string): Crd {
  const doc = parseDocument(readFileSync(path.join(upstreamDir, file), 'utf8'));
  const unexpected = doc.errors.filter((error) => error.code !== 'MISSING_CHAR');
  assert.deepEqual(unexpected, [], `${file} parses`);
  return doc.toJS() as Crd;
}

/** Every property path a schema declares, with its type: `spec.modulesList[].name -> string`. */
function declaredPaths(schema: Schema, prefix = ''): Map<string, string | undefined> {
  const paths = new Map<string, string | undefined>();
  const visit = (node: Schema, at: string) => {
    if (at !== '') paths.set(at, node.type);
    for (const [key, child] of Object.entries(node.properties ?? {})) visit(child, at ? `${at}.${key}` : key);
    if (node.items) visit(node.items, `${at}[]`);
    if (typeof node.additionalProperties === 'object') visit(node.additionalProperties, `${at}{}`);
  };
  visit(schema, prefix);
  return paths;
}

function byKind(crds: object[], kind: string): Crd {
  const found = (crds as Crd[]).find((crd) => crd.spec.names.kind === kind);
  assert.ok(found, `CRD for ${kind}`);
  return found;
}

function rootSchema(crd: Crd, version: string): Schema {
  const found = crd.spec.versions.find((v) => v.name === version);
  assert.ok(found, `${crd.metadata.name} has version ${version}`);
  return found.schema.openAPIV3Schema;
}

const resources = [
  { kind: 'RedisEnterpriseCluster', file: 'crd-rec.yaml', versions: ['v1', 'v1alpha1'] },
  { kind: 'RedisEnterpriseDatabase', file: 'crd-redb.yaml', versions: ['v1alpha1'] },
  { kind: 'RedisEnterpriseActiveActiveDatabase', file: 'crd-reaadb.yaml', versions: ['v1alpha1'] },
];

describe('crdsFor("redis") agrees with the real upstream CRDs', () => {
  const ours = crdsFor('redis');

  for (const { kind, file, versions } of resources) {
    const upstream = loadUpstream(file);
    const mine = byKind(ours, kind);

    it(`${kind}: names, group, scope and versions match`, () => {
      assert.equal(mine.metadata.name, upstream.metadata.name);
      assert.equal(mine.spec.group, upstream.spec.group);
      assert.equal(mine.spec.scope, upstream.spec.scope);
      assert.equal(mine.spec.names.plural, upstream.spec.names.plural);
      assert.deepEqual(mine.spec.names.shortNames, upstream.spec.names.shortNames);
      const shape = (crd: Crd) =>
        crd.spec.versions.map((v) => ({
          name: v.name,
          served: v.served,
          storage: v.storage,
          status: !!v.subresources?.status,
        }));
      assert.deepEqual(shape(mine), shape(upstream));
    });

    for (const version of versions) {
      it(`${kind} ${version}: every declared property exists upstream with the same type`, () => {
        const upstreamPaths = declaredPaths(rootSchema(upstream, version));
        const ourPaths = declaredPaths(rootSchema(mine, version));
        assert.ok(ourPaths.size > 10, 'the schema declares the fields we use');
        const mismatches: string[] = [];
        for (const [fieldPath, type] of ourPaths) {
          if (!upstreamPaths.has(fieldPath)) mismatches.push(`${fieldPath}: missing upstream`);
          else if (upstreamPaths.get(fieldPath) !== type)
            mismatches.push(`${fieldPath}: ours ${type}, upstream ${upstreamPaths.get(fieldPath)}`);
        }
        assert.deepEqual(mismatches, []);
      });

      it(`${kind} ${version}: printer columns have the upstream names and jsonPaths`, () => {
        const columns = (crd: Crd) =>
          crd.spec.versions
            .find((v) => v.name === version)
            ?.additionalPrinterColumns?.map(({ name, jsonPath }) => ({ name, jsonPath }));
        // For REC, compare every version with the upstream storage version v1 (the current layout).
        assert.deepEqual(
          columns(mine),
          kind === 'RedisEnterpriseCluster' ? columnsOf(upstream, 'v1') : columns(upstream),
        );
      });
    }
  }

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

describe('the redis-dialect schemas accept the upstream examples', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validatorFor = (kind: string, version: string) =>
    ajv.compile(rootSchema(byKind(crdsFor('redis'), kind), version));
  const example = (file: string) => parseDocument(readFileSync(path.join(upstreamDir, file), 'utf8')).toJS();

  for (const [file, kind, version] of [
    ['example-rec-v1.yaml', 'RedisEnterpriseCluster', 'v1'],
    ['openshift-example-rec-rhel.yaml', 'RedisEnterpriseCluster', 'v1'],
    ['example-rec-v1alpha1.yaml', 'RedisEnterpriseCluster', 'v1alpha1'],
    ['example-redb-v1alpha1.yaml', 'RedisEnterpriseDatabase', 'v1alpha1'],
    ['example-reaadb-v1alpha1.yaml', 'RedisEnterpriseActiveActiveDatabase', 'v1alpha1'],
  ] as const) {
    it(file, () => {
      const validate = validatorFor(kind, version);
      assert.equal(validate(example(file)), true, JSON.stringify(validate.errors));
    });
  }

  it('and reject wrong types and values outside the enums', () => {
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
