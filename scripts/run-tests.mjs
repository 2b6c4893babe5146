#!/usr/bin/env node
// Runs the compiled tests with node's test runner. Node 20 has no glob support in --test,
// so the files are collected here. `node scripts/run-tests.mjs unit` runs one folder only.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', 'dist', 'test');
const only = process.argv.slice(2);
const folders = only.length > 0 ? only.map((name) => join(root, name)) : [root];

function collect(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

const files = folders.flatMap(collect).sort();
if (files.length === 0) {
  console.error(`no test files under ${folders.join(', ')}: run "npm run build" first`);
  process.exit(1);
}
const concurrency = process.env.CTL_TEST_CONCURRENCY ?? '3';
const result = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
