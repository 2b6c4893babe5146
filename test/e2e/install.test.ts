/**
 * The npm package as users get it: `npm pack` holds only what ctl needs, and installing that
 * tarball globally into an EMPTY prefix gives a working `ctl` (production dependencies come
 * from the registry, or npm's cache). Runs on whichever node runs the tests: its directory goes
 * first on the PATH, so `#!/usr/bin/env node` and npm use it too (scripts/test-node22.mjs).
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { repoRoot } from '../helpers/tools.js';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

const nodeFirstPath = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`;

function run(
  bin: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, PATH: nodeFirstPath, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function ok(what: string, result: Result): Result {
  assert.equal(
    result.code,
    0,
    `${what} exited ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
  );
  return result;
}

describe('npm pack, then npm install -g of the tarball into an empty prefix', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-install-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('packs only what ctl needs, and the installed ctl runs', async () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      engines?: { node?: string };
      bin: Record<string, string>;
      devDependencies: Record<string, string>;
    };

    // --ignore-scripts: the tests run on the build `npm test` just made; `prepare` would rebuild
    // dist/ under the feet of the other test files.
    const packed = ok(
      'npm pack',
      await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir]),
    );
    const [report] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    assert.ok(report);
    const files = report.files.map((file) => file.path).sort();

    for (const needed of [
      'package.json',
      'README.md',
      'bin/ctl.js',
      'dist/bundle/main.js',
      'scenarios/happy-path.yaml',
    ]) {
      assert.ok(files.includes(needed), `the package holds ${needed}`);
    }
    const unwanted = files.filter(
      (file) =>
        !/^(bin|dist\/bundle|scenarios)\//.test(file) &&
        !['package.json', 'README.md', 'LICENSE'].includes(file),
    );
    assert.deepEqual(unwanted, [], 'nothing outside bin/, dist/bundle/, scenarios/ and the package metadata');
    assert.deepEqual(
      files.filter((file) => /\.(map|ts|tsbuildinfo)$/.test(file) || /(^|\/)test\//.test(file)),
      [],
      'no TypeScript sources, source maps (their sources are not shipped) or tests',
    );
    assert.ok(
      files.every((file) => !file.endsWith('.test.js')),
      'no compiled tests',
    );
    assert.match(pkg.engines?.node ?? '', /^>=\s*20\.18/, 'engines.node says which Node.js ctl needs');

    const tarball = path.join(dir, report.filename);
    const prefix = path.join(dir, 'prefix');
    assert.ok(!existsSync(prefix), 'the prefix starts empty');
    ok(
      'npm install -g',
      await run(
        'npm',
        ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
        { cwd: dir },
      ),
    );

    const ctl = path.join(prefix, 'bin', 'ctl');
    assert.ok(existsSync(ctl), `${ctl} exists`);
    // Run from an unrelated folder, as a user would: nothing may come from the repository.
    const version = ok('ctl --version', await run(ctl, ['--version'], { cwd: dir }));
    assert.equal(version.stdout.trim(), pkg.version);
    const help = ok('ctl --help', await run(ctl, ['--help'], { cwd: dir }));
    for (const command of ['auth', 'upgrade', 'sim', 'completion']) {
      assert.match(help.stdout, new RegExp(`^  ${command}\\b`, 'm'), `--help lists ${command}`);
    }
    const scenarios = ok('ctl sim scenarios', await run(ctl, ['sim', 'scenarios'], { cwd: dir }));
    assert.match(scenarios.stdout, /^happy-path\s+\S/m);
    const completion = ok('ctl completion bash', await run(ctl, ['completion', 'bash'], { cwd: dir }));
    assert.match(completion.stdout, /complete -F _ctl_completion ctl/);

    // Production dependencies only (type packages may come with a dependency: @types/node does).
    const installed = path.join(prefix, 'lib', 'node_modules', pkg.name);
    assert.ok(existsSync(path.join(installed, 'node_modules', 'commander')), 'dependencies are installed');
    for (const dev of Object.keys(pkg.devDependencies).filter((name) => !name.startsWith('@types/'))) {
      assert.ok(
        !existsSync(path.join(installed, 'node_modules', dev)),
        `devDependency ${dev} is not installed`,
      );
    }
  });
});
