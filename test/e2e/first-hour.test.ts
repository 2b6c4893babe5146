/**
 * Issue 38, the first hour with ctl, driven through the built ctl against the simulated cluster:
 * the demo upgrades to the target ctl itself recommends and shows the real field names; the
 * prompt and the plan name every change (a database version jump too) and how to leave the
 * databases for later; declining the prompt changes nothing and is no usage error; `-q` prints
 * no plan; a run that leaves work ends with it as its Next line, in text, JSON and the GitHub
 * step summary.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import type { Scenario } from '../helpers/simulator.js';
import { repoRoot, runCtl, spawnCtl } from '../helpers/run-ctl.js';
import {
  assertExit,
  assertNoChanges,
  parseEvents,
  SharedUpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

/** What ctl recommends for happy-path today: read from ctl itself, so the test follows the catalog. */
async function recommended(ctl: (args: string[]) => Promise<{ code: number | null; stdout: string }>) {
  const list = await ctl(['upgrade', 'plan', '-o', 'json']);
  assert.equal(list.code, 0, list.stdout);
  const to = (JSON.parse(list.stdout) as { recommended: string | null }).recommended;
  assert.ok(to, 'happy-path has a recommended target');
  return to;
}

/**
 * module-without-rhel9 with RedisGraph in place of its module: RedisGraph 2.10.12 (RS 7.4.2's
 * bundled build, rhel8 only: it has no RHEL 9 build at all) used by the database `social`, for the
 * test of RedisGraph's own rule.
 */
function withRedisGraph(scenario: Scenario): Scenario {
  const graph = { name: 'graph', version: '2.10.12' };
  const frozen = scenario.modules.find((m) => !m.platforms.some((p) => p.startsWith('rhel9/')));
  assert.ok(frozen, 'module-without-rhel9 has a module without a rhel9 build');
  return {
    ...scenario,
    modules: scenario.modules.map((m) =>
      m === frozen ? { ...graph, platforms: ['rhel8/x86_64'], kind: 'deprecated' as const } : m,
    ),
    databases: scenario.databases.map((db) =>
      db.modules.some((used) => used.name === frozen.name) ? { ...db, name: 'social', modules: [graph] } : db,
    ),
  };
}

/** For the tests that plan, decline or ask for a token: none changes the cluster. */
const happyPath = new SharedUpgradeSim('happy-path');
after(() => happyPath.close());

// Three tests at a time: each starts its own simulator or ctl demo, or takes its turn on the
// shared one (SharedUpgradeSim.use), and most of their time is ctl's start-up and simulated waits.
describe('the first hour (issue 38)', { timeout: 300_000, concurrency: 3 }, () => {
  it('ctl demo: the recommended target, the real field names, no warning in its plan', async () => {
    const demo = await runCtl(['demo', '--instant'], { timeoutMs: 120_000 });
    assertExit(demo, 0, 'demo');
    // The commands the demo stands for go to stderr, what they print to stdout.
    assert.match(demo.stderr, /\$ ctl upgrade plan\n/);
    const listed = /^ {2}\* (\S+) /m.exec(demo.stdout);
    assert.ok(listed?.[1], `the demo lists the targets first:\n${demo.stdout}`);
    const to = listed[1];
    assert.match(demo.stderr, new RegExp(`\\$ ctl upgrade plan --to ${to}\\n`));
    assert.match(demo.stderr, new RegExp(`\\$ ctl upgrade run --to ${to} --yes\\n`));
    const out = demo.stdout + demo.stderr;
    assert.match(out, /redisEnterpriseImageSpec/);
    assert.match(out, /"redisVersion":/);
    assert.doesNotMatch(out, /engineEnterpriseImageSpec|engineVersion|engine dialect/);
    // The plan the demo shows: no check warns, none fails.
    const plan = demo.stdout.slice(
      demo.stdout.indexOf('Upgrade plan for'),
      demo.stdout.indexOf('fingerprint'),
    );
    assert.match(plan, new RegExp(`operator {3}7\\.4\\.6-2 {2}-> ${to} `));
    // The plan the demo shows: nothing warns about the target. (What it says about the running
    // cluster, e.g. its line nearing its end of life, is why one upgrades: the target leaves it.)
    const warnings = plan
      .split('\n')
      .filter((line) => /^ {2}(warn|FAIL) /.test(line))
      .filter((line) => !/^ {2}warn release-rules +this cluster runs /.test(line));
    assert.deepEqual(warnings, [], plan);
    assert.match(out, /result: succeeded/);
    assert.match(out, new RegExp(`cluster {3}rec: Running at ${clusterTagFor(to)?.replace(/\./g, '\\.')}`));
  });

  it('ctl demo interrupted: exit 130, says it was the demo, offers no resume of a cluster that is gone', async () => {
    // The demo's own waits (not --instant), so Ctrl+C lands while the pods roll.
    const demo = spawnCtl(['demo'], { timeoutMs: 120_000 });
    const deadline = Date.now() + 60_000;
    while (!/\[monitor\] /.test(demo.stderr())) {
      if (demo.child.exitCode !== null || Date.now() > deadline) {
        demo.child.kill('SIGKILL');
        assert.fail(`the demo's monitor step did not start within 60 s:\n${demo.stderr()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    demo.child.kill('SIGINT');
    const ended = await demo.result;
    assert.equal(ended.code, 130, ended.stderr);
    assert.match(
      ended.stderr,
      /\nerror: the demo was interrupted by SIGINT; its simulated cluster stopped with it\nhint: Nothing outside the simulated cluster was touched, and nothing is left to resume: run ctl demo again/,
    );
    assert.doesNotMatch(ended.stderr, /resume with:/);
  });

  it('the prompt names every change and --databases none; no answers 0 and changes nothing', async () => {
    await happyPath.use('plans and a declined run', async (sim) => {
      const ctl = (args: string[]) => sim.ctl(args);
      const to = await recommended(ctl);
      const plan = await sim.ctl(['upgrade', 'plan', '--to', to]);
      assertExit(plan, 0, 'plan');
      assert.match(
        plan.stdout,
        /this run moves 3 database\(s\) from 7\.2 to 8\.6 \(a new major version of Redis\); to leave them for later, add --databases none/,
      );
      const quiet = await sim.ctl(['upgrade', 'plan', '--to', to, '-q']);
      assertExit(quiet, 0, 'plan -q');
      assert.equal(quiet.stdout, '', '-q prints no plan');

      const before = sim.cluster.audit.entries.length;
      const declined = await runCtl(['upgrade', 'run', '--to', to], {
        env: sim.env,
        cwd: sim.sandbox.dir,
        stdin: 'n\n',
        preload: path.join(repoRoot, 'dist', 'test', 'e2e', 'stdin-terminal-preload.js'),
      });
      assertExit(declined, 0, 'a declined run');
      assert.match(declined.stderr, /this run moves 3 database\(s\) from 7\.2 to 8\.6 .*--databases none\n/);
      assert.match(
        declined.stderr,
        new RegExp(
          `Upgrade redis/rec \\(operator 7\\.4\\.6-2 -> ${to}, cluster 7\\.4\\.6-22 -> ${clusterTagFor(to)?.replace(/\./g, '\\.')}, 3 database\\(s\\) 7\\.2 -> 8\\.6\\)\\? \\[y/N\\]`,
        ),
      );
      assert.match(declined.stderr, /not confirmed: nothing was changed/);
      assert.doesNotMatch(declined.stderr, /error:/);
      assertNoChanges(sim, before, 'a declined run');

      // No answer at all (Ctrl-D, the end of input) is no too: not an "unexpected failure".
      const unanswered = await runCtl(['upgrade', 'run', '--to', to], {
        env: sim.env,
        cwd: sim.sandbox.dir,
        stdin: '',
        preload: path.join(repoRoot, 'dist', 'test', 'e2e', 'stdin-terminal-preload.js'),
      });
      assertExit(unanswered, 0, 'a run whose question got no answer');
      assert.match(unanswered.stderr, /\nnot confirmed \(no answer: end of input\): nothing was changed\n/);
      assert.doesNotMatch(unanswered.stderr, /error:|unexpected|Aborted/);
      assertNoChanges(sim, before, 'an unanswered run');
    });
  });

  it('databases left by --databases none: the Next line in text, JSON and the GitHub step summary', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const to = await recommended((args) => sim.ctl(args));
      const summary = path.join(sim.sandbox.dir, 'step-summary.md');
      const run = await sim.ctl(['upgrade', 'run', '--to', to, '--databases', 'none', '--yes'], {
        env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
      });
      assertExit(run, 0, 'run --databases none');
      // Named with the kubeconfig the run read (KUBECONFIG), for a fresh shell.
      const kube = `--kubeconfig ${sim.env.KUBECONFIG ?? ''}`;
      const next = `Next: ctl upgrade run --to ${to} --yes ${kube}  (3 database(s) left at 7.2 by --databases; the target runs 8.6)`;
      assert.ok(run.stdout.trimEnd().endsWith(`result: succeeded\n${next}`), run.stdout);
      assert.match(readFileSync(summary, 'utf8'), /Next: ctl upgrade run --to \S+ --yes/);

      // The Next command does what is left: the databases, nothing else.
      const again = await sim.ctl(['upgrade', 'run', '--to', to, '--yes', '-o', 'json']);
      assertExit(again, 0, 'the Next command');
      const done = parseEvents(again.stdout).find((event) => event.type === 'done');
      assert.equal(done?.data?.result, 'succeeded');
      assert.equal(done?.data?.next, undefined, 'nothing left after the databases');
      for (const name of ['cache', 'orders', 'sessions']) {
        const db = await sim.get(['redb', name]);
        assert.equal((db.status as { version?: string } | undefined)?.version, '8.6', name);
      }
    });
  });

  it('JSON: the done event carries next and the work left', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const to = await recommended((args) => sim.ctl(args));
      const run = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        to,
        '--databases',
        'orders',
        '--yes',
        '-o',
        'json',
      ]);
      assertExit(run, 0, 'run --databases orders');
      const done = parseEvents(run.stdout).find((event) => event.type === 'done');
      assert.equal(
        done?.data?.next,
        `ctl upgrade run --to ${to} --yes -o json --kubeconfig ${sim.env.KUBECONFIG ?? ''}`,
      );
      const left = done?.data?.workLeft as { what: string }[] | undefined;
      assert.match(left?.[0]?.what ?? '', /^2 database\(s\) left at 7\.2 by --databases/);
    });
  });

  it("hints offer --ignore-check only where it can work; RedisGraph's fix is to remove it, never an upload", async () => {
    await withUpgradeSim(
      'module-without-rhel9',
      async (sim) => {
        // A release whose bundle is not there (HTTP 404): no --ignore-check can get past that.
        const bundle = `${sim.env.CTL_BUNDLE?.replace(/\{version\}.*$/, '')}missing/{version}.yaml`;
        const missing = await sim.ctl(['upgrade', 'plan', '--to', '7.22.2-45', '--bundle', bundle]);
        assertExit(missing, 3, 'a missing bundle');
        assert.match(
          missing.stdout,
          /FAIL target-available +the bundle of 7\.22\.2-45 is not there: .*HTTP 404/,
        );
        assert.doesNotMatch(missing.stdout + missing.stderr, /--ignore-check target-available/);
        // The module without a RHEL9 build fails too (and RedisGraph's release rule: it has none at
        // all), and those risks a person may take knowingly.
        assert.match(
          missing.stdout,
          /Blocked: target-available, modules-compatible, release-rules failed\. Fix them, or pass --ignore-check modules-compatible --ignore-check release-rules to accept the risk\./,
        );
        assert.match(
          missing.stderr,
          /knowingly pass --ignore-check modules-compatible --ignore-check release-rules\.\n/,
        );

        const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.22.2-45', '-o', 'json']);
        assertExit(plan, 3, 'a module without a RHEL9 build');
        // RedisGraph has no RHEL 9 build at all (RS 7.4/7.8 known limitations): the fix agrees with
        // the rule redisgraph-blocks-rhel9, and offers no upload and no --remediate.
        const checks = (JSON.parse(plan.stdout) as { checks: { id: string; status: string; fix: string }[] })
          .checks;
        const modules = checks.find((c) => c.id === 'modules-compatible');
        assert.equal(modules?.status, 'fail', plan.stdout);
        assert.match(
          modules?.fix ?? '',
          /^For each module: RedisGraph \(graph\) is end of life and has no RHEL9 build at all.*remove it from the cluster before the upgrade \(move the data of social off and delete that database, then delete the module/,
        );
        assert.doesNotMatch(modules?.fix ?? '', /--remediate|\/v2\/modules|module-rhel9/);
      },
      { patch: withRedisGraph },
    );
  });

  it("one dead run, one lock id: in status and in the next run's takeover warning alike", async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        const to = await recommended((args) => sim.ctl(args));
        const first = sim.spawnCtl(['upgrade', 'run', '--to', to, '--yes', '-o', 'json']);
        await first.waitFor('the start of monitor', (e) => e.type === 'step-start' && e.step === 'monitor');
        first.child.kill('SIGKILL');
        await first.result;

        const status = await sim.ctl(['upgrade', 'status']);
        assertExit(status, 0, 'status');
        const ids = [...status.stdout.matchAll(/lock id ([0-9a-f-]{36})/g)].map((m) => m[1]);
        assert.ok(ids.length > 0, status.stdout);
        assert.equal(new Set(ids).size, 1, status.stdout);

        // As a run killed inside its own takeover of that lock leaves it: the takeover folder and
        // the dead taker's marker. The resume right after goes on (it was exit 5, "other runs keep
        // taking it", until the folder was 10 s old: reliability run 31).
        const takeover = `${sim.statePath}.lock.takeover`;
        const taker = spawnSync(process.execPath, ['-e', '0']).pid; // exited: a dead pid
        mkdirSync(takeover);
        writeFileSync(
          path.join(takeover, `${taker}@${hostname()}`),
          JSON.stringify({ pid: taker, host: hostname() }),
        );

        const second = await sim.ctl(['upgrade', 'run', '--to', to, '--yes']);
        assertExit(second, 0, 'the run that takes over');
        assert.equal(existsSync(takeover), false, 'the left-over takeover folder is removed');
        const taken = [
          ...second.stderr.matchAll(/took over the stale lock of [^\n]*lock id ([0-9a-f-]{36})/g),
        ].map((m) => m[1]);
        assert.ok(taken.length > 0, second.stderr);
        assert.deepEqual([...new Set(taken)], [ids[0]], 'the id status showed');
      },
      // 2 s a pod: the monitor step lasts 6 s from the start event the SIGKILL is sent on.
      { timing: { operatorStart: 0.2, podRestart: 2, databaseUpgrade: 0.2 } },
    );
  });

  it('ctl alone prints its help on stdout and exits 0; ctl version; --ttl 10m', async () => {
    const bare = await runCtl([]);
    assertExit(bare, 0, 'ctl alone');
    assert.match(bare.stdout, /^Usage: ctl \[options\] \[command\]/);
    assert.match(bare.stdout, /\n {2}version +print the version/);
    assert.equal(bare.stderr, '');

    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    const version = await runCtl(['version']);
    assertExit(version, 0, 'ctl version');
    assert.equal(version.stdout, `${manifest.version}\n`);
    const json = await runCtl(['version', '-o', 'json']);
    // The docs folder beside ctl's package.json: the checkout's here, the package's when installed.
    assert.deepEqual(JSON.parse(json.stdout), {
      version: manifest.version,
      node: process.version,
      docs: path.join(repoRoot, 'docs'),
    });

    await happyPath.use('auth token', async (sim) => {
      const token = await sim.ctl(['auth', 'token', '--ttl', '10m', '-o', 'json']);
      assertExit(token, 0, 'auth token --ttl 10m');
      assert.equal((JSON.parse(token.stdout) as { ttl: number }).ttl, 600);
    });
  });

  it('-o name and -o jsonpath, as kubectl takes them', async () => {
    await happyPath.use('plans', async (sim) => {
      const to = await recommended((args) => sim.ctl(args));
      const names = await sim.ctl(['upgrade', 'plan', '-o', 'name']);
      assertExit(names, 0, 'plan -o name');
      const lines = names.stdout.trimEnd().split('\n');
      assert.equal(lines[0], to, 'the recommended target first');
      assert.ok(lines.length > 1 && lines.every((line) => /^\d+\.\d+\.\d+-\d+$/.test(line)), names.stdout);

      const path1 = await sim.ctl(['upgrade', 'plan', '--to', to, '-o', 'jsonpath={.target.operator}']);
      assertExit(path1, 0, 'plan -o jsonpath');
      assert.equal(path1.stdout, `${to}\n`);
      const passing = await sim.ctl([
        'upgrade',
        'plan',
        '--to',
        to,
        '-o',
        'jsonpath=ok: {.checks[?(@.status=="pass")].id}',
      ]);
      assert.match(passing.stdout, /^ok: cluster-found cluster-running license-valid /);
      const name = await sim.ctl(['upgrade', 'plan', '--to', to, '-o', 'name']);
      assert.equal(name.stdout, 'redisenterprisecluster.app.redislabs.com/rec\n');

      const bad = await sim.ctl(['upgrade', 'plan', '-o', 'jsonpath={range .targets[*]}']);
      assertExit(bad, 2, 'an unsupported template');
      assert.match(bad.stderr, /-o jsonpath: .*\{range \.targets\[\*\]\} is not supported/);
    });
  });
});
