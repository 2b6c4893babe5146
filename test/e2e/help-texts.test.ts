import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CHECK_IDS } from '../../src/planning/checks/index.js';
import { STEP_IDS } from '../../src/steps/index.js';
import { commandTree, fromTree } from '../helpers/command-tree.js';
import { ctlBin, ctlEnv, repoRoot, runCtl } from '../helpers/run-ctl.js';
import { runTool } from '../helpers/tools.js';

/**
 * `ctl <command> --help` for scripts comes from dist/bundle/help.json, rendered at build time by
 * the tree (scripts/help-texts.mjs); it must be exactly what the tree prints, for every command.
 */
describe('--help from the build (e2e)', () => {
  const texts = JSON.parse(
    readFileSync(path.join(repoRoot, 'dist', 'bundle', 'help.json'), 'utf8'),
  ) as Record<string, string>;

  it('holds the text of every command of the tree, and nothing else', async () => {
    const paths = (await commandTree()).map((c) => c.path.join(' ')).sort();
    assert.deepEqual(Object.keys(texts).sort(), paths);
  });

  it('ctl <command> --help and -h print what the tree prints, byte for byte, exit 0', async () => {
    for (const { path: words } of await commandTree()) {
      const expected = await fromTree([...words, '--help']);
      assert.equal(expected.code, 0);
      assert.match(expected.stdout, /^Usage: ctl/, `the tree's help of "${words.join(' ')}"`);
      assert.equal(texts[words.join(' ')], expected.stdout, `help.json for "${words.join(' ')}"`);
      for (const flag of ['--help', '-h']) {
        const got = await runCtl([...words, flag]);
        assert.equal(got.code, 0, `ctl ${words.join(' ')} ${flag}: ${got.stderr}`);
        assert.equal(got.stdout, expected.stdout, `ctl ${words.join(' ')} ${flag}`);
        assert.equal(got.stderr, '');
      }
    }
  });

  it('every line of every ctl --help fits an 80-column terminal, where commander wraps too', () => {
    // Commander wraps the options and commands at 80 columns (help.json) or at the terminal's
    // width; the texts added after them are ours, and a line one word too long leaves that word
    // alone on a line of its own at 80 columns (a long example: split it with a backslash).
    const wide = Object.entries(texts).flatMap(([command, text]) =>
      text
        .split('\n')
        .filter((line) => [...line].length > 80)
        .map((line) => `ctl ${command} --help: ${[...line].length} columns: ${line}`),
    );
    assert.ok(Object.keys(texts).length > 10, 'help.json holds the commands');
    assert.deepEqual(wide, []);
  });

  it("so does every line of the kubectl plugin's (kubectl rec, 8 columns wider than ctl), commander's and ours", async () => {
    const plugin = JSON.parse(
      readFileSync(path.join(repoRoot, 'dist', 'bundle', 'help-kubectl-rec.json'), 'utf8'),
    ) as Record<string, string>;
    assert.deepEqual(Object.keys(plugin).sort(), Object.keys(texts).sort());
    const wide = Object.entries(plugin).flatMap(([command, text]) =>
      text
        .split('\n')
        .filter((line) => [...line].length > 80)
        .map((line) => `kubectl rec ${command} --help: ${[...line].length} columns: ${line}`),
    );
    assert.deepEqual(wide, []);
    // The same help, renamed: named back `ctl`, it holds every word of ctl's (only the line
    // breaks differ, and the place of an example's note, which goes on a line of its own).
    for (const [command, text] of Object.entries(texts)) {
      const words = (help: string) => help.split(/\s+/).filter((word) => word !== '\\' && word !== '#');
      const named = (plugin[command] ?? '').replace(/kubectl\s+rec\b/g, 'ctl');
      assert.deepEqual(words(named).sort(), words(text).sort(), `kubectl rec ${command} --help`);
    }
    // The binary, run as the plugin (a link named kubectl-rec: src/io/program-name.ts), prints it.
    const dir = mkdtempSync(path.join(tmpdir(), 'ctl-plugin-help-'));
    try {
      const link = path.join(dir, 'kubectl-rec');
      symlinkSync(ctlBin, link);
      for (const words of [[], ['upgrade', 'run'], ['completion']]) {
        const got = await runTool(process.execPath, [link, ...words, '--help'], { env: ctlEnv() });
        assert.equal(got.code, 0, got.stderr);
        assert.equal(got.stdout, plugin[words.join(' ')], `kubectl rec ${words.join(' ')} --help`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the kubectl plugin\'s name stays on one line: never "kubectl" at the end of a line and "rec" at the next', () => {
    const plugin = JSON.parse(
      readFileSync(path.join(repoRoot, 'dist', 'bundle', 'help-kubectl-rec.json'), 'utf8'),
    ) as Record<string, string>;
    // Commander broke `--only` and `--lock-id` there ("ids: kubectl" / "rec upgrade steps").
    const broken = Object.entries(plugin).flatMap(([command, text]) =>
      [...text.matchAll(/^.*\bkubectl\n\s*rec\b.*$/gm)].map((m) => `kubectl rec ${command} --help: ${m[0]}`),
    );
    assert.deepEqual(broken, []);
    assert.match(plugin['upgrade run'] ?? '', /ids:\s+kubectl rec upgrade steps\)/);
    // Nothing of the way it is kept together is written.
    assert.ok(
      Object.values(plugin).every((text) => !/[\uE000-\uF8FF]/.test(text)),
      'a private-use character in the help',
    );
  });

  it('other arguments before --help go to the tree, as before', async () => {
    const args = ['upgrade', 'plan', '--to', '7.8.2-6', '--help'];
    const got = await runCtl(args);
    assert.equal(got.code, 0, got.stderr);
    assert.equal(got.stdout, (await fromTree(args)).stdout);
    assert.equal(got.stdout, texts['upgrade plan'], 'the same help of upgrade plan');
    // Not a command path: the tree answers, as commander does (the group's help, exit 0).
    const unknown = await runCtl(['upgrade', 'nonsense', '--help']);
    const tree = await fromTree(['upgrade', 'nonsense', '--help']);
    assert.equal(unknown.code, tree.code);
    assert.equal(unknown.stdout, tree.stdout);
  });
});

/** The ids a help text lists after `heading`, up to its first blank line. */
function listedIds(help: string, heading: RegExp): string[] {
  const start = help.search(heading);
  assert.ok(start >= 0, `no ${heading} in\n${help}`);
  // The heading may wrap: the list is the first run of indented lines after it.
  const lines = help.slice(start).split('\n');
  const rest = lines.slice(lines.findIndex((l) => /^ {2}[a-z]/.test(l)));
  const block = rest.slice(
    0,
    rest.findIndex((l) => !/^ {2}[a-z]/.test(l)),
  );
  return block
    .join(' ')
    .split(/[\s,]+/)
    .filter(Boolean);
}

describe('--help from the code (e2e)', () => {
  it("upgrade plan --help lists every check the plan runs, in the plan's order", async () => {
    const help = await runCtl(['upgrade', 'plan', '--help']);
    assert.deepEqual(listedIds(help.stdout, /^Checks/m), [...CHECK_IDS]);
  });

  it('upgrade run --help lists the steps of ctl upgrade steps, in order', async () => {
    const help = await runCtl(['upgrade', 'run', '--help']);
    const steps = JSON.parse((await runCtl(['upgrade', 'steps', '-o', 'json'])).stdout) as { id: string }[];
    assert.deepEqual(listedIds(help.stdout, /^Steps, in order/m), [...STEP_IDS]);
    assert.deepEqual(
      [...STEP_IDS],
      steps.map((s) => s.id),
    );
  });

  it('the exit codes of upgrade run and upgrade plan --help are every code the command can end with', async () => {
    // The numbers after "Exit codes:" (130/143 are two); CLI.md's table holds what each means.
    const codes = async (words: string[]) => {
      const { stdout } = await runCtl([...words, '--help']);
      const text = stdout.slice(stdout.indexOf('Exit codes:')).split(/\nDocs:/)[0] ?? '';
      return [...text.matchAll(/\b(\d+)(?:\/(\d+))? /g)]
        .flatMap((m) => [m[1], m[2]])
        .filter(Boolean)
        .map(Number);
    };
    // A run ends with any of them; 8 is --max-unavailable's safe stop, 141 a closed output pipe.
    assert.deepEqual(await codes(['upgrade', 'run']), [0, 1, 2, 3, 4, 5, 6, 7, 8, 130, 143, 141]);
    // A plan: 4 is a refused login to the management API, 1 an API that cannot be reached.
    assert.deepEqual(
      (await codes(['upgrade', 'plan'])).sort((a, b) => a - b),
      [0, 1, 2, 3, 4],
    );
  });

  it('every default is shown one way, (default: x), in every help text', async () => {
    for (const { path: words } of await commandTree()) {
      const { stdout } = await runCtl([...words, '--help']);
      // commander wraps lines: join them before looking.
      const text = stdout.replace(/\n\s+/g, ' ');
      assert.doesNotMatch(text, /\(default: "/, `ctl ${words.join(' ')}: a quoted default`);
      assert.doesNotMatch(text, /[(;] ?default [^:]/, `ctl ${words.join(' ')}: a default without a colon`);
    }
    const run = (await runCtl(['upgrade', 'run', '--help'])).stdout.replace(/\n\s+/g, ' ');
    assert.match(run, /--max-parallel <n> .*\(default: 1\)/);
    assert.match(run, /--timeout <duration> .*\(default: 60m\)/);
  });
});
