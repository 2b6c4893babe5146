#!/usr/bin/env node
// Checks the Node version before anything else loads, then runs the built CLI.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 18)) {
  process.stderr.write(`error: ctl needs Node.js 20.18 or newer; this is ${process.version}.\n`);
  process.stderr.write('hint: install a current Node.js LTS (https://nodejs.org) and run ctl again.\n');
  process.exit(1);
}
const args = process.argv.slice(2);
// Answered before anything else loads: scripts call `ctl --version` a lot.
if (args.length === 1 && args[0] === '--version') {
  const { readFileSync } = await import('node:fs');
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${manifest.version}\n`);
} else if (!(await helpFromBuild(args))) {
  // The bundled build (scripts/bundle.mjs): the same code as dist/src, in a few files.
  const { run } = await import('../dist/bundle/main.js');
  await run();
}

/**
 * `ctl <command...> --help` with stdout not a terminal: the text the command tree rendered at
 * build time (scripts/help-texts.mjs), where commander wraps at 80 columns too. False when the
 * words are not exactly a command path and --help (anything else goes to the tree).
 */
async function helpFromBuild(words) {
  const last = words[words.length - 1];
  if ((last !== '--help' && last !== '-h') || process.stdout.isTTY) return false;
  const { readFileSync } = await import('node:fs');
  let texts;
  try {
    texts = JSON.parse(readFileSync(new URL('../dist/bundle/help.json', import.meta.url), 'utf8'));
  } catch {
    return false;
  }
  const text = texts[words.slice(0, -1).join(' ')];
  if (typeof text !== 'string') return false;
  process.stdout.write(text);
  return true;
}
