import type { Command } from 'commander';
import { parseTtl } from '../api/ttl.js';
import { addConnectionOptions, readConnectionSettings } from './connection.js';
import { createIo, type Runtime, readGlobalOptions } from './globals.js';

/** `ctl auth token`: a management API token on stdout, for scripts (TOKEN=$(ctl auth token)). */
export function register(program: Command, runtime: Runtime): void {
  // Commander copies exitOverride to subcommands only when they are created; main sets it on
  // the root after registration, so set it here: a bad flag must reach main (exit 2).
  const auth = program.command('auth').description('sign in to the management API').exitOverride();
  const token = auth
    .command('token')
    .exitOverride()
    .description('print a management API token (JWT) on stdout')
    .option('--ttl <seconds>', 'token lifetime, a whole number from 1 to 86400 (default 300)');
  addConnectionOptions(token);
  token.action(async (_options: unknown, command: Command) => {
    const io = createIo(readGlobalOptions(command), runtime);
    // Validate everything before the first byte goes out.
    const ttl = parseTtl(command.opts().ttl as string | undefined);
    const connection = readConnectionSettings(command, runtime.env);
    const { runAuthToken } = await import('../api/auth-token.js');
    await runAuthToken({ ttl, connection }, { io, env: runtime.env, stdin: runtime.stdin });
  });
}
