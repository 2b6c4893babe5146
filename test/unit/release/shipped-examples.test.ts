import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { advisoriesAffecting } from '../../../src/release/advisories.js';
import { releaseEntryFor } from '../../../src/release/catalog.js';
import { platformVerdict } from '../../../src/release/platforms.js';
import { loadScenario } from '../../../src/sim/scenario.js';
import { repoRoot } from '../../helpers/tools.js';

/**
 * Issue 38, "examples follow ctl's own advice": every release a shipped example upgrades to (the
 * README, docs/, the `--help` examples, both CI examples, deploy/, the Dockerfile) is one ctl
 * itself would not warn about: a release of the catalog, affected by no advisory, and supported
 * (not only deprecated) on the example's platform. The platform of an example is the simulated
 * cluster the newcomer runs it on: happy-path's Kubernetes, or the openshift scenario's OpenShift
 * for a file about OpenShift. The test reads the catalog as it is, so when a new advisory or
 * support table lands, the examples that it turns into bad advice fail here.
 */

/** Every file a user reads examples in, relative to the repository. */
function shippedFiles(): string[] {
  const files = ['README.md', 'Dockerfile', 'dist/bundle/help.json'];
  const walk = (dir: string): string[] =>
    readdirSync(path.join(repoRoot, dir)).flatMap((name) => {
      const relative = path.join(dir, name);
      return statSync(path.join(repoRoot, relative)).isDirectory() ? walk(relative) : [relative];
    });
  // docs/performance.md and docs/reliability.md record what was measured (with the release it
  // was measured on): records, not examples to follow.
  const records = new Set(['docs/performance.md', 'docs/reliability.md']);
  files.push(
    ...walk('examples'),
    ...walk('deploy'),
    ...walk('docs').filter((file) => file.endsWith('.md') && !records.has(file)),
  );
  return files.filter((file) => existsSync(path.join(repoRoot, file)));
}

/** An operator release: `8.2.0-18` (and not an RS tag such as `8.2.0-78.18`). */
const RELEASE = String.raw`\d+\.\d+\.\d+-\d+(?![\d.])`;

/**
 * The releases a file names as a target: `--to X`, `--to=X`, a Job's `--to, X`, a CI variable
 * (`TARGET_VERSION: X`, a workflow input's `default: X`), and `docker run IMAGE ... --to X`.
 */
export function exampleTargets(text: string): string[] {
  const patterns = [
    new RegExp(String.raw`--to[= ](?:"|')?(${RELEASE})`, 'g'),
    new RegExp(String.raw`--to,\s*(${RELEASE})`, 'g'),
    new RegExp(String.raw`TARGET_VERSION:\s*(${RELEASE})`, 'g'),
    new RegExp(String.raw`default:\s*(${RELEASE})`, 'g'),
    new RegExp(String.raw`value:\s*(${RELEASE})`, 'g'),
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1] as string));
}

/**
 * Examples whose very point is a release ctl refuses or warns about, each with the reason. A
 * document that shows what ctl says about a bad target must name one; nothing else may.
 */
const DELIBERATE: Record<string, string> = {
  'docs/troubleshooting.md 7.9.9-9': 'the error for a release the catalog does not know',
  'docs/catalog.md 8.2.0-8': 'a release redis/docs drafted and never published, an unknown release',
  'docs/catalog.md 8.2.0-25': "a release the user's own --catalog adds",
  'docs/checks.md 7.4.6-12': 'the intermediate hop the operator-min-version fix names, before the target',
  'docs/checks.md 7.2.4-2': "the OpenShift RHEL7 cluster's hop the upgrade-path fix names",
  'docs/checks.md 7.8.2-6': 'olm-update-path: the plan that fails on a hole in the certified catalog',
  'docs/checks.md 7.8.6-20': "olm-update-path: the nearest target OLM can reach, as that plan's fix names it",
  'docs/catalog.md 8.0.10-23': 'a target whose RS 8.0.10 the example rule of a --catalog file applies to',
  'docs/operator-methods.md 7.8.6-20':
    'the hint for a target without a trustworthy tag on Kubernetes 1.32, which 7.8.6-20 supports (src/planning/release-neighbour.ts)',
};

function problems(release: string, file: string): string[] {
  if (DELIBERATE[`${file} ${release}`]) return [];
  const found: string[] = [];
  if (!releaseEntryFor(release)) found.push('not a release of the catalog');
  for (const advisory of advisoriesAffecting(release)) found.push(`affected by advisory ${advisory.id}`);
  const openshift = /openshift/i.test(file);
  const scenario = loadScenario(openshift ? 'openshift' : 'happy-path');
  const kind = openshift ? 'openshift' : 'kubernetes';
  const version = openshift ? (scenario.openshiftVersion ?? '') : scenario.kubernetesVersion;
  const verdict = platformVerdict(release, kind, version);
  if (verdict.status !== 'supported')
    found.push(`${verdict.status} on ${kind} ${version} (lists ${verdict.listed.join(', ') || 'nothing'})`);
  return found.map((problem) => `${file}: --to ${release}: ${problem}`);
}

describe('shipped examples follow the catalog (issue 38)', () => {
  it('reads targets in every form the examples use', () => {
    assert.deepEqual(
      exampleTargets(
        [
          'ctl upgrade plan --to 8.2.0-18 -n redis',
          'args: [upgrade, run, --to, 8.0.20-27, --yes]',
          '  TARGET_VERSION: 7.22.2-45',
          '        default: 7.8.6-20',
          '- --to=8.2.0-15',
          'cluster 7.4.6-22 -> 8.2.0-78.18',
        ].join('\n'),
      ),
      ['8.2.0-18', '8.2.0-15', '8.0.20-27', '7.22.2-45', '7.8.6-20'],
    );
  });

  it('a release with an advisory, or outside the support table, is reported', () => {
    assert.match(problems('7.8.2-6', 'README.md').join('\n'), /advisory reaadb-empty-password/);
    assert.match(problems('7.8.2-6', 'README.md').join('\n'), /newer on kubernetes/);
    assert.deepEqual(problems('8.2.0-18', 'README.md'), []);
  });

  it('every example upgrades to a release ctl does not warn about', () => {
    const found: string[] = [];
    let seen = 0;
    for (const file of shippedFiles()) {
      const text = readFileSync(path.join(repoRoot, file), 'utf8');
      for (const release of exampleTargets(text)) {
        seen += 1;
        found.push(...problems(release, file));
      }
    }
    assert.ok(seen > 10, `the examples were read (${seen} targets)`);
    assert.deepEqual([...new Set(found)], []);
  });

  it('user documents cite no design contract (CLI.md, SIMULATOR.md): users do not have them', () => {
    const cited = shippedFiles()
      .filter((file) => file.endsWith('.md') || file === 'README.md')
      .concat(['README.md', 'docs/performance.md', 'docs/reliability.md'])
      .filter((file) => /\b(CLI|SIMULATOR)\.md\b/.test(readFileSync(path.join(repoRoot, file), 'utf8')));
    assert.deepEqual([...new Set(cited)], []);
  });
});
