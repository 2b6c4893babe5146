import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { buildTable, type KubeObject, type TableColumnSpec } from '../../src/sim/kube/table.js';
import { upstreamFile } from './support.js';

interface CrdVersion {
  name: string;
  storage?: boolean;
  additionalPrinterColumns?: TableColumnSpec[];
}

/** The printer columns of a CRD's storage version, from the upstream manifest. */
function upstreamColumns(file: string): TableColumnSpec[] {
  const [document] = parseAllDocuments(readFileSync(upstreamFile(file), 'utf8'));
  const crd = document?.toJS() as { spec: { versions: CrdVersion[] } };
  const version = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
  assert.ok(version?.additionalPrinterColumns, `${file} has printer columns`);
  return version.additionalPrinterColumns;
}

const now = new Date('2026-11-21T12:00:00Z');

describe('buildTable with the upstream printer columns', () => {
  it('the REC row of redis-facts.md section 2', () => {
    const rec: KubeObject = {
      metadata: { name: 'rec', creationTimestamp: new Date(now.getTime() - 92 * 60_000).toISOString() },
      spec: { nodes: 3, redisEnterpriseImageSpec: { versionTag: '8.0.2-17' } },
      status: {
        state: 'Upgrade',
        specStatus: 'Valid',
        licenseStatus: { licenseState: 'Valid', shardsUsage: '4', expirationDate: '2022-07-16T13:59:00Z' },
      },
    };
    const table = buildTable([rec], upstreamColumns('crd-rec.yaml'), 'RedisEnterpriseCluster', now);
    assert.deepEqual(
      table.columnDefinitions.map((c) => c.name),
      [
        'Name',
        'Nodes',
        'Shards',
        'Version',
        'State',
        'Spec Status',
        'License State',
        'License Expiration Date',
        'Age',
      ],
    );
    assert.deepEqual(table.rows[0]?.cells, [
      'rec',
      '3',
      '4',
      '8.0.2-17',
      'Upgrade',
      'Valid',
      'Valid',
      '2022-07-16T13:59:00Z',
      '92m',
    ]);
  });

  it('the REDB row, with the first port of internalEndpoints', () => {
    const redb: KubeObject = {
      metadata: { name: 'db1', creationTimestamp: new Date(now.getTime() - 51 * 3_600_000).toISOString() },
      status: {
        version: '7.4.0',
        internalEndpoints: [
          { host: 'db1', port: 12000 },
          { host: 'db1-headless', port: 12001 },
        ],
        redisEnterpriseCluster: 'rec',
        shardStatuses: { active: 2 },
        status: 'active',
        specStatus: 'Valid',
      },
    };
    const table = buildTable([redb], upstreamColumns('crd-redb.yaml'), 'RedisEnterpriseDatabase', now);
    assert.deepEqual(table.rows[0]?.cells, ['db1', '7.4.0', '12000', 'rec', '2', 'active', 'Valid', '2d3h']);
  });
});
