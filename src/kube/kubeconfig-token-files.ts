/**
 * The token file of each kubeconfig user, under either key it is written with, taken out of the
 * users' entries before client-node's reader of users sees them (./token-file.ts says why ctl
 * reads the file itself, and how).
 *
 * - `tokenFile` is kubectl's key (kubernetes/client-go tools/clientcmd/api/v1/types.go, AuthInfo:
 *   `TokenFile string \`json:"tokenFile,omitempty"\``), which client-node never reads: a
 *   kubeconfig written for kubectl had ctl send its requests without a token.
 * - `token-file` is client-node's key (config_types.js findToken), which kubectl ignores; kept
 *   for the kubeconfigs written for client-node, read as before.
 */

import { resolve } from 'node:path';

/** The key a user's token file was written under, as messages name it. */
export type TokenFileKey = 'tokenFile' | 'token-file';

export interface TakenTokenFile {
  /** Absolute: taken from the kubeconfig's folder. */
  path: string;
  key: TokenFileKey;
  /** The user's `token` beside a `tokenFile`, which kubectl falls back on (./token-file.ts). */
  besideToken?: string;
}

/** Go's `len(x) != 0` of a kubeconfig string field (./kubeconfig-text.ts asks it too). */
export function given(value: unknown): boolean {
  return value !== undefined && value !== null && String(value) !== '';
}

/** Whether the user (`users[].user`) names a token file under either key: a credential. */
export function hasTokenFile(user: Record<string, unknown>): boolean {
  return given(user.tokenFile) || given(user['token-file']);
}

/**
 * Takes each user's token file out of the users' entries, by index, its path taken from `base`
 * (client-go's ResolveLocalPaths, tools/clientcmd/loader.go: GetAuthInfoFileReferences lists
 * `TokenFile`; an empty one is no file): its `tokenFile`, else a `token-file` that client-node
 * would read (a user without a `token`). Both keys given: the `tokenFile` is read, as kubectl
 * reads it, and the `token-file` dropped, as kubectl never reads it; the same kubeconfig then
 * sends the same token from ctl as from kubectl. A `tokenFile` stays in the entry (client-node
 * does not know it) for the checks of ./auth-info.ts.
 */
export function takeTokenFiles(users: unknown, base: string): Map<number, TakenTokenFile> {
  const taken = new Map<number, TakenTokenFile>();
  if (!Array.isArray(users)) return taken;
  users.forEach((entry: unknown, index) => {
    const user = (entry as { user?: unknown } | null)?.user as Record<string, unknown> | null | undefined;
    if (!user || typeof user !== 'object') return;
    if (given(user.tokenFile)) {
      const path = resolve(base, String(user.tokenFile as string));
      taken.set(
        index,
        given(user.token)
          ? { path, key: 'tokenFile', besideToken: String(user.token as string) }
          : { path, key: 'tokenFile' },
      );
      delete user['token-file'];
      return;
    }
    if (user.token || !user['token-file']) return;
    taken.set(index, { path: resolve(base, String(user['token-file'] as string)), key: 'token-file' });
    delete user['token-file'];
  });
  return taken;
}
