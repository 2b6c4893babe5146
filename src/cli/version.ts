import type { Command } from 'commander';
import type { Runtime } from './globals.js';

/**
 * `ctl version`: what `kubectl version --client` and `gh version` answer, for people who type
 * the command rather than the flag. The text form is the same line as `ctl --version` (scripts
 * read it); -o json/yaml add the Node.js that runs ctl and, where it has them, the folder of
 * its docs (the npm package ships docs/, which help texts and hints cite as docs/<page>.md; the
 * single executable does not).
 */
export function register(program: Command, runtime: Runtime, version: string): void {
  program
    .command('version')
    .description('print the version of ctl (-o json: with the Node.js version and the docs folder)')
    .addHelpText('after', '\nExamples:\n  ctl version\n  ctl version -o json\n')
    .action(async (_options: unknown, command: Command) => {
      const { createIo, readGlobalOptions } = await import('./read-globals.js');
      const io = await createIo(readGlobalOptions(command), runtime);
      if (io.output === 'json') {
        const { docsFolder } = await import('../package-root.js');
        const docs = docsFolder();
        io.json({ version, node: process.version, ...(docs ? { docs } : {}) });
      } else io.data(version);
    });
}
