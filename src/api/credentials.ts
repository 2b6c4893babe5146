import { readFile, stat } from 'node:fs/promises';
import { UsageError } from '../errors.js';

/**
 * Where the management API's username and password come from. Sources are asked in order and
 * the first that knows a field wins; a source is only read when an earlier one did not answer,
 * so a later "from the cluster's Secret" source (needing Kubernetes) costs nothing when flags
 * or env already gave both.
 */

export interface Credentials {
  username: string;
  password: string;
}

export interface CredentialSource {
  /** Named in messages: "--username", "CTL_PASSWORD", "Secret redis/rec". */
  readonly name: string;
  username?(): Promise<string | undefined>;
  password?(): Promise<string | undefined>;
}

export interface ResolvedCredentials extends Credentials {
  usernameFrom: string;
  passwordFrom: string;
}

export interface ResolveOptions {
  /** Called with each secret the moment it is read (register it with the redactor). */
  onSecret(secret: string): void;
  /** Extra words for the "no username/password" hints, e.g. about the cluster Secret. */
  missingHint?: string;
}

export async function resolveCredentials(
  sources: CredentialSource[],
  options: ResolveOptions,
): Promise<ResolvedCredentials> {
  let username: { value: string; from: string } | undefined;
  let password: { value: string; from: string } | undefined;
  for (const source of sources) {
    if (!password && source.password) {
      const value = await source.password();
      if (value !== undefined) {
        options.onSecret(value);
        password = { value, from: source.name };
      }
    }
    if (!username && source.username) {
      const value = await source.username();
      if (value !== undefined && value !== '') username = { value, from: source.name };
    }
    if (username && password) break;
  }
  const extra = options.missingHint ? ` ${options.missingHint}` : '';
  if (!username) {
    throw new UsageError('no username for the management API', {
      hint: `Pass --username <name> or set CTL_USERNAME.${extra}`,
    });
  }
  if (!password) {
    throw new UsageError(`no password for ${username.value}`, {
      hint: `Pipe it with --password-stdin, point --password-file at a file, or set CTL_PASSWORD (never on the command line).${extra}`,
    });
  }
  return {
    username: username.value,
    password: password.value,
    usernameFrom: username.from,
    passwordFrom: password.from,
  };
}

/** A value given on the command line or in the environment. */
export function valueSource(
  name: string,
  values: { username?: string; password?: string },
): CredentialSource {
  return {
    name,
    username: async () => values.username,
    password: async () => values.password,
  };
}

/** Strips exactly one trailing line break ("\n" or "\r\n"), as docker's --password-stdin does. */
export function trimOneNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}

/** `--password-stdin`: the whole of stdin, which must be a pipe or a file. */
export function stdinPasswordSource(stdin: NodeJS.ReadableStream & { isTTY?: boolean }): CredentialSource {
  return {
    name: '--password-stdin',
    password: async () => {
      if (stdin.isTTY) {
        throw new UsageError('--password-stdin reads the password from a pipe, but stdin is a terminal', {
          hint: 'Pipe it in, e.g. `printf %s "$PASSWORD" | ctl auth token --password-stdin`, or use --password-file.',
        });
      }
      const chunks: Buffer[] = [];
      for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      const password = trimOneNewline(Buffer.concat(chunks).toString('utf8'));
      if (password === '') {
        throw new UsageError('--password-stdin got an empty password', {
          hint: 'Pipe the password into ctl, e.g. `printf %s "$PASSWORD" | ctl auth token --password-stdin`.',
        });
      }
      return password;
    },
  };
}

/** `--password-file`: the file's content minus one trailing newline. Warns when others may read it. */
export function filePasswordSource(path: string, warn: (message: string) => void): CredentialSource {
  return {
    name: '--password-file',
    password: async () => {
      let text: string;
      try {
        const info = await stat(path);
        if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
          warn(`${path} can be read by other users (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it.`);
        }
        text = await readFile(path, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? String(error);
        throw new UsageError(`cannot read --password-file ${path}: ${code}`, {
          hint: 'Check the path and its permissions.',
        });
      }
      const password = trimOneNewline(text);
      if (password === '')
        throw new UsageError(`--password-file ${path} is empty`, { hint: 'Write the password into it.' });
      return password;
    },
  };
}
