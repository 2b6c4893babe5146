// The `--help` text of every command, rendered at build time by the command tree itself
// (dist/src/cli/program.js, tsc's output) into dist/bundle/help.json. bin/ctl.js answers
// `ctl <command...> --help` from it when stdout is not a terminal, where commander always wraps
// at 80 columns, so the text is the same byte for byte and `--help` reads one JSON file instead
// of loading commander and building the tree (docs/performance.md). On a terminal, commander
// wraps to its width, so the tree renders it as before. test/e2e/help-texts.test.ts compares
// both for every command.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Every command path of the tree: [], ['auth'], ['auth', 'token'], ... */
function commandPaths(command, prefix = []) {
  return [prefix, ...command.commands.flatMap((sub) => commandPaths(sub, [...prefix, sub.name()]))];
}

/**
 * The texts for `ctl` in help.json, and for `kubectl rec` (the same package run as the kubectl
 * plugin: src/io/program-name.ts) in help-kubectl-rec.json; bin/ctl.js reads the one for the
 * name it was started by.
 */
export const HELP_FILES = { ctl: 'help.json', 'kubectl rec': 'help-kubectl-rec.json' };

export async function writeHelpTexts(dist, outdir) {
  const { buildProgram } = await import(pathToFileURL(path.join(dist, 'src', 'cli', 'program.js')).href);
  let count = 0;
  for (const [programName, file] of Object.entries(HELP_FILES)) {
    count = await writeHelpFile(buildProgram, programName, path.join(outdir, file));
  }
  return count;
}

async function writeHelpFile(buildProgram, programName, file) {
  const render = async (words) => {
    let text = '';
    const runtime = {
      env: {},
      stdin: process.stdin,
      stdout: { write: (chunk) => ((text += chunk), true) },
      stderr: { write: () => true },
      argv: [...words, '--help'],
      programName,
      onIo: () => {},
    };
    const program = await buildProgram(runtime, '0.0.0');
    try {
      await program.parseAsync([...words, '--help'], { from: 'user' });
    } catch (error) {
      if (error?.code !== 'commander.helpDisplayed') throw error;
    }
    return text;
  };
  const tree = await buildProgram(
    {
      env: {},
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      programName,
      onIo: () => {},
    },
    '0.0.0',
  );
  const texts = {};
  for (const words of commandPaths(tree)) texts[words.join(' ')] = await render(words);
  writeFileSync(file, `${JSON.stringify(texts)}\n`);
  return Object.keys(texts).length;
}
