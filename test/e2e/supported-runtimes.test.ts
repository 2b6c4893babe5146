/**
 * The supported Node.js lines (22 and 24) are the same everywhere they are named: package.json
 * "engines", bin/ctl.js's check, the Dockerfile, both CI examples and .ci/run; the examples'
 * actions are pinned by commit. And a checkout without a build says so in one line.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/tools.js';

const SUPPORTED = ['22', '24'];
const read = (file: string): string => readFileSync(path.join(repoRoot, file), 'utf8');

describe('the supported Node.js lines', () => {
  it('engines, bin/ctl.js and the test scripts agree: 22 and newer, CI on 22 and 24', () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
    assert.equal(pkg.engines.node, '>=22');
    const bin = read('bin/ctl.js');
    assert.match(bin, /if \(major < 22\)/, 'bin/ctl.js refuses what engines refuses');
    assert.match(bin, /ctl needs Node\.js 22 or newer/);
    const ci = read('.ci/run');
    // The README's test command runs the tests on this node, or on Node 22 when it is older; every
    // other supported line is run by test-node.mjs.
    assert.match(ci, /^npm test$/m, '.ci/run runs the README test command');
    const runTests = read('scripts/run-tests.mjs');
    assert.match(runTests, /< 22\) \{\n\s+const node = nodeBinary\('22'\)/, 'npm test falls back to Node 22');
    for (const major of SUPPORTED)
      assert.match(
        ci,
        new RegExp(`\\bnode scripts/test-node\\.mjs ${major} --no-build;`, 'm'),
        `.ci/run tests on ${major}`,
      );
  });

  it('the Dockerfile builds and runs on a supported line', () => {
    const dockerfile = read('Dockerfile');
    const major = /^ARG NODE_MAJOR=(\d+)$/m.exec(dockerfile)?.[1];
    assert.ok(major && SUPPORTED.includes(major), `NODE_MAJOR ${major}`);
    assert.match(dockerfile, /^ARG BUILD_IMAGE=node:\$\{NODE_MAJOR\}-slim$/m);
    assert.match(
      dockerfile,
      /^ARG RUNTIME_IMAGE=gcr\.io\/distroless\/nodejs\$\{NODE_MAJOR\}-debian12:nonroot$/m,
    );
    assert.match(dockerfile, /^FROM \$\{BUILD_IMAGE\} AS build$/m);
    assert.match(dockerfile, /^FROM \$\{RUNTIME_IMAGE\}$/m);
    // Every script the bundle step imports is in the build context and copied.
    const ignore = read('.dockerignore');
    for (const script of ['bundle.mjs', 'help-texts.mjs', 'shipped-manifest.mjs']) {
      assert.ok(ignore.includes(`!scripts/${script}`), `.dockerignore lets scripts/${script} in`);
      assert.match(dockerfile, new RegExp(`^COPY .*scripts/${script.replace('.', '\\.')}`, 'm'));
    }
  });

  it('the GitHub Actions example: node 22 or 24, every action pinned by commit with its release', () => {
    const text = read('examples/github-actions.yml');
    const uses = [...text.matchAll(/^\s*- uses: (\S+)(.*)$/gm)];
    assert.ok(uses.length >= 3);
    for (const [, action, comment] of uses) {
      assert.match(action ?? '', /^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/, `${action} is pinned by commit`);
      assert.match(comment ?? '', /^ # v\d+\.\d+\.\d+$/, `${action} names its release`);
    }
    const versions = [...text.matchAll(/node-version: (\S+)/g)].map((m) => m[1]);
    assert.ok(versions.length > 0 && versions.every((v) => SUPPORTED.includes(v ?? '')), versions.join());
  });

  it('the GitLab CI example: a node image of a supported line', () => {
    const document = parse(read('examples/gitlab-ci.yml')) as { '.ctl': { image: string } };
    assert.match(document['.ctl'].image, /^node:(22|24)-slim(@sha256:[0-9a-f]{64})?$/);
  });
});

describe('a checkout without a build', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-unbuilt-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("ctl says it is not built, in one line, and exits 1 (the token's own entry too)", async () => {
    // A checkout: bin/ (ctl.js and the bundle's loader) without dist/.
    mkdirSync(path.join(dir, 'bin'));
    for (const file of readdirSync(path.join(repoRoot, 'bin')))
      copyFileSync(path.join(repoRoot, 'bin', file), path.join(dir, 'bin', file));
    copyFileSync(path.join(repoRoot, 'package.json'), path.join(dir, 'package.json'));
    for (const args of [['demo'], ['auth', 'token']]) await assertNotBuilt(args);
  });

  async function assertNotBuilt(args: string[]): Promise<void> {
    const env = {
      ...process.env,
      CTL_API_URL: 'https://127.0.0.1:9443',
      CTL_USERNAME: 'u',
      CTL_PASSWORD: 'p',
    };
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(dir, 'bin', 'ctl.js'), ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env,
      });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('error', reject);
      child.on('close', (exit) => {
        clearTimeout(timer);
        resolve({ code: exit, stdout: out, stderr: err });
      });
    });
    assert.equal(code, 1, args.join(' '));
    assert.equal(stdout, '', args.join(' '));
    assert.equal(stderr, 'error: ctl is not built: run npm run build\n', args.join(' '));
  }
});
