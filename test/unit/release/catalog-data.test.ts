import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { loadCatalogOption } from '../../../src/planning/catalog-source.js';
import { catalogAgeDays } from '../../../src/planning/catalog-notes.js';
import { chartVersionsOf, newerThanCatalog } from '../../../src/planning/helm-index.js';
import { advisoriesAffecting, fixedReleaseFor, isAffectedByAny } from '../../../src/release/advisories.js';
import {
  activeCatalog,
  type CatalogDocument,
  resetCatalog,
  validateCatalogDocument,
} from '../../../src/release/catalog-data.js';
import {
  bundledDatabaseVersions,
  clusterTagFor,
  defaultDatabaseVersion,
  gitTagFor,
  isKnownOperatorVersion,
  releaseEntryFor,
  variantOf,
} from '../../../src/release/catalog.js';
import { minorVersionOf, platformVerdict } from '../../../src/release/platforms.js';

const dir = mkdtempSync(join(tmpdir(), 'ctl-catalog-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => resetCatalog());

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('the built-in catalog (src/release/catalog.json)', () => {
  it('follows docs/catalog.schema.json', async () => {
    assert.deepEqual(await validateCatalogDocument(activeCatalog().document), []);
  });

  it('cites a source for every release, database row and advisory', () => {
    const doc = activeCatalog().document;
    for (const release of doc.releases) assert.ok(release.source.length > 0, release.operator);
    for (const row of doc.bundledDatabases ?? []) assert.ok(row.source, row.rs);
    for (const advisory of doc.advisories ?? []) assert.ok(advisory.source.length > 0, advisory.id);
  });

  it('has the releases of the notes read on 2026-11-26, with their images, bundles and platforms', () => {
    const expected: [string, string, string][] = [
      ['7.4.6-11', '7.4.6-283', '7.4.6-11.0'],
      ['7.4.6-12', '7.4.6-293', '7.4.6-12.0'],
      ['7.8.6-20', '7.8.6-315', '7.8.6-20.1'],
      ['7.22.2-45', '7.22.2-189', '7.22.2-45.1'],
      ['8.0.20-27', '8.0.20-108.27', '8.0.20-27.1'],
      ['8.2.0-15', '8.2.0-78.15', '8.2.0-15.1'],
      ['8.2.0-18', '8.2.0-78.18', '8.2.0-18.0'],
    ];
    for (const [operator, tag, bundle] of expected) {
      assert.equal(clusterTagFor(operator), tag, operator);
      assert.deepEqual(releaseEntryFor(operator)?.olmBundles, [bundle], operator);
    }
    assert.equal(clusterTagFor('7.4.6-11', 'openshift'), '7.4.6-283.rhel8-openshift');
    assert.equal(clusterTagFor('8.2.0-15', 'openshift'), '8.2.0-78.15');
    assert.deepEqual(releaseEntryFor('8.2.0-15')?.kubernetes, {
      supported: ['1.36', '1.35', '1.34', '1.33'],
      deprecated: ['1.32'],
    });
    assert.equal(activeCatalog().document.updated, '2026-11-29');
  });

  it('keeps the upstream git tags that are not v<version>', () => {
    assert.equal(gitTagFor('7.8.6-1'), '7.8.6-1');
    assert.equal(gitTagFor('7.4.6-6'), undefined);
    assert.equal(gitTagFor('7.4.6-12'), 'v7.4.6-12');
    assert.equal(gitTagFor('9.9.9-1'), 'v9.9.9-1');
  });
});

describe('advisory reaadb-empty-password', () => {
  it('affects every operator since 6.4.2-4 before the fix of its line', () => {
    for (const v of [
      '6.4.2-4',
      '7.2.4-16',
      '7.4.6-9',
      '7.8.2-6',
      '7.8.6-19',
      '7.22.0-17',
      '7.22.2-43',
      '8.0.18-14',
      '8.0.20-26',
      '8.2.0-13',
    ])
      assert.deepEqual(
        advisoriesAffecting(v).map((a) => a.id),
        ['reaadb-empty-password'],
        v,
      );
  });

  it('spares the fixed releases, later ones, and the releases before Active-Active resources', () => {
    for (const v of [
      '6.2.18-41',
      '7.4.6-11',
      '7.4.6-12',
      '7.8.6-20',
      '7.22.2-45',
      '8.0.20-27',
      '8.2.0-15',
      '8.2.0-18',
      '8.4.0-3',
    ])
      assert.equal(isAffectedByAny(v), false, v);
  });

  it('names the fix: the newest release of the line without an advisory', () => {
    assert.equal(fixedReleaseFor('8.2.0-13'), '8.2.0-18');
    assert.equal(fixedReleaseFor('7.4.6-2'), '7.4.6-12');
    assert.equal(fixedReleaseFor('8.0.18-14'), '8.0.20-27');
    // 7.2 has no fixed release: the oldest newer one that is clean.
    assert.equal(fixedReleaseFor('7.2.4-12'), '7.4.6-11');
  });
});

describe('platforms', () => {
  it('reads minor versions', () => {
    assert.equal(minorVersionOf('v1.29.3'), '1.29');
    assert.equal(minorVersionOf('v1.32.0+k3s1'), '1.32');
    assert.equal(minorVersionOf('4.16.12'), '4.16');
    assert.equal(minorVersionOf('garbage'), undefined);
  });

  it('supported, deprecated, unsupported (older than listed), newer than listed, unknown', () => {
    assert.equal(platformVerdict('8.2.0-18', 'kubernetes', '1.34').status, 'supported');
    assert.equal(platformVerdict('8.2.0-18', 'kubernetes', '1.32').status, 'deprecated');
    assert.equal(platformVerdict('8.2.0-18', 'kubernetes', '1.29').status, 'unsupported');
    assert.equal(platformVerdict('7.8.2-6', 'kubernetes', '1.32').status, 'newer');
    assert.equal(platformVerdict('7.8.6-20', 'openshift', '4.16').status, 'deprecated');
    assert.equal(platformVerdict('6.0.20-12', 'kubernetes', '1.20').status, 'unknown');
  });
});

describe('variants', () => {
  it('a .minimal cluster goes to the .minimal tag where the target publishes one', () => {
    assert.equal(variantOf('8.0.18-36.14.minimal'), 'minimal');
    assert.equal(variantOf('7.4.6-22.rhel8-openshift'), undefined);
    assert.equal(clusterTagFor('8.2.0-18', 'kubernetes', '8.0.18-36.14.minimal'), '8.2.0-78.18.minimal');
    assert.equal(clusterTagFor('8.2.0-18', 'openshift', '8.0.18-36.14.minimal'), '8.2.0-78.18.minimal');
    // 7.22.2-45's notes publish no minimal image: the full one.
    assert.equal(clusterTagFor('7.22.2-45', 'kubernetes', '7.22.2-179.minimal'), '7.22.2-189');
  });
});

describe('--catalog (src/planning/catalog-source.ts)', () => {
  const extra: CatalogDocument = {
    format: 1,
    updated: '2026-12-15',
    releases: [
      {
        operator: '8.4.0-2',
        clusterTags: ['8.4.0-10.2'],
        databaseVersions: ['7.4', '8.2', '8.6', '8.8'],
        defaultDatabaseVersion: '8.8',
        source: ['test'],
      },
    ],
  };

  it('a JSON file adds its releases and its date; lookups see them', async () => {
    const file = write('extra.json', JSON.stringify(extra));
    const active = await loadCatalogOption(file);
    assert.equal(active?.origin, `built-in + ${file}`);
    assert.equal(activeCatalog().document.updated, '2026-12-15');
    assert.ok(isKnownOperatorVersion('8.4.0-2'));
    assert.ok(isKnownOperatorVersion('8.2.0-18'), 'the built-in releases stay');
    assert.equal(clusterTagFor('8.4.0-2'), '8.4.0-10.2');
    assert.deepEqual(bundledDatabaseVersions('8.4.0-10.2'), ['7.4', '8.2', '8.6', '8.8']);
    assert.equal(defaultDatabaseVersion('8.4.0'), '8.8');
    resetCatalog();
    assert.equal(isKnownOperatorVersion('8.4.0-2'), false);
  });

  it('YAML works as well', async () => {
    const file = write(
      'extra.yaml',
      'format: 1\nupdated: "2026-12-15"\nreleases:\n  - operator: 8.4.0-2\n    clusterTags: ["8.4.0-10.2"]\n    source: [test]\n',
    );
    await loadCatalogOption(file);
    assert.ok(isKnownOperatorVersion('8.4.0-2'));
  });

  it('refuses, as usage errors naming the problem: a missing file, not YAML, the schema broken', async () => {
    await assert.rejects(loadCatalogOption(join(dir, 'nope.json')), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /no such file/);
      return true;
    });
    await assert.rejects(loadCatalogOption(write('bad.yaml', 'releases: [')), UsageError);
    const broken = write(
      'broken.json',
      JSON.stringify({ format: 1, updated: '2026-12-15', releases: [{ operator: 'v8', clusterTags: [] }] }),
    );
    await assert.rejects(loadCatalogOption(broken), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /\/releases\/0\/operator: must match pattern/);
      assert.match(error.message, /\/releases\/0: must have required property 'source'/);
      return true;
    });
    assert.equal(activeCatalog().origin, 'built-in', 'a refused catalog changes nothing');
  });
});

describe('freshness', () => {
  it('the age in whole days', () => {
    assert.equal(catalogAgeDays('2026-11-26', new Date('2026-11-26T23:00:00Z')), 0);
    assert.equal(catalogAgeDays('2026-09-01', new Date('2026-11-26T12:00:00Z')), 86);
  });
});

describe('helm repository index (src/planning/helm-index.ts)', () => {
  it('reads the chart versions and keeps those newer than the catalog that it lacks', () => {
    const index = [
      'apiVersion: v1',
      'entries:',
      '  redis-enterprise-operator:',
      '    - {version: 8.2.0-25}',
      '    - {version: 8.2.0-18}',
      '    - {version: not-a-version}',
      '  other-chart:',
      '    - {version: 9.0.0-1}',
    ].join('\n');
    const versions = chartVersionsOf(index, 'redis-enterprise-operator');
    assert.deepEqual(versions, ['8.2.0-25', '8.2.0-18']);
    assert.deepEqual(newerThanCatalog(versions, 'repo'), [
      { operator: '8.2.0-25', clusterVersion: null, foundIn: 'repo' },
    ]);
  });
});
