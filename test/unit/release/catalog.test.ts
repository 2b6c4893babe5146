import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ACTIVE_ACTIVE_UPGRADE_FROM,
  bundledDatabaseVersions,
  chartVersionFor,
  checkUpgradePath,
  clusterImageRepositoryFor,
  clusterTagFor,
  clusterTagsFor,
  defaultDatabaseVersion,
  gitTagFor,
  isKnownOperatorVersion,
  knownOperatorVersions,
  latestOperatorVersion,
  MIN_DATABASE_FOR_RHEL9_TARGETS,
  MIN_OPERATOR_FOR_RHEL9_TARGETS,
  minimumDatabaseVersionFor,
  minimumOperatorFor,
  RHEL9_TARGETS_FROM,
  requiresRhel9Modules,
  requiresUnprivileged,
  supportsActiveActiveUpgrade,
  TOKENS_INVALIDATED_FROM_RS,
  UNPRIVILEGED_FROM,
  upgradeInvalidatesTokens,
  webhookEntryNameFor,
  webhookNameFor,
} from '../../../src/release/catalog.js';
import {
  compareDatabaseVersions,
  compareOperatorVersions,
  compareReleases,
  databaseVersionOf,
  parseImageTag,
  parseOperatorVersion,
  rsVersionOfTag,
} from '../../../src/release/versions.js';

const byOperatorVersion = (a: string, b: string) =>
  compareOperatorVersions(parseOperatorVersion(a)!, parseOperatorVersion(b)!);

describe('known operator versions', () => {
  const known = knownOperatorVersions();

  it('are sorted oldest first, without duplicates, all well formed', () => {
    assert.deepEqual([...known].sort(byOperatorVersion), known);
    assert.equal(new Set(known).size, known.length);
    for (const v of known) assert.ok(parseOperatorVersion(v), v);
  });

  it('run from 6.0.12-5 to 8.2.0-18', () => {
    assert.equal(known[0], '6.0.12-5');
    assert.equal(latestOperatorVersion(), '8.2.0-18');
    assert.equal(known.at(-1), latestOperatorVersion());
  });

  it('include every release of the 7.4 to 8.2 line the release notes list', () => {
    for (const v of [
      '7.4.2-2',
      '7.4.6-6',
      '7.8.2-6',
      '7.8.6-19',
      '7.22.0-7',
      '7.22.2-43',
      '8.0.2-2',
      '8.0.20-26',
      // Read again on 2026-11-26 (issue 25).
      '7.4.6-11',
      '7.4.6-12',
      '7.8.6-20',
      '7.22.2-45',
      '8.0.20-27',
      '8.2.0-15',
      '8.2.0-18',
    ]) {
      assert.ok(isKnownOperatorVersion(v), v);
    }
    // 8.2.0-8 was never released: redis/docs drafted the 8.2.0 notes under that name and renamed
    // them to 8.2.0-12 before publishing (commit f0a8f08, 2026-07-21, "build number"), and no
    // certified OLM bundle 8.2.0-8 exists.
    assert.equal(isKnownOperatorVersion('8.2.0-8'), false);
  });

  it('isKnownOperatorVersion accepts a v and rejects unknown or malformed input', () => {
    assert.equal(isKnownOperatorVersion('v7.8.2-6'), true);
    assert.equal(isKnownOperatorVersion(parseOperatorVersion('8.0.18-14')!), true);
    assert.equal(isKnownOperatorVersion('7.22.0-6'), false);
    assert.equal(isKnownOperatorVersion('9.0.0-1'), false);
    assert.equal(isKnownOperatorVersion('nonsense'), false);
  });

  it('returns a copy the caller may change', () => {
    knownOperatorVersions().pop();
    assert.equal(knownOperatorVersions().length, known.length);
  });
});

describe('clusterTagFor', () => {
  const cases: [string, string][] = [
    // Several RS images were published for these releases; the newest is the default.
    ['7.8.2-6', '7.8.2-60'],
    ['7.4.6-2', '7.4.6-102'],
    ['7.4.2-2', '7.4.2-104'],
    ['7.4.6-6', '7.4.6-268'],
    ['7.8.6-1', '7.8.6-60'],
    // One image each (release notes).
    ['7.22.2-39', '7.22.2-116'],
    ['8.0.16-25', '8.0.16-33'],
    ['8.0.18-11', '8.0.18-23.11'],
    ['8.0.18-14', '8.0.18-36.14'],
    ['8.0.20-23', '8.0.20-44.23'],
    ['8.2.0-13', '8.2.0-46.13'],
    // From the git tags' OpenShift example, suffix removed.
    ['6.2.10-45', '6.2.10-129'],
    ['7.2.4-16', '7.2.4-153'],
    ['v7.8.2-6', '7.8.2-60'],
  ];
  for (const [operator, tag] of cases) {
    it(`${operator} -> ${tag}`, () => assert.equal(clusterTagFor(operator), tag));
  }

  it('is undefined for unknown or malformed versions, so --cluster-version is needed', () => {
    assert.equal(clusterTagFor('9.0.0-1'), undefined);
    assert.equal(clusterTagFor('7.22.0-6'), undefined);
    assert.equal(clusterTagFor('nonsense'), undefined);
    assert.equal(clusterTagsFor('9.0.0-1'), undefined);
  });

  it('lists every image of a release, oldest first', () => {
    assert.deepEqual(clusterTagsFor('7.4.6-2'), ['7.4.6-22', '7.4.6-77', '7.4.6-102']);
    assert.deepEqual(clusterTagsFor('8.0.18-14'), ['8.0.18-36.14']);
  });

  const openshift: [string, string][] = [
    ['6.0.20-12', '6.0.20-97.rhel7-openshift'],
    ['6.2.10-4', '6.2.10-90.rhel7-openshift'],
    ['6.2.10-34', '6.2.10-107.rhel8-openshift'],
    ['6.2.10-45', '6.2.10-129.rhel8-openshift'],
    ['7.2.4-16', '7.2.4-153.rhel8-openshift'],
    ['7.4.6-2', '7.4.6-102.rhel8-openshift'],
    ['7.8.4-8', '7.8.4-66.rhel8-openshift'],
    ['7.8.4-9', '7.8.4-95'],
    ['7.22.2-40', '7.22.2-133'],
    ['8.0.20-23', '8.0.20-44.23'],
  ];
  for (const [operator, tag] of openshift) {
    it(`on OpenShift ${operator} -> ${tag}`, () => assert.equal(clusterTagFor(operator, 'openshift'), tag));
  }

  it('names the image repository per platform', () => {
    assert.equal(clusterImageRepositoryFor('kubernetes'), 'redislabs/redis');
    assert.equal(
      clusterImageRepositoryFor('openshift'),
      'registry.connect.redhat.com/redislabs/redis-enterprise',
    );
  });

  for (const operator of knownOperatorVersions()) {
    it(`${operator}: the default tag is the newest listed and holds the same RS release`, () => {
      const tag = parseImageTag(clusterTagFor(operator)!)!;
      const version = parseOperatorVersion(operator)!;
      assert.deepEqual(tag.rs, version.release);
      // From 8.0.18 on the tag names the operator build it was made for.
      if (tag.operatorBuild !== undefined) assert.equal(tag.operatorBuild, version.build);
      assert.equal(clusterTagsFor(operator)!.at(-1), clusterTagFor(operator));
    });
  }
});

describe('chartVersionFor and gitTagFor', () => {
  it('the chart version is the operator version, known or not', () => {
    assert.equal(chartVersionFor('7.8.2-6'), '7.8.2-6');
    assert.equal(chartVersionFor('v8.0.20-23'), '8.0.20-23');
    assert.equal(chartVersionFor('9.1.0-3'), '9.1.0-3');
  });

  it('throws a TypeError for malformed input (a programming error)', () => {
    assert.throws(() => chartVersionFor('latest'), TypeError);
    assert.throws(() => requiresRhel9Modules('7.8'), TypeError);
  });

  it('git tags carry a v, except two releases tagged without it', () => {
    assert.equal(gitTagFor('8.0.20-23'), 'v8.0.20-23');
    assert.equal(gitTagFor('7.8.6-1'), '7.8.6-1');
    assert.equal(gitTagFor('7.22.2-39'), '7.22.2-39');
  });

  it('has no tag for releases whose tag holds another bundle', () => {
    assert.equal(gitTagFor('7.4.6-9'), undefined);
    assert.equal(gitTagFor('7.8.6-11'), undefined);
  });
});

describe('thresholds', () => {
  it('are well-formed constants', () => {
    for (const v of [
      MIN_OPERATOR_FOR_RHEL9_TARGETS,
      RHEL9_TARGETS_FROM,
      UNPRIVILEGED_FROM,
      ACTIVE_ACTIVE_UPGRADE_FROM,
    ]) {
      assert.ok(parseOperatorVersion(v), v);
    }
    assert.equal(MIN_DATABASE_FOR_RHEL9_TARGETS, '7.2');
    assert.equal(TOKENS_INVALIDATED_FROM_RS, '8.0.22');
  });

  const table: [string, (v: string) => unknown, string, unknown][] = [
    ['minimumOperatorFor', minimumOperatorFor, '7.8.2-5', undefined],
    ['minimumOperatorFor', minimumOperatorFor, '7.8.2-6', '7.4.2-2'],
    ['minimumOperatorFor', minimumOperatorFor, '8.2.0-13', '7.4.2-2'],
    ['minimumOperatorFor', minimumOperatorFor, '9.0.0-1', '7.4.2-2'],
    ['minimumDatabaseVersionFor', minimumDatabaseVersionFor, '7.4.6-9', undefined],
    ['minimumDatabaseVersionFor', minimumDatabaseVersionFor, '7.8.2-6', '7.2'],
    ['requiresRhel9Modules', requiresRhel9Modules, '7.4.6-9', false],
    ['requiresRhel9Modules', requiresRhel9Modules, '7.8.2-5', false],
    ['requiresRhel9Modules', requiresRhel9Modules, '7.8.2-6', true],
    ['requiresRhel9Modules', requiresRhel9Modules, '7.22.0-7', true],
    ['requiresUnprivileged', requiresUnprivileged, '7.8.6-19', false],
    ['requiresUnprivileged', requiresUnprivileged, '7.22.0-5', false],
    ['requiresUnprivileged', requiresUnprivileged, '7.22.0-6', true],
    ['requiresUnprivileged', requiresUnprivileged, 'v8.0.2-2', true],
    ['webhookNameFor', webhookNameFor, '6.2.18-41', 'redb-admission'],
    ['webhookNameFor', webhookNameFor, '6.4.2-4', 'redis-enterprise-admission'],
    ['webhookNameFor', webhookNameFor, '8.0.20-23', 'redis-enterprise-admission'],
    ['webhookEntryNameFor', webhookEntryNameFor, '6.2.10-45', 'redb.admission.redislabs'],
    ['webhookEntryNameFor', webhookEntryNameFor, '7.8.2-6', 'redisenterprise.admission.redislabs'],
    ['supportsActiveActiveUpgrade', supportsActiveActiveUpgrade, '7.22.2-43', false],
    ['supportsActiveActiveUpgrade', supportsActiveActiveUpgrade, '8.0.2-1', false],
    ['supportsActiveActiveUpgrade', supportsActiveActiveUpgrade, '8.0.2-2', true],
    ['supportsActiveActiveUpgrade', supportsActiveActiveUpgrade, '8.2.0-13', true],
    ['upgradeInvalidatesTokens', upgradeInvalidatesTokens, '8.0.20-96.26', false],
    ['upgradeInvalidatesTokens', upgradeInvalidatesTokens, '8.0.22', true],
    ['upgradeInvalidatesTokens', upgradeInvalidatesTokens, '8.2.0-46.13', true],
    ['upgradeInvalidatesTokens', upgradeInvalidatesTokens, '7.22.2', false],
    ['upgradeInvalidatesTokens', upgradeInvalidatesTokens, 'nonsense', false],
  ];
  for (const [name, fn, input, expected] of table) {
    it(`${name}(${input}) -> ${String(expected)}`, () => assert.equal(fn(input), expected));
  }

  it('the thresholds are monotone: once on, on for every newer operator', () => {
    const known = knownOperatorVersions();
    for (const predicate of [requiresRhel9Modules, requiresUnprivileged, supportsActiveActiveUpgrade]) {
      const flags = known.map((v) => predicate(v));
      assert.deepEqual(
        flags,
        [...flags].sort((a, b) => Number(a) - Number(b)),
      );
    }
  });
});

describe('bundled database versions', () => {
  const table: [string, string[] | undefined, string | undefined][] = [
    ['6.2.18', ['6.0', '6.2'], '6.0'],
    ['6.4.2-94', ['6.0', '6.2'], '6.2'],
    ['7.2.4', ['6.0', '6.2', '7.2'], '7.2'],
    ['7.4.6-102', ['6.0', '6.2', '7.2'], '7.2'],
    ['7.8.2', ['6.2', '7.2', '7.4'], '7.4'],
    ['7.22.2-116', ['6.2', '7.2', '7.4'], '7.4'],
    ['8.0.2-17', ['6.2', '7.2', '7.4', '8.0', '8.2'], '8.2'],
    ['8.0.6', ['6.2', '7.2', '7.4', '8.0', '8.2'], '8.2'],
    ['8.0.10-81', ['6.2', '7.2', '7.4', '8.0', '8.2', '8.4'], '8.4'],
    ['8.0.16', ['6.2', '7.2', '7.4', '8.0', '8.2', '8.4'], '8.4'],
    ['8.0.18-36.14', ['6.2', '7.2', '7.4', '8.0', '8.2', '8.4', '8.6'], '8.6'],
    ['8.0.20', ['6.2', '7.2', '7.4', '8.0', '8.2', '8.4', '8.6'], '8.6'],
    ['8.2.0-46.13', ['6.2', '7.2', '7.4', '8.0', '8.2', '8.4', '8.6'], '8.6'],
    // Not in the documented table: the caller needs --db-version.
    ['7.2.5', undefined, undefined],
    ['8.0.22', undefined, undefined],
    ['8.4.0', undefined, undefined],
    ['6.0.20', undefined, undefined],
    ['nonsense', undefined, undefined],
  ];
  for (const [rs, versions, defaultVersion] of table) {
    it(`RS ${rs}: ${versions?.join(', ') ?? 'unknown'}`, () => {
      assert.deepEqual(bundledDatabaseVersions(rs), versions);
      assert.equal(defaultDatabaseVersion(rs), defaultVersion);
    });
  }

  it('accepts a parsed release', () => {
    assert.equal(defaultDatabaseVersion([7, 8, 6]), '7.4');
  });

  it('for every catalogued release from 6.2 on: sorted, and the default is bundled', () => {
    for (const operator of knownOperatorVersions().filter((v) => !v.startsWith('6.0.'))) {
      const tag = clusterTagFor(operator)!;
      const versions = bundledDatabaseVersions(tag);
      assert.ok(versions, `${operator} (${tag}) has no bundled versions`);
      const parsed = versions.map((v) => databaseVersionOf(v)!);
      assert.deepEqual([...parsed].sort(compareDatabaseVersions), parsed);
      assert.ok(versions.includes(defaultDatabaseVersion(tag)!));
    }
  });

  it('every RHEL9 target bundles the minimum database version', () => {
    for (const operator of knownOperatorVersions().filter(requiresRhel9Modules)) {
      assert.ok(bundledDatabaseVersions(clusterTagFor(operator)!)!.includes(MIN_DATABASE_FOR_RHEL9_TARGETS));
    }
  });
});

describe('checkUpgradePath', () => {
  const supported: [string, string][] = [
    ['7.2.4', '7.4.6'],
    ['7.2.4', '8.0.20'],
    ['7.2.4-153', '8.2.0-46.13'],
    ['7.4.6-22', '7.8.2-60'],
    ['7.4.6', '7.22.2'],
    ['7.4.6', '8.0.10'],
    ['7.4.6', '8.2.0'],
    ['7.8.6', '7.22.2'],
    ['7.22.2', '8.2.0'],
    ['6.4.2', '8.0.2'],
    ['6.4.2', '8.0.10'],
    ['6.4.2', '7.22.0'],
    ['8.0.2', '8.0.20'],
    ['8.0.10', '8.2.0'],
    ['8.0.16', '8.0.20'],
    ['8.0.18-36.14', '8.2.0-25.12'],
    ['6.2.8', '6.2.12'],
    ['6.2.10', '6.2.18'],
    ['6.2.12', '7.8.2'],
    ['6.0.12', '6.0.20'],
    ['8.2.0', '8.2.1'],
    ['7.4.6-22', '7.4.6-102'],
  ];
  for (const [from, to] of supported) {
    it(`${from} -> ${to} is supported`, () => {
      assert.deepEqual(checkUpgradePath(from, to), { supported: true, known: true });
    });
  }

  const viaHop: [string, string, string][] = [
    ['6.4.2', '8.0.16', '8.0.10-23'],
    ['6.4.2-94', '8.2.0', '8.0.10-23'],
    ['6.2.8', '6.2.18', '6.2.10-45'],
    ['6.0.20', '7.2.4', '6.2.10-45'],
    ['6.0.20', '6.4.2', '6.2.10-45'],
    ['6.2.18', '7.22.0', '7.8.6-20'],
    ['6.2.12', '8.0.2', '7.8.6-20'],
  ];
  for (const [from, to, via] of viaHop) {
    it(`${from} -> ${to} needs a hop via ${via}`, () => {
      const result = checkUpgradePath(from, to);
      assert.equal(result.supported, false);
      assert.equal(result.known, true);
      assert.equal(result.via, via);
      assert.ok(result.reason);
    });
  }

  it('refuses a downgrade, without a hop', () => {
    const result = checkUpgradePath('8.0.16', '8.0.10');
    assert.deepEqual(result.supported, false);
    assert.equal(result.known, true);
    assert.match(result.reason!, /downgrade/);
    assert.equal(result.via, undefined);
  });

  it('says which versions the table covers', () => {
    const result = checkUpgradePath('6.2.12', '7.22.0');
    assert.match(result.reason!, /6\.2\.10-6\.2\.18 can upgrade directly only to .*7\.8\.x, not to 7\.22\.0/);
  });

  const unknown: [string, string][] = [
    ['8.2.0', '9.0.0'],
    ['5.4.14', '6.0.20'],
    ['8.0.12', '8.2.0'],
    ['7.4.6', '8.4.0'],
  ];
  for (const [from, to] of unknown) {
    it(`${from} -> ${to} is not in the documented table`, () => {
      const result = checkUpgradePath(from, to);
      assert.equal(result.supported, false);
      assert.equal(result.known, false);
      assert.match(result.reason!, /no documented upgrade path/);
    });
  }

  it('reports a malformed version instead of throwing', () => {
    const result = checkUpgradePath('7.4.6', 'eight');
    assert.equal(result.supported, false);
    assert.equal(result.known, false);
    assert.match(result.reason!, /"eight"/);
  });

  it('accepts parsed releases', () => {
    assert.equal(checkUpgradePath([7, 4, 6], [8, 2, 0]).supported, true);
  });

  it('moving one catalogued release at a time is always supported', () => {
    const tags = knownOperatorVersions().map((v) => clusterTagFor(v)!);
    for (let i = 1; i < tags.length; i++) {
      assert.equal(checkUpgradePath(tags[i - 1]!, tags[i]!).supported, true, `${tags[i - 1]} -> ${tags[i]}`);
    }
  });

  it('between any two catalogued releases: supported, or a hop that is supported and strictly between', () => {
    const known = knownOperatorVersions();
    const index = fc.nat({ max: known.length - 1 });
    fc.assert(
      fc.property(index, index, (i, j) => {
        const fromTag = clusterTagFor(known[Math.min(i, j)]!)!;
        const toTag = clusterTagFor(known[Math.max(i, j)]!)!;
        const result = checkUpgradePath(fromTag, toTag);
        assert.equal(result.known, true);
        if (result.supported) return;
        assert.ok(result.via, `${fromTag} -> ${toTag}: ${result.reason}`);
        assert.ok(isKnownOperatorVersion(result.via));
        const hop = rsVersionOfTag(clusterTagFor(result.via)!)!;
        assert.equal(compareReleases(rsVersionOfTag(fromTag)!, hop), -1);
        assert.equal(compareReleases(hop, rsVersionOfTag(toTag)!), -1);
        assert.equal(checkUpgradePath(fromTag, clusterTagFor(result.via)!).supported, true);
      }),
      { numRuns: 500 },
    );
  });

  it('from 7.2 or 7.4, every catalogued target up to 8.2 is direct', () => {
    for (const from of ['7.2.4', '7.4.2', '7.4.6']) {
      for (const operator of knownOperatorVersions()) {
        const to = clusterTagFor(operator)!;
        if (compareReleases(rsVersionOfTag(to)!, [7, 4, 0]) < 0) continue;
        if (compareReleases(rsVersionOfTag(to)!, rsVersionOfTag(`${from}-1`)!) < 0) continue;
        assert.equal(checkUpgradePath(from, to).supported, true, `${from} -> ${to}`);
      }
    }
  });
});
