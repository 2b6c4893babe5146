import type { Command } from 'commander';
import { parseTtl } from '../api/ttl.js';
import { runAuthToken } from '../commands/auth-token.js';
import type { Runtime } from './globals.js';
import { readConnectionValues } from './read-connection.js';
import { createIo, readGlobalValues } from './read-globals.js';

/** What `ctl auth token` was given: commander's values, or token-args.ts's (the same). */
export interface AuthTokenValues {
  /** The root's, auth's and token's options together (commander's optsWithGlobals()). */
  all: Record<string, unknown>;
  /** token's own (commander's opts()). */
  own: Record<string, unknown>;
}

/** `ctl auth token`'s action, loaded only when it runs (auth.ts declares the command). */
export async function authTokenAction(command: Command, runtime: Runtime): Promise<void> {
  await runAuthTokenValues({ all: command.optsWithGlobals(), own: command.opts() }, runtime);
}

/** The action on parsed values: the command tree's and the token entry's (src/token-main.ts). */
export async function runAuthTokenValues(values: AuthTokenValues, runtime: Runtime): Promise<void> {
  const globals = readGlobalValues(values.all);
  const io = await createIo(globals, runtime);
  // Validate everything before the first byte goes out.
  const ttl = parseTtl(values.own.ttl as string | undefined);
  const connection = readConnectionValues(values.own, runtime.env);
  await runAuthToken({ ttl, connection, globals }, { io, env: runtime.env, stdin: runtime.stdin });
}
