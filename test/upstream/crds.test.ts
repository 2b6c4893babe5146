/**
 * The simulator's CRDs (src/sim/crds.ts, redis dialect) against the operator's published ones:
 * every property the simulator declares exists upstream with the same type, the printer columns
 * match, and the upstream examples validate against the simulator's schemas.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { parseDocument } from 'yaml';
import { crdsFor } from '../../src/sim/crds.js';
import { upstreamFile } from './support.js';
import { byKind, type Crd, declaredPaths, rootSchema } from '../helpers/crd.js';

/**
 * crd-rec.yaml has one single-quoted description whose continuation line is not indented
 * (line 4588): Go's YAML parser takes it, the `yaml` package reports MISSING_CHAR but still
 * recovers the document. Only that description is damaged, so the recovered tree is used.
 */
function loadUpstream(file: string): Crd {
  const doc = parseDocument(readFileSync(upstreamFile(file), 'utf8'));
  const unexpected = doc.errors.filter((error) => error.code !== 'MISSING_CHAR');
  assert.deepEqual(unexpected, [], `${file} parses`);
  return doc.toJS() as Crd;
}

function columnsOf(crd: Crd, version: string) {
  return crd.spec.versions
    .find((v) => v.name === version)
    ?.additionalPrinterColumns?.map(({ name, jsonPath }) => ({ name, jsonPath }));
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
});

describe('the redis-dialect schemas accept the upstream examples', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validatorFor = (kind: string, version: string) =>
    ajv.compile(rootSchema(byKind(crdsFor('redis'), kind), version));
  const example = (file: string) => parseDocument(readFileSync(upstreamFile(file), 'utf8')).toJS();

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
});
