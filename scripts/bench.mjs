#!/usr/bin/env node
// `npm run bench`: every figure of docs/performance.md (dist/bench/index.js) on each supported
// Node.js line, 22 then 24 (the registry's builds, scripts/node-runtime.mjs), since what ctl
// costs, and the floor it is measured against, depend on the runtime. The options are
// dist/bench/index.js's, plus `--node <22|24>` for one line only. `--strict` fails when a target
// is missed on either; `--json` prints `[{ "node": "v22...", "figures": [...] }, ...]`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { envWithNode, nodeBinary, SUPPORTED_MAJORS } from './node-runtime.mjs';

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const at = args.indexOf('--node');
const majors = at >= 0 ? [args.splice(at, 2)[1]] : SUPPORTED_MAJORS;
const json = args.includes('--json');

let status = 0;
const results = [];
for (const major of majors) {
  const node = nodeBinary(major);
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  process.stderr.write(`\nbench: on Node.js ${version} (${node})\n`);
  const result = spawnSync(node, [join(root, 'dist', 'bench', 'index.js'), ...args], {
    cwd: root,
    env: envWithNode(node),
    stdio: ['ignore', json ? 'pipe' : 'inherit', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (json && result.status === 0) results.push({ node: version, figures: JSON.parse(result.stdout) });
  else if (!json) process.stdout.write(`(the figures above: Node.js ${version})\n`);
  status = Math.max(status, result.status ?? 1);
}
if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exit(status);
