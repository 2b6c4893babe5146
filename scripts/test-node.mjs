#!/usr/bin/env node
// Runs the compiled test suite on one supported Node.js line, whatever node runs this script:
// the registry's official build of that line (scripts/node-runtime.mjs) goes first on the PATH,
// so every child that starts `node` by name (ctl's `#!/usr/bin/env node`, npm) runs on it too.
// `.ci/run` runs it for 22 and for 24.
//
//   node scripts/test-node.mjs 24              build, then every test on Node 24
//   node scripts/test-node.mjs 22 unit e2e     build, then only these folders of dist/test
//   node scripts/test-node.mjs 24 --no-build   use dist/ as it is (after `npm run build`)
//
// The first argument is a line (22, 24) or an exact release (22.22.0).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { envWithNode, nodeBinary, SUPPORTED_MAJORS } from './node-runtime.mjs';

const root = join(import.meta.dirname, '..');
const [spec, ...rest] = process.argv.slice(2);
if (!spec || !/^\d+(\.\d+){0,2}$/.test(spec)) {
  console.error(
    `usage: node scripts/test-node.mjs <${SUPPORTED_MAJORS.join('|')}> [--no-build] [folder|file...]`,
  );
  process.exit(2);
}
const build = !rest.includes('--no-build');
const targets = rest.filter((arg) => arg !== '--no-build');

function run(bin, argv, env = process.env) {
  const result = spawnSync(bin, argv, { stdio: 'inherit', cwd: root, env });
  if (result.error) {
    console.error(`test-node: ${bin} did not start: ${result.error.message}`);
    process.exit(1);
  }
  return result.status ?? 1;
}

const node = nodeBinary(spec);
// The build's output does not depend on the node that runs it.
if (build && run(process.execPath, [join(root, 'scripts', 'build.mjs')]) !== 0) process.exit(1);
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.error(`test-node: running the compiled tests with ${node} (${version})`);
process.exit(run(node, [join(root, 'scripts', 'run-tests.mjs'), ...targets], envWithNode(node)));
