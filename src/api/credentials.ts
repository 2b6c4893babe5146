import { stat } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { INPUT_FILE_LIMITS, readInputFile } from '../io/paths.js';

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
      hint: `Pass --username USERNAME or set CTL_USERNAME.${extra}`,
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

/**
 * `--password-stdin` reads at most 64 KiB (a password, not a file: `< /dev/zero` must not fill
 * the memory), and stdin must end within 30 s (a pipe whose writer never closes would wait for
 * ever). Either is a usage error, exit 2.
 */
export const STDIN_PASSWORD_LIMITS = { maxBytes: 64 * 1024, deadlineMs: 30_000 } as const;

async function readStdinBounded(
  stdin: NodeJS.ReadableStream,
  limits: { maxBytes: number; deadlineMs: number } = STDIN_PASSWORD_LIMITS,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      if (error) {
        // Stop reading: nothing more of it is wanted.
        stdin.pause();
        (stdin as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
        reject(error);
      } else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buffer.length;
      if (total > limits.maxBytes) {
        finish(
          new UsageError(
            `--password-stdin got more than ${limits.maxBytes / 1024} KiB: that is not a password`,
            {
              hint: 'Pipe only the password into ctl, e.g. `printf %s "$PASSWORD" | ctl auth token --password-stdin`.',
            },
          ),
        );
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = (): void => finish();
    const onError = (error: Error): void => finish(error);
    const timer = setTimeout(
      () =>
        finish(
          new UsageError(`--password-stdin: stdin did not end within ${limits.deadlineMs / 1000} s`, {
            hint: 'Close the pipe after the password (e.g. `printf %s "$PASSWORD" | ctl ...`), or use --password-file.',
          }),
        ),
      limits.deadlineMs,
    );
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    stdin.resume();
  });
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
      const password = trimOneNewline(await readStdinBounded(stdin));
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
        // A regular file of at most 64 KiB, read without waiting on it (src/io/bounded-file.ts);
        // its mode judged after, so a folder or a FIFO is refused without a warning first.
        text = await readInputFile('--password-file', path, INPUT_FILE_LIMITS.passwordFile);
        const info = await stat(path);
        if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
          warn(`${path} can be read by other users (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it.`);
        }
      } catch (error) {
        if (error instanceof UsageError) throw error;
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
