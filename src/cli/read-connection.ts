import type { Command } from 'commander';
import type { AuthForm } from '../api/authorize.js';
import type { ConnectionFlags } from '../api/connect.js';
import { UsageError } from '../errors.js';
import { checkFilePath, INPUT_FILE_LIMITS } from '../io/paths.js';

/** Flags win over env. Raises a usage error for malformed or conflicting inputs, before any request. */
export function readConnectionFlags(command: Command, env: NodeJS.ProcessEnv): ConnectionFlags {
  return readConnectionValues(command.opts(), env);
}

/** The same from the command's parsed values (commander's opts(), or token-args.ts's). */
export function readConnectionValues(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): ConnectionFlags {
  const apiUrl = (raw.apiUrl as string | undefined) ?? nonEmpty(env.CTL_API_URL);
  if (apiUrl !== undefined) checkApiUrl(apiUrl);
  if (raw.passwordStdin === true && raw.passwordFile !== undefined) {
    throw new UsageError('--password-stdin and --password-file are both given', {
      hint: 'Pass only one of them.',
    });
  }
  // Neither may be a FIFO or a device: reading one could wait forever (src/io/paths.ts).
  // Nor larger than ctl reads of it (src/io/paths.ts INPUT_FILE_LIMITS), checked again as it is read.
  checkFilePath(
    '--password-file',
    raw.passwordFile as string | undefined,
    'input',
    INPUT_FILE_LIMITS.passwordFile,
  );
  const caFile = (raw.caFile as string | undefined) ?? nonEmpty(env.CTL_CA_FILE);
  const caFileFrom =
    raw.caFile !== undefined ? '--ca-file' : caFile !== undefined ? 'CTL_CA_FILE' : undefined;
  checkFilePath(caFileFrom ?? '--ca-file', caFile, 'input', INPUT_FILE_LIMITS.caFile);
  return {
    apiUrl,
    username: raw.username as string | undefined,
    passwordStdin: raw.passwordStdin === true,
    passwordFile: raw.passwordFile as string | undefined,
    caFile,
    caFileFrom,
    insecure: raw.insecure === true || isTruthy(env.CTL_INSECURE),
    authForm: (raw.authForm as AuthForm | undefined) ?? 'auto',
  };
}

function checkApiUrl(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--api-url "${value}" is not a URL`, { hint: 'Use the form https://HOST:9443.' });
  }
  if (url.protocol !== 'https:') {
    throw new UsageError(`--api-url must use https://, not ${url.protocol}//`, {
      hint: 'The management API only speaks HTTPS (port 9443).',
    });
  }
  if (url.username || url.password) {
    throw new UsageError('--api-url must not carry credentials', {
      hint: 'Use --username and --password-stdin, --password-file or CTL_PASSWORD instead.',
    });
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function isTruthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes'].includes(value.toLowerCase());
}
