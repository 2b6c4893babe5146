/**
 * The npm package as users get it, by each path of docs/install.md: `npm pack` holds only what
 * ctl needs (the bundle inlines every dependency, so the package has none) and ships a
 * package.json without scripts or development dependencies (its prepack script); installing that
 * tarball globally into an EMPTY prefix gives a working `ctl` that runs the demo. A release tag
 * (scripts/release-tag.mjs) installs with `npm install --global git+...#tag` and nothing to
 * build. Runs on whichever node runs the tests: its directory goes first on the PATH, so
 * `#!/usr/bin/env node` and npm use it too (scripts/test-node.mjs).
 */

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { kubectlPath, repoRoot } from '../helpers/tools.js';
import { parse } from 'yaml';
import { createHash } from 'node:crypto';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

const nodeFirstPath = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`;

/**
 * The environment without the npm configuration of whoever runs the tests: `npm test` exports
 * every setting of the user's ~/.npmrc as `npm_config_*`, and a setting that a newer npm no longer
 * knows (`nodedir`) makes it warn on every command. What the install must not warn about is the
 * package, so npm reads no user config here (the project's own .npmrc still applies).
 */
const environment = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key))),
  NPM_CONFIG_USERCONFIG: '/dev/null',
};

function run(
  bin: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: options.cwd ?? repoRoot,
      // npm on Node 22 keeps a compile cache in the temporary folder unless told not to.
      env: {
        ...environment,
        PATH: nodeFirstPath,
        NO_COLOR: '1',
        NODE_DISABLE_COMPILE_CACHE: '1',
        ...options.env,
      },
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
      license?: string;
      private?: boolean;
      dependencies?: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    assert.equal(pkg.license, 'Apache-2.0');
    assert.equal(pkg.private, undefined, 'the package can be published');
    // Everything ctl runs is inlined in dist/bundle: a dependency would be installed for nothing.
    assert.deepEqual(Object.keys(pkg.dependencies ?? {}), [], 'no runtime dependencies');

    // Packed with its scripts, as a release is, from a copy of what the pack reads: prepack
    // rewrites package.json, which other test files read meanwhile. The build `npm test` just
    // made comes along with its time stamps, so `prepare` (a build when stale) finds it current.
    const stage = path.join(dir, 'stage');
    for (const entry of [
      'package.json',
      'README.md',
      'LICENSE',
      '.npmrc',
      'bin',
      'docs',
      'scenarios',
      'scripts',
      'dist/bundle',
      'dist/.built',
    ])
      cpSync(path.join(repoRoot, entry), path.join(stage, entry), {
        recursive: true,
        preserveTimestamps: true,
      });
    const packed = ok(
      'npm pack',
      await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: stage }),
    );
    assert.doesNotMatch(packed.stderr, /compiling the TypeScript/, 'prepare found the build current');
    assert.deepEqual(
      JSON.parse(readFileSync(path.join(stage, 'package.json'), 'utf8')),
      pkg,
      'postpack put package.json back',
    );
    const [report] = JSON.parse(packed.stdout) as {
      filename: string;
      size: number;
      unpackedSize: number;
      files: { path: string }[];
    }[];
    assert.ok(report);
    // The bundle is about 19 MB unpacked and 4 MB packed (docs/install.md); far more means
    // something that does not belong (source maps, node_modules, tests) got in.
    assert.ok(report.size < 8_000_000, `the tarball is ${report.size} bytes`);
    assert.ok(report.unpackedSize < 30_000_000, `the package unpacks to ${report.unpackedSize} bytes`);
    const files = report.files.map((file) => file.path).sort();

    for (const needed of [
      'package.json',
      'README.md',
      'LICENSE',
      'bin/ctl.js',
      'dist/bundle/main.js',
      'dist/bundle/THIRD_PARTY_NOTICES.md',
      'docs/README.md',
      'docs/quickstart.md',
      'scenarios/happy-path.yaml',
    ]) {
      assert.ok(files.includes(needed), `the package holds ${needed}`);
    }
    const unwanted = files.filter(
      (file) =>
        !/^(bin|dist\/bundle|docs|scenarios)\//.test(file) &&
        !['package.json', 'README.md', 'LICENSE'].includes(file),
    );
    assert.deepEqual(
      unwanted,
      [],
      'nothing outside bin/, dist/bundle/, docs/, scenarios/ and the package metadata',
    );
    assert.deepEqual(
      files.filter((file) => /\.(map|ts|tsbuildinfo)$/.test(file) || /(^|\/)test\//.test(file)),
      [],
      'no TypeScript sources, source maps (their sources are not shipped) or tests',
    );
    assert.ok(
      files.every((file) => !file.endsWith('.test.js')),
      'no compiled tests',
    );
    assert.equal(pkg.engines?.node, '>=22', 'engines.node says which Node.js ctl needs');
    assert.equal(pkg.name, 'redis-enterprise-upgrade', 'a name the registry does not hold (npm view: 404)');

    const tarball = path.join(dir, report.filename);
    const prefix = path.join(dir, 'prefix');
    assert.ok(!existsSync(prefix), 'the prefix starts empty');
    const install = ok(
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

    // The licence notices of the inlined packages travel with the bundle.
    const notices = readFileSync(
      path.join(prefix, 'lib', 'node_modules', pkg.name, 'dist', 'bundle', 'THIRD_PARTY_NOTICES.md'),
      'utf8',
    );
    for (const inlined of ['@kubernetes/client-node', 'commander', 'yaml', 'undici'])
      assert.match(notices, new RegExp(`^## ${inlined} `, 'm'), `the notices name ${inlined}`);

    // Nothing is installed beside ctl: no dependency at all, development or runtime.
    const installed = path.join(prefix, 'lib', 'node_modules', pkg.name);
    assert.ok(!existsSync(path.join(installed, 'node_modules')), 'no node_modules under the installed ctl');
    // The shipped package.json: nothing to build, nothing to fetch for development.
    const shipped = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(shipped.scripts, undefined, 'no scripts (no prepare) in the shipped package.json');
    assert.equal(shipped.devDependencies, undefined, 'no devDependencies in the shipped package.json');
    assert.deepEqual(shipped.bin, pkg.bin);
    assert.deepEqual(shipped.engines, pkg.engines);
    assert.doesNotMatch(install.stderr, /npm warn/i, 'npm warns about nothing on the install');

    // The demo: a simulated cluster, a plan and a whole upgrade, from the installed package alone.
    const home = path.join(dir, 'home');
    const demo = ok(
      'ctl demo --instant',
      await run(ctl, ['demo', '--instant'], {
        cwd: dir,
        env: { HOME: home, XDG_STATE_HOME: path.join(home, 'state') },
      }),
    );
    assert.match(demo.stdout, /Ready to run/);
    // The run's summary and verification are its result: on stdout; the demo's own tour of where
    // the cluster ended is for people: on stderr.
    assert.match(demo.stdout, /verification \(management API\): 3 of 3 node\(s\)/);
    assert.match(demo.stderr, /database\s+redis\/orders: active at/);
    // Its last line is the quick start's next step, as one types it (docs/quickstart.md, step 3).
    assert.match(
      demo.stderr,
      /ctl sim up --scenario happy-path --fast & then, once it prints ready, source \.ctl-sim\/env and ctl upgrade plan\.\n$/,
    );

    await firstContact(ctl, { cwd: dir, home, installed });

    // The kubectl plugin (issue 38): the same install puts kubectl-rec on the PATH, and the real
    // kubectl finds it and runs it as `kubectl rec`.
    assert.equal(pkg.bin['kubectl-rec'], pkg.bin.ctl, 'kubectl-rec is ctl');
    const plugins = `${path.join(prefix, 'bin')}${path.delimiter}${nodeFirstPath}`;
    const listed = await run(kubectlPath(), ['plugin', 'list'], { cwd: dir, env: { PATH: plugins } });
    assert.match(
      listed.stdout,
      new RegExp(`${path.join(prefix, 'bin', 'kubectl-rec').replace(/[/.]/g, '\\$&')}$`, 'm'),
    );
    const plugin = ok(
      'kubectl rec --version',
      await run(kubectlPath(), ['rec', '--version'], { cwd: dir, env: { PATH: plugins } }),
    );
    assert.equal(plugin.stdout.trim(), pkg.version);
    const scenariosByPlugin = ok(
      'kubectl rec sim scenarios',
      await run(kubectlPath(), ['rec', 'sim', 'scenarios'], { cwd: dir, env: { PATH: plugins } }),
    );
    assert.match(scenariosByPlugin.stdout, /^happy-path\s+\S/m);

    // The krew manifest of this very tarball: its bytes' SHA-256, the bin the tarball holds.
    const manifest = ok(
      'scripts/krew-manifest.mjs',
      await run(process.execPath, [
        path.join(repoRoot, 'scripts', 'krew-manifest.mjs'),
        tarball,
        `https://example.com/releases/${report.filename}`,
      ]),
    );
    const krew = parse(manifest.stdout) as {
      kind: string;
      metadata: { name: string };
      spec: { version: string; platforms: { uri: string; sha256: string; bin: string }[] };
    };
    assert.equal(krew.kind, 'Plugin');
    assert.equal(`kubectl-${krew.metadata.name}`, 'kubectl-rec');
    assert.equal(krew.spec.version, `v${pkg.version}`);
    const platform = krew.spec.platforms[0];
    assert.equal(platform?.sha256, createHash('sha256').update(readFileSync(tarball)).digest('hex'));
    assert.equal(platform?.uri, `https://example.com/releases/${report.filename}`);
    assert.ok(
      files.includes(platform?.bin.replace(/^package\//, '') ?? ''),
      `the tarball holds ${platform?.bin}`,
    );

    // Uninstalled by the package's name, as install.md says: both commands go.
    ok(
      'npm uninstall -g',
      await run('npm', ['uninstall', '--global', '--prefix', prefix, '--no-audit', '--no-fund', pkg.name], {
        cwd: dir,
      }),
    );
    assert.ok(!existsSync(ctl), 'ctl is gone');
    assert.ok(!existsSync(path.join(prefix, 'bin', 'kubectl-rec')), 'kubectl-rec is gone');
    assert.ok(!existsSync(installed), 'the package folder is gone');
  });
});

/**
 * What someone who has just installed ctl meets, with the installed package alone and a HOME of
 * their own: --help says where to start; every docs/<page> that a help text cites is in the
 * package, whose folder `ctl version -o json` names; without a kubeconfig a command says where
 * it looked and how to try ctl without a cluster; uninstalling by the package's name (install.md)
 * removes both commands.
 */
async function firstContact(
  ctl: string,
  { cwd, home, installed }: { cwd: string; home: string; installed: string },
): Promise<void> {
  const env = { HOME: home, XDG_STATE_HOME: path.join(home, 'state'), KUBECONFIG: '' };
  const help = ok('ctl alone', await run(ctl, [], { cwd, env }));
  assert.match(help.stdout, /\nStart here: ctl demo upgrades a simulated cluster/);
  assert.match(
    help.stdout,
    /\nDocs: docs\/quickstart\.md, then docs\/README\.md \(folder: ctl version -o json\)\n/,
  );
  const version = JSON.parse(
    ok('ctl version -o json', await run(ctl, ['version', '-o', 'json'], { cwd, env })).stdout,
  ) as {
    docs?: string;
  };
  assert.equal(version.docs, path.join(installed, 'docs'), 'ctl version -o json names the docs folder');
  // Every page a help text cites (each command's, under either name) is in that folder.
  const cited = new Set<string>();
  for (const file of ['help.json', 'help-kubectl-rec.json']) {
    const texts = JSON.parse(readFileSync(path.join(installed, 'dist', 'bundle', file), 'utf8')) as Record<
      string,
      string
    >;
    for (const text of Object.values(texts)) {
      // ctl needs no kubectl (docs/quickstart.md): no example lets a missing one stop ctl's turn.
      assert.doesNotMatch(
        text,
        /\bkubectl (?!rec )[^\n]*&& (ctl|kubectl rec) /,
        'an example chains kubectl before ctl',
      );
      for (const match of text.matchAll(/\bdocs\/([\w.-]+\.(?:md|json))/g)) cited.add(match[1] ?? '');
    }
  }
  assert.ok(cited.has('quickstart.md') && cited.has('upgrade.md'), [...cited].join(', '));
  for (const page of cited)
    assert.ok(existsSync(path.join(installed, 'docs', page)), `docs/${page} is installed`);

  // No kubeconfig at all (a new machine): where ctl looked, and the simulated cluster to try.
  const plan = await run(ctl, ['upgrade', 'plan'], { cwd, env });
  assert.equal(plan.code, 2, plan.stderr);
  assert.equal(
    plan.stderr,
    `error: no kubeconfig found: KUBECONFIG is not set and ${path.join(home, '.kube', 'config')} does not exist\n` +
      'hint: Pass --kubeconfig FILE, set KUBECONFIG, or run inside a pod with a service account. ' +
      'To try ctl without a cluster: ctl demo, or ctl sim up (docs/quickstart.md).\n',
  );
}

describe('npm install --global git+...#tag of a release tag (scripts/release-tag.mjs)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-install-git-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('installs the tagged build with nothing to build, and the installed ctl runs', async () => {
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    // A copy of this repository stands for the project's git host.
    const remote = path.join(dir, 'ctl.git');
    ok('git clone --bare', await run('git', ['clone', '--quiet', '--bare', repoRoot, remote]));
    const tag = `v${version}-install-test`;
    ok(
      'release-tag',
      await run(
        process.execPath,
        [path.join(repoRoot, 'scripts', 'release-tag.mjs'), '--git-dir', remote, '--no-build', tag],
        // The release commit needs an author; a machine that runs the tests may have none set.
        {
          env: {
            GIT_AUTHOR_NAME: 'ctl install test',
            GIT_AUTHOR_EMAIL: 'install-test@ctl.invalid',
            GIT_COMMITTER_NAME: 'ctl install test',
            GIT_COMMITTER_EMAIL: 'install-test@ctl.invalid',
          },
        },
      ),
    );
    const tagged = ok(
      'git ls-tree',
      await run('git', ['--git-dir', remote, 'ls-tree', '-r', '--name-only', tag]),
    );
    assert.match(tagged.stdout, /^dist\/bundle\/main\.js$/m, 'the tag holds the bundle');
    assert.doesNotMatch(tagged.stdout, /^dist\/(src|test)\//m, 'and no other build output');
    const manifest = JSON.parse(
      ok('git show', await run('git', ['--git-dir', remote, 'show', `${tag}:package.json`])).stdout,
    ) as Record<string, unknown>;
    assert.equal(manifest.scripts, undefined, "the tag's package.json has no prepare: npm builds nothing");

    const prefix = path.join(dir, 'prefix');
    const installed = ok(
      'npm install -g git+file',
      await run(
        'npm',
        [
          'install',
          '--global',
          '--prefix',
          prefix,
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          `git+file://${remote}#${tag}`,
        ],
        { cwd: dir },
      ),
    );
    assert.doesNotMatch(installed.stderr, /git dep preparation|EBADENGINE/);
    const ctl = path.join(prefix, 'bin', 'ctl');
    assert.equal(ok('ctl --version', await run(ctl, ['--version'], { cwd: dir })).stdout.trim(), version);
    const scenarios = ok('ctl sim scenarios', await run(ctl, ['sim', 'scenarios'], { cwd: dir }));
    assert.match(scenarios.stdout, /^happy-path\s+\S/m);
  });
});

/**
 * Issue 38, "fail fast on an old Node": `npm ci` on a Node.js older than "engines" allows stops at
 * once, naming the versions (the project's .npmrc sets engine-strict), before it fetches a package
 * or builds anything. The old Node: this machine's own when it is one, else Node 20 from the npm
 * registry (scripts/node-runtime.mjs, cached as the test:node22/24 runtimes are).
 */
describe('npm ci on Node.js 20', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-old-node-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('stops at once with EBADENGINE and the supported versions; nothing is installed or built', async () => {
    const oldNode = await olderNode();
    for (const file of ['package.json', 'package-lock.json', '.npmrc'])
      cpSync(path.join(repoRoot, file), path.join(dir, file));
    // npm's own script, run by the old node (as `npm` on a machine with that node would be).
    const cli = path.join(
      path.dirname(realpathSync(execFileSync('which', ['npm'], { encoding: 'utf8' }).trim())),
      'npm-cli.js',
    );
    const result = await run(oldNode, [cli, 'ci', '--no-audit', '--no-fund'], {
      cwd: dir,
      env: { PATH: `${path.dirname(oldNode)}${path.delimiter}${process.env.PATH ?? ''}` },
    });
    assert.notEqual(result.code, 0, 'npm ci refused');
    assert.match(result.stderr, /EBADENGINE/);
    assert.match(result.stderr, /Required: \{"node":">=22"\}/);
    assert.ok(!existsSync(path.join(dir, 'node_modules')), 'nothing was installed');
    assert.doesNotMatch(result.stdout + result.stderr, /compiling the TypeScript/, 'nothing was built');
  });
});

/** A node binary older than 22: the machine's own if it is one, else Node 20 from the registry. */
async function olderNode(): Promise<string> {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    if (Number(/^v(\d+)/.exec(version)?.[1] ?? 99) < 22) return candidate;
  }
  const { nodeBinary } = (await import(
    pathToFileURL(path.join(repoRoot, 'scripts', 'node-runtime.mjs')).href
  )) as {
    nodeBinary: (spec: string) => string;
  };
  return nodeBinary('20');
}
