import type { Command } from 'commander';
import { parseTtl } from '../api/ttl.js';
import { addConnectionOptions, readConnectionSettings } from './connection.js';
import { createIo, type Runtime, readGlobalOptions } from './globals.js';

/** `ctl auth token`: a management API token on stdout, for scripts (TOKEN=$(ctl auth token)). */
export function register(program: Command, runtime: Runtime): void {
  // Commander copies exitOverride to subcommands only when they are created; main sets it on
  // the root after registration, so set it here: a bad flag must reach main (exit 2).
  const auth = program
    .command('auth')
    .description("sign in to the cluster's management API (port 9443)")
    .exitOverride()
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  TOKEN=$(ctl auth token --api-url https://127.0.0.1:9443 --ca-file ca.pem)\n' +
        '  ctl auth token --ttl 600 -o json\n' +
        '\nDocs: docs/auth.md\n',
    );
  const token = auth
    .command('token')
    .exitOverride()
    .description(
      'print a management API token (JWT) on stdout, for scripts and curl (Authorization: JWT <token>)',
    )
    .option('--ttl <seconds>', 'token lifetime, a whole number from 1 to 86400 (default 300)')
    .addHelpText(
      'after',
      '\nThe URL comes from --api-url or CTL_API_URL (required here); the username\n' +
        'from --username or CTL_USERNAME; the password from --password-stdin,\n' +
        '--password-file or CTL_PASSWORD. There is no --password flag: a command line\n' +
        'is visible to every user of the machine.\n' +
        '\nExamples:\n' +
        '  kubectl port-forward svc/rec 9443:9443 -n redis &\n' +
        '  export CTL_API_URL=https://127.0.0.1:9443 CTL_CA_FILE=./ca.pem\n' +
        '  export CTL_USERNAME=admin@example.com\n' +
        '  printf %s "$PASSWORD" | ctl auth token --password-stdin\n' +
        '  TOKEN=$(ctl auth token --ttl 600 --password-file ~/.rec-password)\n' +
        '  curl --cacert ca.pem -H "Authorization: JWT $TOKEN" "$CTL_API_URL/v1/bdbs"\n' +
        '  ctl auth token -o json   # {"access_token", "token_type", "ttl", "expires_at"}\n' +
        '\nExit codes: 0 token printed, 1 TLS or API error, 2 bad flag or missing input,\n' +
        '4 wrong or expired credentials. Docs: docs/auth.md\n',
    );
  addConnectionOptions(token);
  token.action(async (_options: unknown, command: Command) => {
    const io = await createIo(readGlobalOptions(command), runtime);
    // Validate everything before the first byte goes out.
    const ttl = parseTtl(command.opts().ttl as string | undefined);
    const connection = readConnectionSettings(command, runtime.env);
    const { runAuthToken } = await import('../api/auth-token.js');
    await runAuthToken({ ttl, connection }, { io, env: runtime.env, stdin: runtime.stdin });
  });
}
