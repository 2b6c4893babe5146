import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandTree, fromTree } from '../helpers/command-tree.js';
import { ctlBin, repoRoot, runCtl } from '../helpers/run-ctl.js';
import { tempDir } from '../helpers/temp.js';
import { kubectlPath, runTool } from '../helpers/tools.js';
import { assertExit, startUpgradeSim, TARGET, type UpgradeSim } from './upgrade-support.js';

/**
 * The package's second executable, `kubectl-rec` (package.json "bin", deploy/krew/rec.yaml), is
 * what kubectl runs for `kubectl rec ...`. Run so, everything that names the program says
 * `kubectl rec`, as the person typed it: help (the build's texts and the tree's), usage lines,
 * hints and Next lines; its completion script completes the `kubectl-rec` executable. Driven
 * through the executable itself (a symlink to bin/ctl.js, as npm and krew install it) and through
 * real kubectl's plugin lookup on the PATH. A scenario of its own, not a built-in one.
 */

const SCENARIO = `name: plugin-west
description: "run as kubectl rec: a cluster outside the default names"
namespace: payments
operator:
  version: 7.4.6-2
cluster:
  name: rec-west
  versionTag: 7.4.6-22
  apiVersion: 7.4.6-22
databases:
  - { name: ledger, namespace: payments, version: "7.2" }
`;

/** A mention of the program as `ctl` (a command line or prose), not a path or a name. */
const SAYS_CTL = /(^|[\s`'"(])ctl [a-z-]/m;

describe('run as the kubectl plugin kubectl-rec (e2e)', () => {
  let dir: string;
  let pluginBin: string;
  let pathDir: string;
  let sim: UpgradeSim;

  before(async () => {
    dir = tempDir('ctl-plugin-');
    // As npm and krew install it: an executable named kubectl-rec that is a symlink to bin/ctl.js,
    // and `node` (this test's, a supported one) first on the PATH for its #!/usr/bin/env node.
    pathDir = path.join(dir, 'bin');
    mkdirSync(pathDir);
    pluginBin = path.join(pathDir, 'kubectl-rec');
    symlinkSync(ctlBin, pluginBin);
    symlinkSync(process.execPath, path.join(pathDir, 'node'));
    const file = path.join(dir, 'plugin-west.yaml');
    writeFileSync(file, SCENARIO);
    sim = await startUpgradeSim(file);
  });
  after(async () => sim?.close());

  const plugin = (args: string[], env: Record<string, string> = {}) =>
    runCtl(args, { entry: pluginBin, env: { ...sim.env, ...env }, cwd: dir, timeoutMs: 90_000 });

  it('every --help from the build says kubectl rec, and is what the tree prints as kubectl rec', async () => {
    const texts = JSON.parse(
      readFileSync(path.join(repoRoot, 'dist', 'bundle', 'help-kubectl-rec.json'), 'utf8'),
    ) as Record<string, string>;
    for (const { path: words } of await commandTree()) {
      const key = words.join(' ');
      const expected = await fromTree([...words, '--help'], 'kubectl rec');
      assert.equal(expected.code, 0);
      assert.match(
        expected.stdout,
        new RegExp(`^Usage: kubectl rec${key ? ` ${key}` : ''} `),
        `the tree, "${key}"`,
      );
      assert.doesNotMatch(expected.stdout, SAYS_CTL, `"${key}" --help names ctl`);
      assert.equal(texts[key], expected.stdout, `help-kubectl-rec.json for "${key}"`);
    }
    const got = await plugin(['upgrade', 'run', '--help']);
    assertExit(got, 0, 'kubectl-rec upgrade run --help');
    assert.equal(got.stdout, texts['upgrade run']);
    // The same words and more go to the tree: the same text.
    const tree = await plugin(['upgrade', 'run', '--to', TARGET, '--help']);
    assert.equal(tree.stdout, texts['upgrade run']);
    // ctl itself is unchanged.
    const ctl = await runCtl(['--help'], { cwd: dir });
    assert.match(ctl.stdout, /^Usage: ctl \[options\] \[command\]/);
  });

  it('usage errors, hints and the Next line name kubectl rec', async () => {
    const bad = await plugin(['upgrade', 'nonsense']);
    assertExit(bad, 2, 'kubectl-rec upgrade nonsense');
    assert.doesNotMatch(bad.stderr, SAYS_CTL, bad.stderr);

    const planned = await plugin(['upgrade', 'plan', '--to', TARGET]);
    assertExit(planned, 0, 'kubectl-rec upgrade plan');
    assert.match(planned.stdout, /Next: kubectl rec upgrade run --to /);
    assert.doesNotMatch(`${planned.stdout}\n${planned.stderr}`, SAYS_CTL);

    // A run that stops for want of confirmation says how to go on, as kubectl rec.
    const unconfirmed = await plugin(['upgrade', 'run', '--to', TARGET]);
    assertExit(unconfirmed, 2, 'kubectl-rec upgrade run without --yes and no terminal');
    assert.match(unconfirmed.stderr, /kubectl rec /);
    assert.doesNotMatch(unconfirmed.stderr, SAYS_CTL, unconfirmed.stderr);

    // -o json keeps its shapes (ctl's contract): only text for people is renamed.
    const json = await plugin(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
    assertExit(json, 0, 'kubectl-rec upgrade plan -o json');
    assert.doesNotThrow(() => JSON.parse(json.stdout));
  });

  it('through real kubectl: `kubectl rec` finds the plugin on the PATH and names itself so', async () => {
    const kubectl = kubectlPath();
    const env = { ...sim.env, PATH: `${pathDir}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}` };
    const help = await runTool(kubectl, ['rec', '--help'], { env });
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: kubectl rec \[options\] \[command\]/);
    const planned = await runTool(kubectl, ['rec', 'upgrade', 'plan', '--to', TARGET], { env });
    assert.equal(planned.code, 0, planned.stderr);
    assert.match(planned.stdout, /Next: kubectl rec upgrade run --to /);
    const listed = await runTool(kubectl, ['plugin', 'list', '--name-only'], { env });
    assert.match(listed.stdout, /^kubectl-rec$/m);
  });

  it('its completion script completes the kubectl-rec executable, and is valid bash', async () => {
    const script = await plugin(['completion', 'bash']);
    assertExit(script, 0, 'kubectl-rec completion bash');
    assert.match(script.stdout, /^complete -F _kubectl_rec_completion kubectl-rec$/m);
    assert.match(script.stdout, /source <\(kubectl-rec completion bash\)/);
    const file = path.join(dir, 'kubectl-rec.bash');
    writeFileSync(file, script.stdout);
    const checked = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
    assert.equal(checked.status, 0, checked.stderr);
    const help = await plugin(['completion', '--help']);
    assert.match(help.stdout, /source <\(kubectl rec completion bash\)/);
  });
});
