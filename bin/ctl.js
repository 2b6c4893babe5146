#!/usr/bin/env node
// Checks the Node version before anything else loads, then runs the built CLI.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 18)) {
  process.stderr.write(`error: ctl needs Node.js 20.18 or newer; this is ${process.version}.\n`);
  process.stderr.write('hint: install a current Node.js LTS (https://nodejs.org) and run ctl again.\n');
  process.exit(1);
}
// Answered before anything else loads: scripts call `ctl --version` a lot.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  const { readFileSync } = await import('node:fs');
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${manifest.version}\n`);
} else {
  // The bundled build (scripts/bundle.mjs): the same code as dist/src, in a few files.
  const { run } = await import('../dist/bundle/main.js');
  await run();
}
