import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { shellQuote } from '../../src/io/shell-words.js';
import type { Scenario } from '../helpers/simulator.js';
import {
  assertExit,
  assertNoChanges,
  assertUpgraded,
  changes,
  SharedUpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * Issue 25, ctl's side, end to end against the simulator with the built ctl: the advisory of the
 * Active-Active empty-password bug (notes of 8.0.20-27), the platform check, image variants and
 * a --catalog that knows a release the built-in catalog does not.
 */

const ADVISORY = 'reaadb-empty-password';
/** Releases the advisory affects, newest of their lines at the time (8.2.0-13: before the fix 8.2.0-15). */
const AFFECTED = '8.2.0-13';

interface CheckDoc {
  id: string;
  status: string;
  message: string;
  fix: string;
  ignored?: boolean;
}

interface PlanDoc {
  target: { operator: string; clusterVersion: string | null };
  checks: CheckDoc[];
  blocked: boolean;
  catalog?: {
    updated: string;
    origin: string;
    advisories: { id: string; running: boolean; target: boolean; fixed: string[]; triggeredBy: string[] }[];
  };
}

interface TargetsDoc {
  recommended: string | null;
  available: { operator: string; clusterVersion: string | null; foundIn: string }[];
  targets: {
    operator: string;
    recommended: boolean;
    blocked: boolean;
    advisories: string[];
    blocking: { id: string }[];
  }[];
}

const check = (plan: PlanDoc, id: string): CheckDoc => {
  const found = plan.checks.find((c) => c.id === id);
  assert.ok(found, `check ${id} is in the plan: ${plan.checks.map((c) => c.id).join(', ')}`);
  return found;
};

/** The happy path with an Active-Active database, on an operator the advisory affects (7.4.6-2). */
const withActiveActive = (scenario: Scenario): Scenario => ({
  ...scenario,
  databases: [
    ...scenario.databases,
    { ...scenario.databases[0]!, name: 'geo', modules: [], activeActive: true },
  ],
});

/** For the tests that only plan against happy-path. */
const happyPath = new SharedUpgradeSim('happy-path');
after(() => happyPath.close());

describe('release advisories (e2e)', () => {
  it('affected operator with an REAADB: the targets recommend a fixed release; the plan names the advisory', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        const before = changes(sim).length;
        const list = await sim.ctl(['upgrade', 'plan', '-o', 'json']);
        assertExit(list, 0, 'plan -o json (targets)');
        const targets = JSON.parse(list.stdout) as TargetsDoc;
        assert.ok(targets.recommended, 'a target is recommended');
        const recommended = targets.targets.find((t) => t.recommended)!;
        assert.deepEqual(recommended.advisories, [], `${recommended.operator} is affected by no advisory`);
        for (const target of targets.targets.filter((t) => t.advisories.includes(ADVISORY)))
          assert.equal(target.recommended, false, `${target.operator} is affected and not recommended`);

        const plan = await sim.ctl(['upgrade', 'plan', '--to', targets.recommended, '-o', 'json']);
        const doc = JSON.parse(plan.stdout) as PlanDoc;
        const advisories = check(doc, 'release-advisories');
        assert.equal(advisories.status, 'pass', advisories.message);
        assert.match(
          advisories.message,
          /running operator 7\.4\.6-2 is affected by advisory reaadb-empty-password/,
        );
        assert.match(advisories.message, /REAADB redis\/geo/);
        const listed = doc.catalog?.advisories.find((a) => a.id === ADVISORY);
        assert.ok(listed, 'the plan lists the advisory');
        assert.equal(listed.running, true);
        assert.equal(listed.target, false);
        assert.ok(listed.fixed.includes('8.2.0-15'), listed.fixed.join(', '));
        assert.deepEqual(listed.triggeredBy, ['REAADB redis/geo']);

        const text = await sim.ctl(['upgrade', 'plan', '--to', targets.recommended]);
        assert.match(text.stdout, /advisory reaadb-empty-password affects the running operator/);
        assert.match(text.stdout, /release catalog of \d{4}-\d{2}-\d{2} \(built-in/);
        assertNoChanges(sim, before, 'plan');
      },
      { patch: withActiveActive },
    );
  });

  it('--to an affected release with an REAADB exits 3 failing release-advisories; --ignore-check turns it into a warning', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', AFFECTED, '-o', 'json']);
        assertExit(plan, 3, `plan --to ${AFFECTED}`);
        const doc = JSON.parse(plan.stdout) as PlanDoc;
        const failing = check(doc, 'release-advisories');
        assert.equal(failing.status, 'fail');
        assert.match(failing.message, /8\.2\.0-13 is affected by advisory reaadb-empty-password/);
        assert.match(failing.message, /REAADB redis\/geo/);
        assert.match(failing.fix, /--to 8\.2\.0-18/, 'the fix names the newest fixed release of the line');

        const ignored = await sim.ctl([
          'upgrade',
          'plan',
          '--to',
          AFFECTED,
          '--ignore-check',
          'release-advisories',
          '-o',
          'json',
        ]);
        const warned = check(JSON.parse(ignored.stdout) as PlanDoc, 'release-advisories');
        assert.equal(warned.status, 'warn');
        assert.equal(warned.ignored, true);
      },
      { patch: withActiveActive },
    );
  });

  it('--to an affected release without an REAADB only warns', async () => {
    await happyPath.use('plan --to an affected release', async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', AFFECTED, '-o', 'json']);
      const doc = JSON.parse(plan.stdout) as PlanDoc;
      const warned = check(doc, 'release-advisories');
      assert.equal(warned.status, 'warn', warned.message);
      assert.match(warned.message, /nothing in this cluster triggers it/);
    });
  });
});

describe('platform-supported (e2e)', () => {
  const on129 = (scenario: Scenario): Scenario => ({ ...scenario, kubernetesVersion: '1.29' });

  it('Kubernetes 1.29: no target that drops it is recommended; --to one exits 3 failing platform-supported', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        const list = await sim.ctl(['upgrade', 'plan', '-o', 'json']);
        assertExit(list, 0, 'plan -o json (targets)');
        const targets = JSON.parse(list.stdout) as TargetsDoc;
        const newest = targets.targets.find((t) => t.operator === '8.2.0-18');
        assert.ok(newest, `8.2.0-18 is listed: ${targets.targets.map((t) => t.operator).join(', ')}`);
        assert.equal(newest.blocked, true);
        assert.ok(newest.blocking.some((b) => b.id === 'platform-supported'));
        for (const target of targets.targets.filter((t) =>
          t.blocking.some((b) => b.id === 'platform-supported'),
        ))
          assert.equal(target.recommended, false, `${target.operator} is not recommended`);
        assert.ok(targets.recommended, 'a release that supports 1.29 is recommended');
        const text = await sim.ctl(['upgrade', 'plan']);
        assert.match(text.stdout, /blocked: .*platform-supported/);

        const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '-o', 'json']);
        assertExit(plan, 3, 'plan --to 8.2.0-18 on 1.29');
        const failing = check(JSON.parse(plan.stdout) as PlanDoc, 'platform-supported');
        assert.equal(failing.status, 'fail');
        assert.match(
          failing.message,
          /8\.2\.0-18 does not support Kubernetes 1\.29 \(it supports 1\.33-1\.36/,
        );
        assert.match(failing.fix, /Upgrade Kubernetes first/);
      },
      { patch: on129 },
    );
  });

  it('Kubernetes 1.32 and a target that lists it as deprecated: a warning, the plan may run', async () => {
    // happy-path runs Kubernetes 1.33 (fully supported by 8.2.0-18): this cluster is on 1.32.
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '-o', 'json']);
        const warned = check(JSON.parse(plan.stdout) as PlanDoc, 'platform-supported');
        assert.equal(warned.status, 'warn', warned.message);
        assert.match(warned.message, /Kubernetes 1\.32 as deprecated/);
      },
      { patch: (scenario: Scenario): Scenario => ({ ...scenario, kubernetesVersion: '1.32' }) },
    );
  });
});

describe('image variants (e2e)', () => {
  it('a cluster on the .minimal image plans to the .minimal tag of the target', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.0.20-27', '-o', 'json']);
        const doc = JSON.parse(plan.stdout) as PlanDoc;
        assert.equal(doc.target.clusterVersion, '8.0.20-108.27.minimal', plan.stderr);
      },
      {
        patch: (scenario) => ({
          ...scenario,
          operator: { ...scenario.operator, version: '8.0.18-14' },
          cluster: { ...scenario.cluster, versionTag: '8.0.18-36.14.minimal', apiVersion: '8.0.18-36' },
        }),
      },
    );
  });
});

describe('--catalog (e2e)', () => {
  /** A release newer than the built-in catalog (the example of SIMULATOR.md's `releases:`). */
  const NEWER = { operator: '8.2.0-25', rs: '8.2.0-80.25' };
  const catalogFile = (dir: string): string => {
    const file = join(dir, 'catalog.yaml');
    writeFileSync(
      file,
      [
        'format: 1',
        'updated: "2026-11-26"',
        'releases:',
        `  - operator: ${NEWER.operator}`,
        `    clusterTags: ["${NEWER.rs}"]`,
        '    variants: [minimal]',
        '    databaseVersions: ["7.2", "7.4", "8.2", "8.6"]',
        '    defaultDatabaseVersion: "8.6"',
        '    kubernetes: {supported: ["1.33", "1.34", "1.35", "1.36"], deprecated: ["1.32"]}',
        '    source: ["test: a release newer than the built-in catalog"]',
        '',
      ].join('\n'),
    );
    return file;
  };

  it('plan reaches a release only the --catalog file knows; without it, --to that release is a usage error', async () => {
    await happyPath.use('plan --catalog', async (sim) => {
      const unknown = await sim.ctl(['upgrade', 'plan', '--to', NEWER.operator]);
      assertExit(unknown, 2, 'plan --to an unknown release');
      assert.match(unknown.stderr, /--catalog FILE_OR_URL/);

      const file = catalogFile(sim.sandbox.dir);
      const plan = await sim.ctl([
        'upgrade',
        'plan',
        '--to',
        NEWER.operator,
        '--catalog',
        file,
        '-o',
        'json',
      ]);
      const doc = JSON.parse(plan.stdout) as PlanDoc;
      assert.equal(doc.target.clusterVersion, NEWER.rs, plan.stderr);
      assert.equal(doc.catalog?.origin, `built-in + ${file}`);
      const viaEnv = await sim.ctl(['upgrade', 'plan', '-o', 'json'], { env: { CTL_CATALOG: file } });
      const targets = JSON.parse(viaEnv.stdout) as TargetsDoc;
      assert.ok(
        targets.targets.some((t) => t.operator === NEWER.operator),
        `the target list has ${NEWER.operator}: ${targets.targets.map((t) => t.operator).join(', ')}`,
      );
    });
  });

  it('a catalog that breaks the schema is a usage error (exit 2) naming the problem', async () => {
    await happyPath.use('plan --catalog <bad>', async (sim) => {
      const file = join(sim.sandbox.dir, 'bad-catalog.json');
      writeFileSync(
        file,
        JSON.stringify({ format: 1, updated: 'yesterday', releases: [{ operator: '8.2' }] }),
      );
      const result = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '--catalog', file]);
      assertExit(result, 2, 'plan --catalog bad');
      assert.match(result.stderr, /does not follow docs\/catalog\.schema\.json/);
      assert.match(result.stderr, /\/updated/);
      assert.match(result.stderr, /\/releases\/0/);
    });
  });
});

describe('newer releases than the catalog (e2e)', () => {
  it('helm install: a chart version of the repository that the catalog lacks is listed as available, with where', async () => {
    await withUpgradeSim('helm-installed', async (sim) => {
      // A chart repository is a folder with index.yaml (helm's repository format).
      const repo = join(sim.sandbox.dir, 'repo');
      mkdirSync(repo);
      writeFileSync(
        join(repo, 'index.yaml'),
        [
          'apiVersion: v1',
          'entries:',
          '  redis-enterprise-operator:',
          '    - {name: redis-enterprise-operator, version: 8.2.0-25, urls: [redis-enterprise-operator-8.2.0-25.tgz]}',
          '    - {name: redis-enterprise-operator, version: 8.2.0-18, urls: [redis-enterprise-operator-8.2.0-18.tgz]}',
          '',
        ].join('\n'),
      );
      const list = await sim.ctl(['upgrade', 'plan', '--helm-repo', repo, '-o', 'json']);
      assertExit(list, 0, 'plan -o json (targets)');
      const doc = JSON.parse(list.stdout) as TargetsDoc;
      assert.deepEqual(doc.available, [
        {
          operator: '8.2.0-25',
          clusterVersion: null,
          foundIn: `helm repository ${repo}, chart redis-enterprise-operator`,
        },
      ]);
      const text = await sim.ctl(['upgrade', 'plan', '--helm-repo', repo]);
      assert.match(text.stdout, /\+ 8\.2\.0-25 +available, not in ctl's catalog \(helm repository/);
      // Its plan command repeats the flags the list was asked with (here --helm-repo), and names
      // the kubeconfig that KUBECONFIG chose (a pasted line reaches the same cluster).
      assert.ok(
        text.stdout.includes(
          `ctl upgrade plan --to 8.2.0-25 --helm-repo ${shellQuote(repo)} --kubeconfig ${shellQuote(sim.cluster.kubeconfigPath)} --cluster-version IMAGE_TAG (its cluster image tag), or --catalog FILE_OR_URL that lists it`,
        ),
        text.stdout,
      );

      const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '--helm-repo', repo, '-o', 'json']);
      const planned = JSON.parse(plan.stdout) as PlanDoc & { catalog: { available: { operator: string }[] } };
      assert.deepEqual(
        planned.catalog.available.map((r) => r.operator),
        ['8.2.0-25'],
      );
    });
  });
});

describe('--catalog end to end (e2e; needs the simulator key releases: of branch simworld)', () => {
  it('run reaches a release only the --catalog file and the simulated world know', async () => {
    const NEWER = { operator: '8.2.0-25', rs: '8.2.0-80.25' };
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        const file = join(sim.sandbox.dir, 'catalog.json');
        writeFileSync(
          file,
          JSON.stringify({
            format: 1,
            updated: '2026-11-26',
            releases: [
              {
                operator: NEWER.operator,
                clusterTags: [NEWER.rs],
                databaseVersions: ['7.2', '7.4', '8.2', '8.6'],
                defaultDatabaseVersion: '8.6',
                kubernetes: { supported: ['1.33', '1.34', '1.35', '1.36'], deprecated: ['1.32'] },
                source: ['test'],
              },
            ],
          }),
        );
        const result = await sim.ctl(
          ['upgrade', 'run', '--to', NEWER.operator, '--catalog', file, '--yes', '-o', 'json'],
          { timeoutMs: 180_000 },
        );
        assertExit(result, 0, `run --to ${NEWER.operator} --catalog`);
        await assertUpgraded(sim, { operator: NEWER.operator, tag: NEWER.rs, dbVersion: '8.6' });
      },
      {
        patch: (scenario) =>
          ({
            ...scenario,
            // SIMULATOR.md, third round: releases of the simulated world beyond its built-in list.
            releases: [
              {
                operator: NEWER.operator,
                rs: NEWER.rs,
                databaseVersions: ['7.2', '7.4', '8.2', '8.6'],
                defaultDatabaseVersion: '8.6',
                kubernetes: { supported: ['1.33', '1.34', '1.35', '1.36'], deprecated: ['1.32'] },
              },
            ],
          }) as Scenario,
      },
    );
  });
});
