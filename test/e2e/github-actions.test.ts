/**
 * `ctl upgrade run --yes` as a GitHub Actions step: the BUILT binary against the simulated
 * cluster with GITHUB_ACTIONS=true and GITHUB_STEP_SUMMARY set. Each step is a collapsible
 * group, warnings and errors are annotations, the job summary gets a Markdown table, and stdout
 * still carries nothing but data.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { loadScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import { STEP_IDS } from '../../src/steps/index.js';
import { commandTree } from '../helpers/command-tree.js';
import { type CtlResult, runCtl } from '../helpers/run-ctl.js';
import { makeToolSandbox, repoRoot, type ToolSandbox } from '../helpers/tools.js';
import { within } from '../helpers/wait.js';

const TARGET = '7.8.2-6';

interface Run {
  result: CtlResult;
  summary: string;
}

/** Starts the scenario, runs ctl as a GitHub Actions step would, stops the scenario. */
async function runInActions(
  scenario: string,
  args: string[],
  extraEnv: Record<string, string> | ((dir: string) => Record<string, string>) = {},
): Promise<Run> {
  const sandbox: ToolSandbox = makeToolSandbox(`ctl-gha-${scenario}-`);
  let cluster: SimulatedCluster | undefined;
  try {
    cluster = await within(
      `the simulated cluster of ${scenario} to start`,
      60_000,
      startSimulatedCluster({
        scenario: loadScenario(scenario),
        dir: path.join(sandbox.dir, 'sim'),
        fast: true,
      }),
    );
    const summaryFile = path.join(sandbox.dir, 'step_summary.md');
    const result = await runCtl(['upgrade', 'run', '--to', TARGET, '--yes', ...args], {
      cwd: sandbox.dir,
      timeoutMs: 120_000,
      env: {
        ...cluster.env,
        HOME: path.join(sandbox.dir, 'home'),
        XDG_STATE_HOME: path.join(sandbox.dir, 'state'),
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_STEP_SUMMARY: summaryFile,
        ...(typeof extraEnv === 'function' ? extraEnv(sandbox.dir) : extraEnv),
      },
    });
    const summary = existsSync(summaryFile) ? readFileSync(summaryFile, 'utf8') : '';
    return { result, summary };
  } finally {
    try {
      if (cluster) await within(`the simulated cluster of ${scenario} to stop`, 30_000, cluster.stop());
    } finally {
      sandbox.cleanup();
    }
  }
}

/** The `::group::` / `::endgroup::` lines in order: every group closed before the next opens. */
/** The lines for people inside each group (not workflow commands), by group title. */
function groupBodies(stderr: string): Map<string, string[]> {
  const bodies = new Map<string, string[]>();
  let open: string[] | undefined;
  for (const line of stderr.split('\n')) {
    if (line.startsWith('::group::')) bodies.set(line.slice('::group::'.length), (open = []));
    else if (line === '::endgroup::') open = undefined;
    else if (open && line.trim() !== '' && !line.startsWith('::')) open.push(line);
  }
  return bodies;
}

function groupsOf(stderr: string): string[] {
  const titles: string[] = [];
  let open: string | undefined;
  for (const line of stderr.split('\n')) {
    if (line.startsWith('::group::')) {
      assert.equal(open, undefined, `group "${line}" opened inside "${open}"`);
      open = line.slice('::group::'.length);
      titles.push(open);
    } else if (line === '::endgroup::') {
      assert.notEqual(open, undefined, 'an ::endgroup:: without a group');
      open = undefined;
    }
  }
  assert.equal(open, undefined, `group "${open}" never closed`);
  return titles;
}

function annotations(stderr: string, level: 'warning' | 'error'): { title: string; message: string }[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith(`::${level} `) || line.startsWith(`::${level}::`))
    .map((line) => {
      const match = new RegExp(`^::${level}(?: title=([^:]*))?::(.*)$`).exec(line);
      assert.ok(match, `a well-formed annotation: ${line}`);
      return { title: match[1] ?? '', message: match[2] ?? '' };
    });
}

describe('ctl upgrade run in GitHub Actions (e2e)', () => {
  let failed: Run;
  let succeeded: Run;
  let summaryFifo: Run;

  before(async () => {
    // invalid-upgrade: --ignore-check turns the failing check into a warning, then the operator
    // refuses the upgrade and the monitor step fails: a warning and an error in one run.
    [failed, succeeded, summaryFifo] = await Promise.all([
      runInActions('invalid-upgrade', ['--ignore-check', 'auto-upgrade-digest']),
      runInActions('happy-path', ['-o', 'json']),
      // The same failing run with a FIFO (no reader) as the summary file: runCtl's timeout is the
      // hang guard (ctl's open() waited there for a reader before).
      runInActions('invalid-upgrade', ['--ignore-check', 'auto-upgrade-digest'], (dir) => {
        const fifo = path.join(dir, 'step_summary.fifo');
        execFileSync('mkfifo', [fifo]);
        return { GITHUB_STEP_SUMMARY: fifo };
      }),
    ]);
  });

  it('a FIFO as GITHUB_STEP_SUMMARY: the run ends with its own result and a warning, never a wait', () => {
    const { result } = summaryFifo;
    assert.equal(result.signal, null, `ctl was killed by the hang guard:\n${result.stderr}`);
    assert.equal(result.code, failed.result.code, result.stderr);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /warning: the job summary was not written: GITHUB_STEP_SUMMARY \S+step_summary\.fifo is a FIFO \(named pipe\), not a regular file; the result above stands/,
    );
    // The run's own failure is still told, as without the FIFO.
    assert.equal(
      annotations(result.stderr, 'error').length,
      annotations(failed.result.stderr, 'error').length,
    );
  });

  it('a failing run: exit 1, each step a group, in order', () => {
    const { result } = failed;
    assert.equal(result.code, 1, result.stderr);
    const groups = groupsOf(result.stderr);
    // Up to and including monitor, which fails; databases never starts.
    assert.equal(groups.length, STEP_IDS.indexOf('monitor') + 1, groups.join(' | '));
    assert.equal(groups[0], 'Check the prerequisites');
    assert.equal(groups[1], 'Upgrade the operator');
    // Each step's own lines are inside its group.
    const preflight = result.stderr.slice(
      result.stderr.indexOf('::group::Check the prerequisites'),
      result.stderr.indexOf('::endgroup::'),
    );
    // The step's last line says what it did (issue 34).
    assert.match(preflight, /\[preflight\] Check the prerequisites: \d+ checks passed/);
  });

  it('the ignored check is a warning annotation titled with its step', () => {
    const warnings = annotations(failed.result.stderr, 'warning');
    const ignored = warnings.find((w) => w.message.startsWith('auto-upgrade-digest: '));
    assert.ok(ignored, warnings.map((w) => w.message).join('\n'));
    assert.equal(ignored.title, 'ctl preflight');
    assert.match(ignored.message, /ignored with --ignore-check auto-upgrade-digest/);
  });

  it('the failure is an error annotation, one line, with the hint', () => {
    const errors = annotations(failed.result.stderr, 'error');
    assert.equal(errors.length, 1, failed.result.stderr);
    const [error] = errors;
    assert.ok(error);
    assert.equal(error.title, 'ctl monitor');
    assert.match(error.message, /the operator refused the upgrade of rec: state InvalidUpgrade/);
    // Newlines are escaped (%0A), so the message and its hint stay one annotation.
    assert.match(error.message, /%0A/);
    // KUBECONFIG names the simulator's file: the hint's command names it too.
    assert.match(error.message, /kubectl --kubeconfig \S+ patch rec rec -n redis/);
  });

  it('the job summary of a failing run: a heading and a row per step', () => {
    const lines = failed.summary.trim().split('\n');
    assert.equal(lines[0], '### ctl upgrade: failed');
    assert.ok(lines.includes('| step | result | duration | note |'), failed.summary);
    for (const step of STEP_IDS) {
      assert.ok(
        lines.some((line) => line.startsWith(`| ${step} |`)),
        `a row for ${step}\n${failed.summary}`,
      );
    }
    assert.match(failed.summary, /\| monitor \| failed \|/);
    assert.match(failed.summary, /\| databases \| not run \|/);
  });

  it('a successful run with -o json: groups and summary on the side, NDJSON alone on stdout', () => {
    const { result, summary } = succeeded;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(groupsOf(result.stderr).length, STEP_IDS.length);
    assert.deepEqual(annotations(result.stderr, 'error'), []);
    // People's progress stays on stderr with -o json (docs/ci.md): no group is empty.
    for (const [title, body] of groupBodies(result.stderr)) {
      assert.ok(body.length > 0, `group "${title}" has progress lines\n${result.stderr}`);
    }
    assert.match(result.stderr, /\[operator\] Upgrade the operator: operator \S+ running and ready/);
    // Workflow commands never reach stdout: every line there is an event.
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data?: { result?: string } });
    assert.equal(events.at(-1)?.type, 'done');
    assert.equal(events.at(-1)?.data?.result, 'succeeded');
    assert.doesNotMatch(result.stdout, /^::/m);
    assert.match(summary, /^### ctl upgrade: succeeded\n/);
    for (const step of ['preflight', 'operator', 'cluster', 'monitor', 'databases']) {
      assert.match(summary, new RegExp(`\\| ${step} \\| (done|skipped) \\|`), summary);
    }
  });
});

/**
 * examples/ (used by docs/ci.md): each pipeline plans, then runs, and every ctl command line in
 * it uses only options the CLI has, so the examples cannot drift from ctl.
 */
describe('examples/ CI pipelines', () => {
  /** `{path, long options}` of every command of the real tree, and the global options. */
  async function optionsByCommand(): Promise<{ byPath: Map<string, Set<string>>; global: Set<string> }> {
    const byPath = new Map<string, Set<string>>();
    for (const { path: at, command } of await commandTree()) {
      byPath.set(at.join(' '), new Set(command.options.flatMap((o) => [o.long, o.short].filter(isString))));
    }
    return { byPath, global: byPath.get('') ?? new Set() };
  }

  /** Every string in the document (scripts are strings or lists of strings). */
  function strings(value: unknown): string[] {
    if (typeof value === 'string') return [value];
    if (Array.isArray(value)) return value.flatMap(strings);
    if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
    return [];
  }

  /** The `ctl ...` command lines of a pipeline, split into words (quotes dropped). */
  function ctlCommands(file: string): string[][] {
    const document = parse(readFileSync(path.join(repoRoot, 'examples', file), 'utf8')) as unknown;
    return strings(document)
      .map((text) => text.replace(/\n/g, ' '))
      .flatMap((text) => [...text.matchAll(/(?:^|[\s;&|])ctl\s+([^>;&|]*)/g)].map((m) => m[1] ?? ''))
      .map((rest) =>
        rest
          .trim()
          .split(/\s+/)
          .map((word) => word.replace(/^"|"$/g, '')),
      )
      .filter((words) => words.length > 0 && words[0] !== '');
  }

  for (const file of ['github-actions.yml', 'gitlab-ci.yml']) {
    it(`${file}: plans, then runs, with options ctl has`, async () => {
      const { byPath, global } = await optionsByCommand();
      const commands = ctlCommands(file);
      const upgrades = commands.filter((words) => words[0] === 'upgrade');
      assert.deepEqual(
        upgrades.map((words) => words[1]),
        ['plan', 'run'],
        `${file}: ${commands.map((c) => c.join(' ')).join(' | ')}`,
      );
      const [plan, run] = upgrades;
      assert.ok(plan?.includes('--out'), 'the plan is saved');
      assert.equal(
        run?.[run.indexOf('--plan') + 1],
        plan?.[plan.indexOf('--out') + 1],
        'run takes the saved plan',
      );
      assert.ok(run?.includes('--yes'), 'run does not wait for a terminal');
      // The plan checks the permissions of the store the run uses (issue 36).
      const store = (words: string[] | undefined) =>
        words?.includes('--state-store') ? words[words.indexOf('--state-store') + 1] : 'file';
      assert.equal(store(plan), store(run), `${file}: the plan and the run use the same --state-store`);
      for (const words of commands) {
        // The command: the longest run of leading words that names one (`upgrade run`, or none).
        let sub = '';
        for (const word of words) {
          const next = sub ? `${sub} ${word}` : word;
          if (!byPath.has(next)) break;
          sub = next;
        }
        const known = byPath.get(sub);
        assert.ok(known, `${file}: ctl ${sub} exists`);
        for (const word of words.filter((w) => /^--?[a-z]/.test(w))) {
          const flag = word.replace(/=.*$/, '');
          assert.ok(known.has(flag) || global.has(flag), `${file}: ctl ${sub} has ${flag}`);
        }
      }
    });
  }
});

/**
 * The one backup place (docs/steps.md): each example puts ctl's state folder in the workspace
 * and uploads the backup from there. A real run with that XDG_STATE_HOME writes the backup
 * where the example's upload pattern finds it.
 */
describe('examples/ CI pipelines upload the backup', () => {
  const examples = [
    { file: 'github-actions.yml', workspace: '${{ github.workspace }}' },
    { file: 'gitlab-ci.yml', workspace: '$CI_PROJECT_DIR' },
  ];

  /** A CI glob (`**` any folders, `*` within one) as a regular expression. */
  function globRegExp(glob: string): RegExp {
    const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    return new RegExp(
      `^${escaped
        .replace(/\*\*\//g, '\u0000')
        .replace(/\*/g, '[^/]*')
        .replace(/\u0000/g, '(?:.*/)?')}$`,
    );
  }

  it('the backup of a real run lands where both examples upload it', async () => {
    const wanted = examples.map(({ file, workspace }) => {
      const text = readFileSync(path.join(repoRoot, 'examples', file), 'utf8');
      const home = /XDG_STATE_HOME: (.+)/.exec(text)?.[1]?.trim() ?? '';
      assert.ok(home.startsWith(`${workspace}/`), `${file} sets XDG_STATE_HOME in the workspace: ${home}`);
      const patterns = [...text.matchAll(/^\s*-?\s*"?([^\s"]*-backup[^\s"]*)"?\s*$/gm)].map(
        (m) => m[1] ?? '',
      );
      assert.equal(patterns.length, 1, `${file} uploads the backup`);
      return { file, folder: home.slice(workspace.length + 1), pattern: globRegExp(patterns[0]!) };
    });
    const folders = new Set(wanted.map((w) => w.folder));
    assert.equal(folders.size, 1, 'both examples use one state folder');
    const folder = [...folders][0]!;
    const { result } = await runInActions('happy-path', ['-o', 'json'], (dir) => ({
      XDG_STATE_HOME: path.join(dir, folder),
    }));
    assert.equal(result.code, 0, result.stderr);
    const backup = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; step?: string; data?: { backup?: string } })
      .find((e) => e.type === 'step-done' && e.step === 'preflight')?.data?.backup;
    assert.ok(backup, `preflight names its backup\n${result.stdout}`);
    const relative = backup.slice(backup.indexOf(`/${folder}/`) + 1);
    for (const { file, pattern } of wanted) assert.match(relative, pattern, `${file} uploads ${relative}`);
  });
});

function isString(value: string | undefined): value is string {
  return typeof value === 'string';
}
