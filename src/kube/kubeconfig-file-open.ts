/**
 * Whether a file the kubeconfig's context names (its cluster's certificate-authority, its user's
 * client-certificate and client-key) can be read, told as kubectl tells it.
 *
 * kubectl opens each of them before any request (kubernetes/client-go, read at its commit
 * 32ce75a7d: tools/clientcmd/validation.go validateClusterInfo and validateAuthInfo, `os.Open`)
 * and refuses the context when one does not open: `unable to read client-cert PATH for USER due
 * to open PATH: no such file or directory`, the text of Go's *PathError. ctl read them only for
 * the first request. Here each is read as client-node reads it for a request, through ctl's
 * bounded reader (src/io/bounded-file.ts): a FIFO, a device, a folder or a file past the bound
 * is refused in ctl's own words, as src/io/paths.ts checkFilePath refuses it (kubectl opens a
 * folder, and blocks on a FIFO); a file that does not open gets Go's words.
 */

import { readBoundedFileSync } from '../io/bounded-file.js';
import { INPUT_FILE_LIMITS, inputFileError } from '../io/paths.js';

/**
 * Go's text of an errno (syscall.Errno.Error on Linux, zerrors_linux.go's table) where it is
 * not libuv's: Node's message carries libuv's (`ENOENT: no such file or directory, open ...`),
 * which is the same text for the others an open may give.
 */
const GO_ERRNO_TEXT: Record<string, string> = {
  ELOOP: 'too many levels of symbolic links',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in system',
  EIO: 'input/output error',
};

/**
 * Go's text of the errno of a failed read (`permission denied`, `no such file or directory`), as
 * kubectl words it after the path; undefined for an error without an errno code.
 */
export function errnoText(error: unknown): string | undefined {
  const failure = error as (Error & { code?: unknown; syscall?: string }) | null;
  if (!(failure instanceof Error) || typeof failure.code !== 'string') return undefined;
  return GO_ERRNO_TEXT[failure.code] ?? libuvText(failure as Error & { code: string });
}

/** The text after libuv's code and before its `, open '...'` tail. */
function libuvText(error: Error & { code?: string; syscall?: string }): string {
  const message = error.message;
  const start = error.code && message.startsWith(`${error.code}: `) ? error.code.length + 2 : 0;
  const end = message.indexOf(`, ${error.syscall ?? 'open'} `, start);
  return message.slice(start, end === -1 ? undefined : end);
}

/**
 * undefined when `path` reads as a regular file within its bound; Go's `open PATH: REASON` when
 * it does not open. Throws ctl's usage error (exit 2) naming `role` for one that is not a
 * regular file or is too large.
 */
export function openProblem(path: string, role: string): string | undefined {
  try {
    readBoundedFileSync(path, INPUT_FILE_LIMITS.caFile);
    return undefined;
  } catch (error) {
    const worded = inputFileError(role, error);
    if (worded !== error) throw worded;
    const text = errnoText(error);
    if (text === undefined) throw error;
    return `open ${path}: ${text}`;
  }
}

/**
 * What to do about a file of the kubeconfig that did not open (`problem`, openProblem's): make it
 * readable when permission was denied, else `fixPath` (fix the path, or put the file there).
 */
export function openHint(problem: string, path: string, fixPath: string): string {
  return problem.endsWith(': permission denied')
    ? `Make ${path} readable by the user ctl runs as (its permissions, and those of the folders above it), or ${fixPath.charAt(0).toLowerCase()}${fixPath.slice(1)}`
    : fixPath;
}
