import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ExitCode, UsageError } from '../../../src/errors.js';
import {
  compareDatabaseVersions,
  compareImageTags,
  compareOperatorVersions,
  compareReleases,
  type DatabaseVersion,
  databaseVersionOf,
  formatDatabaseVersion,
  formatImageTag,
  formatOperatorVersion,
  formatRelease,
  type ImageTag,
  isDatabasePolicy,
  type OperatorVersion,
  type Ordering,
  operatorVersionFromImage,
  parseDatabaseVersion,
  parseImageTag,
  parseOperatorVersion,
  parseRelease,
  parseRsVersion,
  type Release,
  requireDatabaseVersion,
  requireImageTag,
  requireOperatorVersion,
  rsVersionOfTag,
} from '../../../src/release/versions.js';

describe('parseOperatorVersion', () => {
  const good: [string, OperatorVersion][] = [
    ['7.4.2-2', { release: [7, 4, 2], build: 2 }],
    ['7.22.0-6', { release: [7, 22, 0], build: 6 }],
    ['8.0.20-23', { release: [8, 0, 20], build: 23 }],
    ['v7.8.2-6', { release: [7, 8, 2], build: 6 }],
    ['0.0.0-0', { release: [0, 0, 0], build: 0 }],
    ['123456789.0.1-987654321', { release: [123456789, 0, 1], build: 987654321 }],
  ];
  for (const [input, expected] of good) {
    it(`parses ${input}`, () => assert.deepEqual(parseOperatorVersion(input), expected));
  }

  const bad = [
    '',
    '7.8.2',
    '7.8-6',
    '7.8.2-',
    '-7.8.2-6',
    '7.8.2--6',
    '7.8.2-6.1',
    '7.8.2-6-1',
    '7.8.2_6',
    '7.8.x-6',
    'V7.8.2-6',
    'vv7.8.2-6',
    ' 7.8.2-6',
    '7.8.2-6 ',
    '07.8.2-6',
    '7.08.2-6',
    '7.8.02-6',
    '7.8.2-06',
    '1234567890.0.0-1',
    'latest',
    'redislabs/operator:7.8.2-6',
  ];
  for (const input of bad) {
    it(`rejects ${JSON.stringify(input)}`, () => assert.equal(parseOperatorVersion(input), undefined));
  }

  it('formats without the v', () => {
    assert.equal(formatOperatorVersion(parseOperatorVersion('v7.8.2-6')!), '7.8.2-6');
  });
});

describe('compareOperatorVersions', () => {
  const ordered = [
    '6.2.10-45',
    '6.4.2-8',
    '7.4.2-2',
    '7.4.6-9',
    '7.8.2-6',
    '7.8.2-10',
    '7.22.0-6',
    '8.0.2-2',
    '10.0.0-1',
  ];
  it('orders known versions numerically', () => {
    const shuffled = [...ordered].reverse();
    const sorted = shuffled.sort((a, b) =>
      compareOperatorVersions(parseOperatorVersion(a)!, parseOperatorVersion(b)!),
    );
    assert.deepEqual(sorted, ordered);
  });

  it('7.22 is newer than 7.8 and build 10 newer than build 9', () => {
    const cmp = (a: string, b: string) =>
      compareOperatorVersions(parseOperatorVersion(a)!, parseOperatorVersion(b)!);
    assert.equal(cmp('7.22.0-6', '7.8.6-19'), 1);
    assert.equal(cmp('7.8.2-9', '7.8.2-10'), -1);
    assert.equal(cmp('v7.8.2-6', '7.8.2-6'), 0);
  });
});

describe('operatorVersionFromImage', () => {
  const cases: [string, string | undefined][] = [
    ['redislabs/operator:7.8.2-6', '7.8.2-6'],
    ['registry.connect.redhat.com/redislabs/redis-enterprise-operator:8.0.20-23', '8.0.20-23'],
    ['localhost:5000/redislabs/operator:7.22.0-6', '7.22.0-6'],
    ['redislabs/operator:7.8.2-6@sha256:0123abcd', '7.8.2-6'],
    ['localhost:5000/redislabs/operator', undefined],
    ['redislabs/operator@sha256:0123abcd', undefined],
    ['redislabs/operator:latest', undefined],
    ['redislabs/operator', undefined],
  ];
  for (const [image, expected] of cases) {
    it(`${image} -> ${expected}`, () => {
      const parsed = operatorVersionFromImage(image);
      assert.equal(parsed && formatOperatorVersion(parsed), expected);
    });
  }
});

describe('parseImageTag', () => {
  const good: [string, ImageTag][] = [
    ['7.4.6-22', { rs: [7, 4, 6], build: 22 }],
    ['7.22.2-116', { rs: [7, 22, 2], build: 116 }],
    ['8.0.18-36.14', { rs: [8, 0, 18], build: 36, operatorBuild: 14 }],
    ['8.2.0-46.13', { rs: [8, 2, 0], build: 46, operatorBuild: 13 }],
    ['7.4.6-22.rhel8-openshift', { rs: [7, 4, 6], build: 22, suffix: 'rhel8-openshift' }],
    ['6.2.10-90.rhel7-openshift', { rs: [6, 2, 10], build: 90, suffix: 'rhel7-openshift' }],
    [
      '8.0.18-36.14.rhel9-openshift',
      { rs: [8, 0, 18], build: 36, operatorBuild: 14, suffix: 'rhel9-openshift' },
    ],
    ['v7.8.2-60', { rs: [7, 8, 2], build: 60 }],
  ];
  for (const [input, expected] of good) {
    it(`parses ${input}`, () => assert.deepEqual(parseImageTag(input), expected));
  }

  const bad = [
    '',
    '7.4.6',
    '7.4.6-',
    '7.4.6-22.',
    '7.4.6-22..14',
    '7.4.6-22.14.15',
    '8.0.18-36.014',
    '7.4.6-22.RHEL8-openshift',
    '7.4.6-22.rhel8-',
    '7.4.6-22.-openshift',
    '7.4.6-22.rhel8--openshift',
    '7.4.6-22 ',
    'latest',
    '7.4-22',
  ];
  for (const input of bad) {
    it(`rejects ${JSON.stringify(input)}`, () => assert.equal(parseImageTag(input), undefined));
  }

  it('formats every form back', () => {
    for (const [input] of good) assert.equal(formatImageTag(parseImageTag(input)!), input.replace(/^v/, ''));
  });
});

describe('rsVersionOfTag and parseRsVersion', () => {
  it('reads the RS release of a tag', () => {
    assert.deepEqual(rsVersionOfTag('8.0.18-36.14'), [8, 0, 18]);
    assert.deepEqual(rsVersionOfTag('7.4.6-22.rhel8-openshift'), [7, 4, 6]);
    assert.deepEqual(rsVersionOfTag(parseImageTag('7.22.2-116')!), [7, 22, 2]);
    assert.equal(rsVersionOfTag('7.4.6'), undefined);
  });

  it('accepts a bare release, a node software_version and a tag', () => {
    assert.deepEqual(parseRsVersion('7.4.6'), [7, 4, 6]);
    assert.deepEqual(parseRsVersion('7.4.6-22'), [7, 4, 6]);
    assert.deepEqual(parseRsVersion('8.0.20-44.23'), [8, 0, 20]);
    assert.equal(parseRsVersion('7.4'), undefined);
    assert.equal(parseRsVersion('seven'), undefined);
  });

  it('parses and formats releases', () => {
    assert.deepEqual(parseRelease('7.22.0'), [7, 22, 0]);
    assert.equal(parseRelease('7.22'), undefined);
    assert.equal(parseRelease('7.22.0-1'), undefined);
    assert.equal(formatRelease([8, 0, 18]), '8.0.18');
  });
});

describe('compareImageTags', () => {
  const cmp = (a: string, b: string) => compareImageTags(parseImageTag(a)!, parseImageTag(b)!);
  it('orders by RS release, then build, numerically', () => {
    assert.equal(cmp('7.4.6-102', '7.4.6-22'), 1);
    assert.equal(cmp('7.22.0-28', '7.8.6-303'), 1);
    assert.equal(cmp('8.0.20-19.21', '8.0.18-36.14'), 1);
    assert.equal(cmp('8.0.18-36.14', '8.0.18-36.14'), 0);
  });

  it('puts a tag without operator build or suffix first', () => {
    assert.equal(cmp('8.0.18-23', '8.0.18-23.11'), -1);
    assert.equal(cmp('7.4.6-22', '7.4.6-22.rhel8-openshift'), -1);
    assert.equal(cmp('6.2.10-90.rhel7-openshift', '6.2.10-90.rhel8-openshift'), -1);
  });
});

describe('parseDatabaseVersion', () => {
  const good: [string, ReturnType<typeof parseDatabaseVersion>][] = [
    ['7.2', { major: 7, minor: 2 }],
    ['7.4', { major: 7, minor: 4 }],
    ['8.0', { major: 8, minor: 0 }],
    ['10.12', { major: 10, minor: 12 }],
    ['major', { policy: 'major' }],
    ['latest', { policy: 'latest' }],
  ];
  for (const [input, expected] of good) {
    it(`parses ${input}`, () => {
      assert.deepEqual(parseDatabaseVersion(input), expected);
      assert.equal(formatDatabaseVersion(parseDatabaseVersion(input)!), input);
    });
  }

  const bad = [
    '',
    '7',
    '7.',
    '.2',
    '7.2.1',
    'v7.2',
    '7.02',
    '07.2',
    'Major',
    'LATEST',
    'minor',
    ' 7.2',
    '7.x',
  ];
  for (const input of bad) {
    it(`rejects ${JSON.stringify(input)}`, () => assert.equal(parseDatabaseVersion(input), undefined));
  }

  it('tells policies from versions', () => {
    assert.equal(isDatabasePolicy(parseDatabaseVersion('latest')!), true);
    assert.equal(isDatabasePolicy(parseDatabaseVersion('7.4')!), false);
  });

  it('reads status values with a patch level', () => {
    assert.deepEqual(databaseVersionOf('7.2.4'), { major: 7, minor: 2 });
    assert.deepEqual(databaseVersionOf('7.4'), { major: 7, minor: 4 });
    assert.equal(databaseVersionOf('latest'), undefined);
    assert.equal(databaseVersionOf('7'), undefined);
  });

  it('compares numerically', () => {
    const v = (s: string) => databaseVersionOf(s)!;
    assert.equal(compareDatabaseVersions(v('7.4'), v('7.2')), 1);
    assert.equal(compareDatabaseVersions(v('8.10'), v('8.9')), 1);
    assert.equal(compareDatabaseVersions(v('10.0'), v('9.6')), 1);
    assert.equal(compareDatabaseVersions(v('7.2'), v('7.2.9')), 0);
  });
});

describe('require* turn malformed user input into a usage error', () => {
  const cases: [string, () => unknown, string][] = [
    ['--to', () => requireOperatorVersion('7.8', '--to'), '7.8.2-6'],
    ['--cluster-version', () => requireImageTag('7.8.2', '--cluster-version'), '8.0.18-36.14'],
    ['--db-version', () => requireDatabaseVersion('seven', '--db-version'), 'latest'],
  ];
  for (const [flag, call, example] of cases) {
    it(`${flag}`, () => {
      assert.throws(call, (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.equal(error.exitCode, ExitCode.usage);
        assert.match(error.message, new RegExp(`^${flag}: `));
        assert.ok(error.hint?.includes(example), error.hint);
        return true;
      });
    });
  }

  it('accepts good input, with surrounding spaces and a v', () => {
    assert.deepEqual(requireOperatorVersion(' v7.8.2-6 ', '--to'), { release: [7, 8, 2], build: 6 });
    assert.deepEqual(requireImageTag('8.0.18-36.14', '--cluster-version'), parseImageTag('8.0.18-36.14'));
    assert.deepEqual(requireDatabaseVersion('7.4', '--db-version'), { major: 7, minor: 4 });
    assert.deepEqual(requireDatabaseVersion('latest', '--db-version'), { policy: 'latest' });
  });
});

// ---------------------------------------------------------------------------------------------
// Properties. Small numbers make equal and chained values common enough to test the laws.

const part = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 999_999_999 }));
const release: fc.Arbitrary<Release> = fc.tuple(part, part, part);
const operatorVersion: fc.Arbitrary<OperatorVersion> = fc.record(
  { release, build: part },
  { noNullPrototype: true },
);
const suffix = fc.oneof(
  fc.constantFrom('rhel7-openshift', 'rhel8-openshift'),
  fc.stringMatching(/^[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,5}){0,2}$/),
);
const imageTag: fc.Arbitrary<ImageTag> = fc.record(
  { rs: release, build: part, operatorBuild: part, suffix },
  { requiredKeys: ['rs', 'build'], noNullPrototype: true },
);
const databaseVersion: fc.Arbitrary<DatabaseVersion> = fc.record(
  { major: part, minor: part },
  { noNullPrototype: true },
);

function orderingLaws<T>(name: string, arb: fc.Arbitrary<T>, compare: (a: T, b: T) => Ordering): void {
  describe(`${name}: ordering laws`, () => {
    it('is total: always -1, 0 or 1', () => {
      fc.assert(fc.property(arb, arb, (a, b) => [-1, 0, 1].includes(compare(a, b))));
    });
    it('is reflexive', () => {
      fc.assert(fc.property(arb, (a) => compare(a, a) === 0));
    });
    it('is antisymmetric, and 0 only for equal values', () => {
      fc.assert(
        fc.property(arb, arb, (a, b) => {
          assert.equal(compare(a, b), -compare(b, a) || 0);
          if (compare(a, b) === 0) assert.deepEqual(a, b);
        }),
      );
    });
    it('is transitive', () => {
      fc.assert(
        fc.property(arb, arb, arb, (a, b, c) => {
          if (compare(a, b) <= 0 && compare(b, c) <= 0) assert.ok(compare(a, c) <= 0);
        }),
      );
    });
  });
}

orderingLaws('compareReleases', release, compareReleases);
orderingLaws('compareOperatorVersions', operatorVersion, compareOperatorVersions);
orderingLaws('compareImageTags', imageTag, compareImageTags);
orderingLaws('compareDatabaseVersions', databaseVersion, compareDatabaseVersions);

describe('round trips: parse(format(x)) == x', () => {
  it('operator versions, with and without a v', () => {
    fc.assert(
      fc.property(operatorVersion, (v) => {
        assert.deepEqual(parseOperatorVersion(formatOperatorVersion(v)), v);
        assert.deepEqual(parseOperatorVersion(`v${formatOperatorVersion(v)}`), v);
      }),
    );
  });
  it('image tags', () => {
    fc.assert(fc.property(imageTag, (t) => assert.deepEqual(parseImageTag(formatImageTag(t)), t)));
  });
  it('releases', () => {
    fc.assert(fc.property(release, (r) => assert.deepEqual(parseRelease(formatRelease(r)), r)));
  });
  it('database versions and policies', () => {
    const spec = fc.oneof(
      databaseVersion,
      fc.constantFrom({ policy: 'major' as const }, { policy: 'latest' as const }),
    );
    fc.assert(fc.property(spec, (s) => assert.deepEqual(parseDatabaseVersion(formatDatabaseVersion(s)), s)));
  });
});

describe('numeric, not lexicographic', () => {
  it('agrees with comparing the numbers, where string order often disagrees', () => {
    fc.assert(
      fc.property(part, part, (x, y) => {
        const expected = Math.sign(x - y);
        const cmpOp = compareOperatorVersions(
          parseOperatorVersion(`7.${x}.0-1`)!,
          parseOperatorVersion(`7.${y}.0-1`)!,
        );
        const cmpBuild = compareImageTags(parseImageTag(`8.0.18-${x}.1`)!, parseImageTag(`8.0.18-${y}.1`)!);
        const cmpDb = compareDatabaseVersions(databaseVersionOf(`${x}.0`)!, databaseVersionOf(`${y}.0`)!);
        assert.equal(cmpOp, expected);
        assert.equal(cmpBuild, expected);
        assert.equal(cmpDb, expected);
      }),
    );
  });

  it('10 > 9 and 7.22 > 7.8 in every kind', () => {
    assert.equal(compareReleases([10, 0, 0], [9, 0, 0]), 1);
    assert.equal(
      compareOperatorVersions(parseOperatorVersion('7.22.0-1')!, parseOperatorVersion('7.8.0-1')!),
      1,
    );
    assert.equal(compareImageTags(parseImageTag('7.4.6-10')!, parseImageTag('7.4.6-9')!), 1);
    assert.equal(compareDatabaseVersions({ major: 7, minor: 22 }, { major: 7, minor: 8 }), 1);
  });
});
