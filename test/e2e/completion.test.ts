/**
 * `ctl completion bash|zsh|fish|powershell` end to end: the BUILT binary prints each script;
 * every command and long option of the live commander tree is in it; bash accepts the bash
 * script (`bash -n`) and, sourced in a real bash, its completion function answers like a shell
 * would, hostile kubeconfig context names included (they stay data). zsh, fish and pwsh are not
 * on the test machines: their scripts' handling of those values is checked in the text.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { knownOperatorVersions } from '../../src/release/catalog.js';
import { STEP_IDS } from '../../src/steps/index.js';
import { commandTree } from '../helpers/command-tree.js';
import { ctlBin, runCtl } from '../helpers/run-ctl.js';
import { kubectlPath } from '../helpers/tools.js';

interface Listed {
  path: string[];
  longOptions: string[];
}

/** Every command of the real tree with its long options, read straight from commander. */
async function commandOptions(): Promise<Listed[]> {
  return (await commandTree()).map(({ path, command }) => ({
    path,
    longOptions: command.options.flatMap((option) => (option.long ? [option.long] : [])),
  }));
}

function bashAvailable(): string {
  const found = spawnSync('bash', ['-c', 'echo "$BASH_VERSION"'], { encoding: 'utf8' });
  if (found.error || found.status !== 0) {
    throw new Error('bash is not on PATH: install bash to test the bash completion script.');
  }
  return found.stdout.trim();
}

describe('ctl completion (e2e)', () => {
  let dir: string;
  let tree: Listed[];
  const scripts: Record<string, string> = {};
  let bashFile: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-completion-'));
    tree = await commandOptions();
    for (const shell of ['bash', 'zsh', 'fish', 'powershell']) {
      const result = await runCtl(['completion', shell]);
      assert.equal(result.code, 0, `ctl completion ${shell}: ${result.stderr}`);
      assert.equal(result.stderr, '');
      scripts[shell] = result.stdout;
    }
    bashFile = path.join(dir, 'ctl.bash');
    writeFileSync(bashFile, scripts.bash ?? '');
    writeFileSync(path.join(dir, 'plan.json'), '{}');
    writeFileSync(path.join(dir, 'planned.json'), '{}');
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** COMPREPLY for these COMP_WORDS (the last one is the word under the cursor), in a real bash. */
  function complete(words: string[], env: NodeJS.ProcessEnv = process.env): string[] {
    const script = [
      `source ${JSON.stringify(bashFile)}`,
      'COMP_WORDS=("$@")',
      'COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))',
      '_ctl_completion',
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', script, 'bash', ...words], {
      encoding: 'utf8',
      env,
    });
    assert.equal(result.status, 0, `bash exited ${result.status}: ${result.stderr}`);
    assert.equal(result.stderr, '', `bash wrote to stderr for ${words.join(' ')}`);
    return result.stdout.split('\n').filter((line) => line !== '');
  }

  it('the tree has the command groups this test expects', () => {
    const paths = tree.map((entry) => entry.path.join(' '));
    for (const expected of ['auth token', 'upgrade plan', 'upgrade run', 'sim up', 'completion']) {
      assert.ok(paths.includes(expected), `${expected} in ${paths.join(', ')}`);
    }
  });

  for (const shell of ['bash', 'zsh', 'fish', 'powershell']) {
    it(`the ${shell} script names every command and every long option`, () => {
      const script = scripts[shell] ?? '';
      assert.match(script, new RegExp(`^(#compdef ctl\\n)?# ${shell} completion for ctl \\d`));
      const quote = shell === 'powershell' ? "'" : '';
      for (const entry of tree) {
        for (const name of entry.path) assert.ok(script.includes(name), `${shell}: command ${name}`);
        const where = entry.path.join(' ') || '(root)';
        for (const option of entry.longOptions) {
          // fish writes `-l name`; bash and zsh the flag itself.
          const needle = shell === 'fish' ? `-l ${option.slice(2)} ` : `${quote}${option}${quote}`;
          assert.ok(script.includes(needle), `${shell}: option ${option} of ${where}`);
        }
      }
    });
  }

  it('bash -n accepts the bash script', () => {
    bashAvailable();
    const result = spawnSync('bash', ['-n', bashFile], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
  });

  it('source <(ctl completion bash) registers _ctl_completion for ctl', () => {
    const script = [
      `source <(${JSON.stringify(process.execPath)} ${JSON.stringify(ctlBin)} completion bash)`,
      'complete -p ctl',
      'COMP_WORDS=(ctl up); COMP_CWORD=1; _ctl_completion; echo "${COMPREPLY[@]}"',
    ].join('\n');
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, 'complete -F _ctl_completion ctl\nupgrade\n');
  });

  it("the bash script's own every-shell line works as written in a fresh HOME (no completions folder yet)", () => {
    // The line after "Load it in every shell:", with `ctl` a shim for the built binary.
    const line = /^# Load it in every shell: +(.+)$/m.exec(scripts.bash ?? '')?.[1] ?? '';
    assert.match(line, /completion bash > ~\/\.local\/share\/bash-completion\/completions\/ctl/);
    const home = path.join(dir, 'fresh-home');
    const bin = path.join(dir, 'bin');
    spawnSync('mkdir', ['-p', home, bin]);
    const shim = path.join(bin, 'ctl');
    writeFileSync(
      shim,
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(ctlBin)} "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', line], {
      encoding: 'utf8',
      env: { ...process.env, HOME: home, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
    });
    assert.equal(result.status, 0, `${line}: ${result.stderr}`);
    const saved = path.join(home, '.local', 'share', 'bash-completion', 'completions', 'ctl');
    assert.ok(existsSync(saved), `${saved} written`);
  });

  it('completes top-level commands and subcommands', () => {
    assert.deepEqual(complete(['ctl', 'up']), ['upgrade']);
    assert.deepEqual(complete(['ctl', 'upgrade', '']), ['plan', 'run', 'status', 'steps', 'unlock', 'help']);
    assert.deepEqual(complete(['ctl', 'sim', 's']), ['scenarios']);
    const top = complete(['ctl', '']);
    for (const name of ['auth', 'upgrade', 'sim', 'completion', 'help']) assert.ok(top.includes(name), name);
    assert.ok(!top.some((word) => word.startsWith('-')), 'no options before a dash is typed');
  });

  it('completes options of the command, with the global ones', () => {
    assert.deepEqual(complete(['ctl', 'upgrade', 'run', '--o']), ['--only', '--output']);
    assert.deepEqual(complete(['ctl', 'upgrade', 'plan', '--ou']), ['--out', '--output']);
    const runOptions = complete(['ctl', 'upgrade', 'run', '--']);
    for (const option of ['--yes', '--dry-run', '--to', '--kubeconfig', '--namespace', '--help']) {
      assert.ok(runOptions.includes(option), option);
    }
    assert.ok(!runOptions.includes('--out'), '--out belongs to plan only');
  });

  it('skips options and their values on the way to the command', () => {
    assert.deepEqual(complete(['ctl', '-n', 'redis', '--context', 'prod', 'upgrade', 'pl']), ['plan']);
    assert.deepEqual(complete(['ctl', '-o', 'json', '-v', 'sim', 'up', '--fa']), ['--fast']);
    // `-n upgrade`: "upgrade" is the namespace here, not the command.
    assert.deepEqual(complete(['ctl', '-n', 'upgrade', 'r']), []);
  });

  it('completes option values: choices, known ids, scenarios, files', () => {
    assert.deepEqual(complete(['ctl', 'upgrade', 'run', '--method', '']), ['auto', 'helm', 'bundle', 'olm']);
    assert.deepEqual(complete(['ctl', 'upgrade', 'run', '--only', '']), [...STEP_IDS]);
    assert.deepEqual(complete(['ctl', 'upgrade', 'plan', '--ignore-check', 'lic']), ['license-valid']);
    assert.deepEqual(complete(['ctl', '-o', '']), ['text', 'json', 'yaml', 'name']);
    assert.deepEqual(complete(['ctl', 'sim', 'up', '--scenario', 'happy']), ['happy-path']);
    assert.deepEqual(complete(['ctl', 'completion', '']), ['bash', 'zsh', 'fish', 'powershell']);
    // `--method=h`: bash splits it at `=` (COMP_WORDBREAKS).
    assert.deepEqual(complete(['ctl', 'upgrade', 'plan', '--method', '=', 'h']), ['helm']);
    // Files come in the folder's order (compgen -f: readdir's, which differs between file
    // systems, ext4 and tmpfs); bash sorts them as it shows them (no nosort for files).
    assert.deepEqual(complete(['ctl', 'upgrade', 'run', '--plan', path.join(dir, 'plan')]).sort(), [
      path.join(dir, 'plan.json'),
      path.join(dir, 'planned.json'),
    ]);
    // A free value gets no suggestions rather than commands.
    assert.deepEqual(complete(['ctl', 'auth', 'token', '--ttl', '']), []);
  });

  it('completes --to from the release catalog, and --context from the kubeconfig when asked', () => {
    const versions = complete(['ctl', 'upgrade', 'run', '--to', '']);
    assert.deepEqual(versions, [...knownOperatorVersions()].reverse(), 'the catalog, newest first');
    assert.deepEqual(complete(['ctl', 'upgrade', 'plan', '--to', '7.8.2']), ['7.8.2-6']);
    // Read when completing, by kubectl, from the kubeconfig it would use.
    const kubeconfig = path.join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: east, context: {cluster: c, user: u}}, {name: west, context: {cluster: c, user: u}}]',
        'current-context: east',
        '',
      ].join('\n'),
    );
    const env = {
      PATH: `${path.dirname(kubectlPath())}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: dir,
      KUBECONFIG: kubeconfig,
    };
    assert.deepEqual(complete(['ctl', 'upgrade', 'run', '--context', ''], env), ['east', 'west']);
    assert.deepEqual(complete(['ctl', '--context', 'w'], env), ['west']);
  });

  it('keeps the order ctl gives (--to newest first): bash is told not to sort, zsh and fish too', () => {
    // compopt works only while readline completes; here a function of that name stands in for the
    // builtin and says what the completion asked of it.
    const script = [
      `source ${JSON.stringify(bashFile)}`,
      'compopt() { printf "compopt %s\\n" "$*"; }',
      'COMP_WORDS=("$@")',
      'COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))',
      '_ctl_completion',
    ].join('\n');
    const asked = (words: string[]) =>
      spawnSync('bash', ['--norc', '--noprofile', '-c', script, 'bash', ...words], { encoding: 'utf8' });
    for (const words of [
      ['ctl', 'upgrade', 'run', '--to', ''],
      ['ctl', 'upgrade', 'run', '--only', ''],
    ]) {
      const result = asked(words);
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stdout, /^compopt -o nosort$/m, words.join(' '));
    }
    // Files are the shell's own list: sorted, as ls would.
    assert.doesNotMatch(asked(['ctl', 'upgrade', 'run', '--plan', '']).stdout, /nosort/);
    const newest = [...knownOperatorVersions()].at(-1) ?? '';
    assert.ok(
      scripts.zsh?.includes(`compadd -V ctl-values -- '${newest}' `),
      'zsh: --to unsorted, newest first',
    );
    assert.ok(scripts.fish?.includes(` -l to -x -k -a '${newest} `), 'fish: --to in its order, newest first');
  });

  it('hostile kubeconfig context names stay data: nothing runs, and the inserted word is the name itself', () => {
    const marker = path.join(dir, 'completion-ran');
    const hostile = [
      `prod-$(touch\${IFS}${marker})`,
      `prod-\`touch ${marker}\``,
      `prod-$IFS;touch ${marker}`,
      'prod-[ab]*',
    ];
    const kubeconfig = path.join(dir, 'hostile-kubeconfig');
    const contexts = hostile.map((name) => `{name: ${JSON.stringify(name)}, context: {cluster: c, user: u}}`);
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: u, user: {token: t}}]',
        `contexts: [${contexts.join(', ')}]`,
        '',
      ].join('\n'),
    );
    const env = {
      PATH: `${path.dirname(kubectlPath())}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: dir,
      KUBECONFIG: kubeconfig,
    };
    const offered = complete(['ctl', 'upgrade', 'plan', '--context', 'prod'], env);
    assert.equal(existsSync(marker), false, 'completing ran a command from a context name');
    assert.equal(offered.length, hostile.length, offered.join('\n'));
    // What bash inserts, read back as the shell reads a command line, is the name, unexpanded.
    for (const word of offered) {
      const read = spawnSync('bash', ['--norc', '--noprofile', '-c', `printf '%s' ${word}`], {
        encoding: 'utf8',
      });
      assert.ok(hostile.includes(read.stdout), `${word} reads as ${read.stdout}`);
    }
    assert.equal(existsSync(marker), false, 'an inserted completion ran a command');
    assert.deepEqual(complete(['ctl', '--context', 'prod-['], env), [String.raw`prod-\[ab\]\*`]);
  });

  it('zsh, fish and powershell take the contexts as kubectl output lines, never as code', () => {
    // Not run here (no zsh, fish or pwsh on the machines): the text that reads the values.
    const zsh = scripts.zsh ?? '';
    assert.match(zsh, /emulate -L zsh/);
    assert.match(
      zsh,
      /_ctl_lines=\(\$\{\(f\)"\$\(kubectl config get-contexts -o name 2>\/dev\/null\)"\}\); compadd -- "\$\{_ctl_lines\[@\]\}"/,
    );
    assert.doesNotMatch(zsh, /\beval\b|compadd -Q/);
    const fish = scripts.fish ?? '';
    assert.match(fish, /-a '\(kubectl config get-contexts -o name 2>\/dev\/null\)'/);
    assert.doesNotMatch(fish, /\beval\b/);
    const ps = scripts.powershell ?? '';
    assert.match(ps, /return ,@\(& 'kubectl' 'config' 'get-contexts' '-o' 'name' 2>\$null\)/);
    // The only Invoke-Expression is in the header's loading instructions.
    assert.deepEqual(
      ps.split('\n').filter((line) => /Invoke-Expression|\biex\b/i.test(line) && !line.startsWith('#')),
      [],
    );
    assert.match(ps, /StartsWith\(\$typed, \[System.StringComparison\]::Ordinal\)/);
  });

  it('rejects an unknown shell with a usage error (exit 2)', async () => {
    const result = await runCtl(['completion', 'tcsh']);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /bash, zsh, fish, powershell/);
  });
});
