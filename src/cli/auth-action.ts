import type { Command } from 'commander';
import { parseTtl } from '../api/ttl.js';
import { runAuthToken } from '../commands/auth-token.js';
import type { Runtime } from './globals.js';
import { readConnectionFlags } from './read-connection.js';
import { createIo, readGlobalOptions } from './read-globals.js';

/** `ctl auth token`'s action, loaded only when it runs (auth.ts declares the command). */
export async function authTokenAction(command: Command, runtime: Runtime): Promise<void> {
  const globals = readGlobalOptions(command);
  const io = await createIo(globals, runtime);
  // Validate everything before the first byte goes out.
  const ttl = parseTtl(command.opts().ttl as string | undefined);
  const connection = readConnectionFlags(command, runtime.env);
  await runAuthToken({ ttl, connection, globals }, { io, env: runtime.env, stdin: runtime.stdin });
}
