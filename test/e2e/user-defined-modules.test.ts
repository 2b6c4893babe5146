import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { crdsFor } from '../helpers/simulator.js';
import { assertExit, assertNoChanges, getPath, withUpgradeSim } from './upgrade-support.js';

/**
 * `--user-defined-modules FILE` (issue 37 item 3): a running operator older than 8.0.6-8 has no
 * spec.userDefinedModules in its REC CRD, so a custom module without a build for the target
 * cannot be listed before the upgrade; ctl sets the list with the new versionTag, after the
 * operator step brought the new CRD, as the upgrade docs do in one edit. The built ctl against
 * the simulator, on scenarios written here (names and namespaces used nowhere else).
 */

const dir = tempDir('ctl-udm-e2e-');

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** A cluster on `operator` whose database `herbarium` uses the custom module `inkwell`, with no RHEL9 build. */
function customModuleCluster(
  name: string,
  operator: string,
  tag: string,
  dbVersion: string,
  installedBy: 'bundle' | 'helm' = 'bundle',
): string {
  // Two tests write a scenario of the same name (palimpsest with other versions): a file each.
  return write(
    `${name}-${operator}-${installedBy}.yaml`,
    `name: ${name}
description: "written by test/e2e/user-defined-modules.test.ts"
dialect: redis
namespace: scriptorium-${name}
operator: { version: ${operator}, installedBy: ${installedBy} }
cluster: { name: codex, versionTag: ${tag} }
modules:
  - { name: inkwell, version: 3.1.4, platforms: [rhel8/x86_64], kind: custom }
databases:
  - { name: herbarium, version: "${dbVersion}", modules: [{ name: inkwell, version: 3.1.4 }] }
`,
  );
}

const LISTING = write(
  'modules.yaml',
  `- name: inkwell
  source:
    https:
      url: https://artifacts.scriptorium.example/inkwell-3.1.4-rhel9.zip
      credentialsSecret: scriptorium-artifacts
`,
);

const OTHER_LISTING = write(
  'other.yaml',
  '- { name: quillpen, source: { https: { url: "https://artifacts.scriptorium.example/quillpen.zip" } } }\n',
);

interface Check {
  id: string;
  status: string;
  message: string;
  fix: string;
}

function modulesCheck(stdout: string): Check {
  const plan = JSON.parse(stdout) as { checks: Check[] };
  const check = plan.checks.find((c) => c.id === 'modules-compatible');
  assert.ok(check, stdout);
  return check;
}

const TARGET = '8.0.6-8';
const REC_CRD = 'redisenterpriseclusters.app.redislabs.com';

/** Whether the live REC CRD declares spec.userDefinedModules (every served version). */
async function crdDeclaresField(sim: { get(args: string[]): Promise<unknown> }): Promise<boolean[]> {
  const crd = await sim.get(['crd', REC_CRD]);
  const versions = getPath(crd, ['spec', 'versions']) as unknown[];
  return versions.map(
    (v) =>
      getPath(v, ['schema', 'openAPIV3Schema', 'properties', 'spec', 'properties', 'userDefinedModules']) !==
      undefined,
  );
}

/** Replaces the live REC CRD by the one operator `version` ships (an operator upgraded without its CRDs). */
async function replaceRecCrd(
  sim: { kubectl(args: string[]): Promise<string> },
  version: string,
  name: string,
): Promise<void> {
  const crd = crdsFor('redis', version).find(
    (c) => (c as { metadata: { name: string } }).metadata.name === REC_CRD,
  );
  const file = write(`${name}-rec-crd.json`, JSON.stringify(crd));
  await sim.kubectl(['replace', '-f', file]);
}

function outcomeText(result: { stdout: string; stderr: string }): string {
  return `${result.stdout}\n${result.stderr}`;
}

// Each test has a cluster of its own and waits mostly for ctl: two go side by side.
describe(
  '--user-defined-modules: custom modules set with the new versionTag (issue 37, e2e)',
  { timeout: 900_000, concurrency: 2 },
  () => {
    it('7.22 running: the fix names the flag; with the file the check passes and the run sets both', async () => {
      await withUpgradeSim(customModuleCluster('vellum', '7.22.2-43', '7.22.2-179', '7.4'), async (sim) => {
        const base = ['upgrade', 'plan', '--to', TARGET, '--max-hops', '1', '-o', 'json'];
        const without = await sim.ctl(base);
        assertExit(without, 3, 'plan without the file');
        const failing = modulesCheck(without.stdout);
        assert.equal(failing.status, 'fail', failing.message);
        assert.match(failing.message, /inkwell 3\.1\.4 \(platforms: rhel8\/x86_64; used by herbarium\)/);
        assert.match(
          failing.fix,
          new RegExp(
            `ctl --kubeconfig \\S+ upgrade run --to ${TARGET.replace(/\./g, '\\.')} --user-defined-modules FILE`,
          ),
        );
        // The running 7.22 CRD has no such field: no patch to make now.
        assert.doesNotMatch(failing.fix, /kubectl (--kubeconfig \S+ )?patch rec codex/);

        const unlisted = await sim.ctl([...base, '--user-defined-modules', OTHER_LISTING]);
        assertExit(unlisted, 3, 'plan with a file that does not list inkwell');
        assert.equal(modulesCheck(unlisted.stdout).status, 'fail');

        const planFile = path.join(dir, 'vellum-plan.json');
        // Saved for `run --plan`, which takes the list from the plan, not from a flag.
        const listed = await sim.ctl([
          ...base,
          '--databases',
          'none',
          '--user-defined-modules',
          LISTING,
          '--out',
          planFile,
        ]);
        const passing = modulesCheck(listed.stdout);
        assert.equal(passing.status, 'pass', passing.message);
        assert.match(passing.message, /inkwell 3\.1\.4: listed in --user-defined-modules/);
        const saved = JSON.parse(listed.stdout) as {
          target: { selection: { userDefinedModules?: unknown } };
        };
        assert.deepEqual(saved.target.selection.userDefinedModules, [
          {
            name: 'inkwell',
            source: {
              https: {
                url: 'https://artifacts.scriptorium.example/inkwell-3.1.4-rhel9.zip',
                credentialsSecret: 'scriptorium-artifacts',
              },
            },
          },
        ]);

        const dry = await sim.ctl([
          ...['upgrade', 'run', '--to', TARGET, '--max-hops', '1', '--databases', 'none', '--yes'],
          ...['--user-defined-modules', LISTING, '--dry-run'],
        ]);
        assertExit(dry, 0, 'dry run');
        assert.match(
          `${dry.stdout}\n${dry.stderr}`,
          /would set .*versionTag.* and spec\.userDefinedModules \(inkwell\)/,
        );
        const before = await sim.get(['rec', 'codex', '-n', 'scriptorium-vellum']);
        assert.equal(getPath(before, ['spec', 'userDefinedModules']), undefined);

        const doubled = await sim.ctl([
          'upgrade',
          'run',
          '--plan',
          planFile,
          '--yes',
          '--user-defined-modules',
          OTHER_LISTING,
        ]);
        assertExit(doubled, 2, 'run --plan with --user-defined-modules');
        assert.match(
          doubled.stderr,
          /--plan fixes the target and selection; --user-defined-modules cannot be combined/,
        );

        const run = await sim.ctl(['upgrade', 'run', '--plan', planFile, '--yes'], { timeoutMs: 600_000 });
        assertExit(run, 0, 'run --plan');
        const rec = await sim.get(['rec', 'codex', '-n', 'scriptorium-vellum']);
        assert.deepEqual(
          getPath(rec, ['spec', 'userDefinedModules']),
          saved.target.selection.userDefinedModules,
        );
        const tag = getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'versionTag']);
        assert.equal(typeof tag, 'string');
        assert.notEqual(tag, '7.22.2-179');
      });
    });

    it('8.0.2-x running: the fix names the flag too; a target without the field refuses the flag (exit 2)', async () => {
      await withUpgradeSim(customModuleCluster('palimpsest', '8.0.2-6', '8.0.2-41', '8.0'), async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--max-hops', '1', '-o', 'json']);
        assertExit(plan, 3, 'plan');
        const check = modulesCheck(plan.stdout);
        assert.equal(check.status, 'fail', check.message);
        assert.match(check.fix, /--user-defined-modules FILE/);
        const listed = await sim.ctl([
          'upgrade',
          'plan',
          '--to',
          TARGET,
          '--max-hops',
          '1',
          '-o',
          'json',
          '--user-defined-modules',
          LISTING,
        ]);
        assert.equal(modulesCheck(listed.stdout).status, 'pass');
        const old = await sim.ctl(['upgrade', 'plan', '--to', '8.0.2-6', '--user-defined-modules', LISTING]);
        assertExit(old, 2, 'a target before 8.0.6-8');
        assert.match(old.stderr, /has no spec\.userDefinedModules \(it exists from operator 8\.0\.6-8\)/);
      });
    });

    it('--skip operator on a 7.22 CRD without the field: run refuses before any change; the operator step brings it', async () => {
      await withUpgradeSim(
        customModuleCluster('marginalia', '7.22.2-43', '7.22.2-179', '7.4'),
        async (sim) => {
          // The simulator serves the CRD of the running operator: no spec.userDefinedModules before 8.0.6-8.
          assert.deepEqual(await crdDeclaresField(sim), [false, false]);
          const plan = await sim.ctl([
            ...['upgrade', 'plan', '--to', TARGET, '--max-hops', '1', '-o', 'json'],
            ...['--user-defined-modules', LISTING],
          ]);
          // The operator step installs the CRD of 8.0.6-8 before the cluster step: nothing to refuse.
          const check = modulesCheck(plan.stdout);
          assert.equal(check.status, 'pass', check.message);
          assert.doesNotMatch(check.message, /CRD/);

          const run = [
            ...['upgrade', 'run', '--to', TARGET, '--max-hops', '1', '--databases', 'none', '--yes'],
            ...['--user-defined-modules', LISTING, '--skip', 'operator'],
          ];
          for (const extra of [['--dry-run'], ['-o', 'json'], []]) {
            const before = sim.cluster.audit.entries.length;
            const refused = await sim.ctl([...run, ...extra]);
            assertExit(refused, 3, `run --skip operator ${extra.join(' ')}`);
            assert.match(
              outcomeText(refused),
              /CRD redisenterpriseclusters\.app\.redislabs\.com does not declare spec\.userDefinedModules \(version v1\) and the operator step does not run/,
            );
            assert.match(outcomeText(refused), /drop --skip operator/);
            assertNoChanges(sim, before, `run --skip operator ${extra.join(' ')}`);
          }
          // --ignore-check does not get past it either: the cluster step would lose the list, so
          // the check stays failing and the run refuses in its preflight, saying why.
          const before = sim.cluster.audit.entries.length;
          const ignored = await sim.ctl([...run, '--ignore-check', 'modules-compatible']);
          assertExit(ignored, 3, 'run --skip operator --ignore-check modules-compatible');
          assert.match(
            outcomeText(ignored),
            /does not declare spec\.userDefinedModules .*\(--ignore-check modules-compatible cannot get past it: the API server drops spec\.userDefinedModules whatever ctl ignores\)/,
          );
          assertNoChanges(sim, before, 'run --skip operator --ignore-check modules-compatible');
          const rec = await sim.get(['rec', 'codex', '-n', 'scriptorium-marginalia']);
          assert.equal(getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'versionTag']), '7.22.2-179');
          assert.equal(getPath(rec, ['spec', 'userDefinedModules']), undefined);
        },
      );
    });

    it('an operator on the target with an old CRD: plan blocked (exit 3); with the CRD back, plan and dry run set the list', async () => {
      await withUpgradeSim(customModuleCluster('colophon', TARGET, '8.0.6-54', '8.0'), async (sim) => {
        assert.deepEqual(await crdDeclaresField(sim), [true, true]);
        await replaceRecCrd(sim, '8.0.2-6', 'colophon');
        assert.deepEqual(await crdDeclaresField(sim), [false, false]);
        const plan = [
          ...['upgrade', 'plan', '--to', TARGET, '--max-hops', '1', '-o', 'json'],
          ...['--user-defined-modules', LISTING],
        ];
        const blocked = await sim.ctl(plan);
        assertExit(blocked, 3, 'plan on an old CRD');
        const failing = modulesCheck(blocked.stdout);
        assert.equal(failing.status, 'fail', failing.message);
        assert.match(failing.message, /the operator already runs 8\.0\.6-8, so the run installs no CRD/);
        assert.match(
          failing.fix,
          /kubectl (--kubeconfig \S+ )?apply --server-side -f \S+\/crds\/rec_crd\.yaml/,
        );
        const text = await sim.ctl(plan.filter((arg) => arg !== '-o' && arg !== 'json'));
        assertExit(text, 3, 'plan (text) on an old CRD');
        assert.match(text.stdout + text.stderr, /does not declare spec\.userDefinedModules/);
        // Without the flag the CRD is not read, and nothing about it is said.
        const without = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--max-hops', '1', '-o', 'json']);
        assert.doesNotMatch(modulesCheck(without.stdout).message, /CRD/);

        await replaceRecCrd(sim, TARGET, 'colophon-back');
        const passing = modulesCheck((await sim.ctl(plan)).stdout);
        assert.equal(passing.status, 'pass', passing.message);
        assert.match(passing.message, /declares spec\.userDefinedModules/);
        const dry = await sim.ctl([
          ...['upgrade', 'run', '--to', TARGET, '--max-hops', '1', '--databases', 'none', '--yes'],
          ...['--user-defined-modules', LISTING, '--skip', 'operator', '--dry-run'],
        ]);
        assertExit(dry, 0, 'dry run with the CRD back');
        assert.match(outcomeText(dry), /spec\.userDefinedModules \(inkwell\)/);
      });
    });

    it('without preflight (--only cluster, --skip preflight) on an old CRD: a dry run warns that the failing plan runs unchecked, and refuses as the run does, changing nothing', async () => {
      await withUpgradeSim(customModuleCluster('palimpsest', TARGET, '8.0.6-54', '8.0'), async (sim) => {
        await replaceRecCrd(sim, '8.0.2-6', 'palimpsest');
        assert.deepEqual(await crdDeclaresField(sim), [false, false]);
        const run = [
          ...['upgrade', 'run', '--to', TARGET, '--max-hops', '1', '--databases', 'none', '--yes'],
          ...['--user-defined-modules', LISTING],
        ];
        const refusal = (result: { stderr: string }): string => {
          const line = /^error: (.*)$/m.exec(result.stderr)?.[1];
          assert.ok(line, result.stderr);
          return line;
        };
        const dryRuns = [
          ['--only', 'cluster', '--dry-run'],
          ['--skip', 'preflight', '--dry-run'],
          ['--skip', 'preflight', '--ignore-check', 'modules-compatible', '--dry-run=server'],
        ];
        const said: string[] = [];
        for (const extra of dryRuns) {
          const before = sim.cluster.audit.entries.length;
          const dry = await sim.ctl([...run, ...extra]);
          // Before: exit 0, "would set spec.userDefinedModules", although the run refuses.
          assertExit(dry, 1, `dry run ${extra.join(' ')}`);
          assert.doesNotMatch(dry.stderr, /would set spec\.userDefinedModules/);
          // Said before any step: the plan fails, and nothing stops the run before its steps.
          assert.match(
            dry.stderr,
            /^warning: the plan fails 1 check\(s\) \(modules-compatible\) and preflight, which would stop the run there, is left out \(--only\/--skip\)/m,
          );
          said.push(refusal(dry));
          assertNoChanges(sim, before, `dry run ${extra.join(' ')}`);
        }
        const before = sim.cluster.audit.entries.length;
        const real = await sim.ctl([...run, '--only', 'cluster']);
        assertExit(real, 1, 'run --only cluster');
        assert.match(
          refusal(real),
          /^not upgrading rec\/codex -n scriptorium-palimpsest: the CRD redisenterpriseclusters\.app\.redislabs\.com does not declare spec\.userDefinedModules, so the API server would drop the list \(inkwell\)/,
        );
        assertNoChanges(sim, before, 'run --only cluster');
        // The same words as the run's.
        for (const line of said) assert.equal(line, refusal(real));
      });
    });

    it('a dry run whose operator step installs the CRD does not refuse on the CRD it replaces', async () => {
      await withUpgradeSim(customModuleCluster('vellum', '7.22.2-43', '7.22.2-179', '7.4'), async (sim) => {
        assert.deepEqual(await crdDeclaresField(sim), [false, false]);
        const dry = await sim.ctl([
          ...['upgrade', 'run', '--to', TARGET, '--max-hops', '1', '--databases', 'none', '--yes'],
          ...['--user-defined-modules', LISTING, '--skip', 'preflight', '--dry-run'],
        ]);
        assertExit(dry, 0, 'dry run with the operator step');
        assert.match(outcomeText(dry), /spec\.userDefinedModules \(inkwell\)/);
      });
    });

    it('helm install on 7.22: the chart upgrade brings the CRD with the field, and the run sets the list', async () => {
      await withUpgradeSim(
        customModuleCluster('rubric', '7.22.2-43', '7.22.2-179', '7.4', 'helm'),
        async (sim) => {
          assert.deepEqual(await crdDeclaresField(sim), [false, false]);
          const run = await sim.ctl(
            [
              ...['upgrade', 'run', '--to', TARGET, '--max-hops', '1', '--databases', 'none', '--yes'],
              ...['--user-defined-modules', LISTING],
            ],
            { timeoutMs: 600_000 },
          );
          assertExit(run, 0, 'helm run with --user-defined-modules');
          assert.deepEqual(await crdDeclaresField(sim), [true, true]);
          const rec = await sim.get(['rec', 'codex', '-n', 'scriptorium-rubric']);
          assert.deepEqual(
            (getPath(rec, ['spec', 'userDefinedModules']) as { name: string }[]).map((m) => m.name),
            ['inkwell'],
          );
        },
      );
    });
  },
);
