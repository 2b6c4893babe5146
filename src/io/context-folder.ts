import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { earlierPathSegment, pathSegment } from './path-segment.js';

/**
 * Where a file of a kubeconfig context is kept under `root` (the state file, the pinned CA):
 * `root/<pathSegment(context)>/<rest...>`. ctl before commit 8617bc7 kept a context name of 201 to
 * 255 characters whole (earlierPathSegment), so a run started then, or a certificate pinned then,
 * is in that folder: when today's file does not exist and the earlier one does, the earlier one is
 * used, and a run carries on in it (its lock, backups and later saves beside it). Nothing is moved:
 * a run of the earlier ctl may still hold its lock there, and a moved folder would leave it saving
 * where no one reads. Read-only: one lstat of each path, nothing created.
 */
export function contextFilePath(root: string, context: string, rest: readonly string[]): string {
  const today = join(root, pathSegment(context), ...rest);
  const earlier = earlierContextPath(root, context, rest);
  if (earlier === undefined || exists(today)) return today;
  return exists(earlier) ? earlier : today;
}

/**
 * The folders of `root` that may hold this context's files under `rest`: today's, then the
 * earlier one where the context has one (contextFilePath). For a reader that lists a folder.
 */
export function contextFolders(root: string, context: string, rest: readonly string[]): string[] {
  const earlier = earlierContextPath(root, context, rest);
  return [join(root, pathSegment(context), ...rest), ...(earlier === undefined ? [] : [earlier])];
}

function earlierContextPath(root: string, context: string, rest: readonly string[]): string | undefined {
  const earlier = earlierPathSegment(context);
  return earlier === undefined ? undefined : join(root, earlier, ...rest);
}

/**
 * Whether anything is at `path` (a file, a folder, a link): what the earlier ctl left there. Only
 * "no such file" is absence; a folder that may not be read counts as there, so that the read
 * which follows reports it with its path.
 */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ENAMETOOLONG';
  }
}
