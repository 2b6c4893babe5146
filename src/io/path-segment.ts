import { createHash } from 'node:crypto';

/** The longest segment kept as it is: a file system takes 255 bytes a name, with room for suffixes. */
const MAX_SEGMENT = 200;

/** The longest name a file system takes (NAME_MAX on Linux, macOS and Windows' NTFS). */
const MAX_NAME = 255;

/** Every character outside [A-Za-z0-9._-] as '_': what is left names no folder above or below. */
function cleanedSegment(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * One folder or file name made from a name ctl did not choose (a kubeconfig context, a
 * namespace, a cluster): context names such as EKS ARNs carry ':' and '/', so every character
 * outside [A-Za-z0-9._-] becomes '_', and a name that would be empty, '.' or '..' becomes '_'.
 * A name longer than 200 characters (a context may be any length) is cut to its start and the
 * first 16 hex digits of the name's SHA-256, 200 in all: a file system refuses a name of more
 * than 255 bytes (ENAMETOOLONG), which left such a context no default state file, and two long
 * names with the same start stay apart. The state file's path and the pinned CA file's path are
 * made of these.
 */
export function pathSegment(value: string): string {
  const cleaned = cleanedSegment(value);
  if (cleaned.length > MAX_SEGMENT) {
    const digest = createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 16);
    return `${cleaned.slice(0, MAX_SEGMENT - digest.length - 1)}-${digest}`;
  }
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? '_' : cleaned;
}

/**
 * The segment ctl made of `value` before it cut long names (commit 8617bc7, 2026-12-01), where
 * that differs from pathSegment's and a file system could hold it: a name of 201 to 255
 * characters once cleaned, kept whole. A longer one was refused (ENAMETOOLONG), so nothing was
 * ever kept under it; a shorter one is the same today. Made of the same characters as
 * pathSegment's (never '/', never '.' or '..' at that length), so it stays one folder of the
 * root it is joined to.
 */
export function earlierPathSegment(value: string): string | undefined {
  const cleaned = cleanedSegment(value);
  return cleaned.length > MAX_SEGMENT && cleaned.length <= MAX_NAME ? cleaned : undefined;
}
