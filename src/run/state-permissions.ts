import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';

/**
 * A state file decides which steps a run skips as done, and its folder holds the lock file: a
 * file or folder that other users may write lets any of them steer or block the upgrade. Such a
 * state is refused (exit 2) with the chmod that fixes it, rather than trusted silently (issue
 * 28; `--password-file` checks its mode the same way, src/api/credentials.ts). What does not
 * exist yet is fine: ctl creates the folder 0700 and the file 0600 whatever the umask.
 */
export async function refuseSharedStatePath(statePath: string): Promise<void> {
  if (process.platform === 'win32') return;
  const folder = dirname(statePath);
  for (const [what, at, fix] of [
    ['state folder', folder, `chmod go-w ${folder}`],
    ['state file', statePath, `chmod 600 ${statePath}`],
  ] as const) {
    const mode = await modeOf(at);
    if (mode === undefined || (mode & 0o022) === 0) continue;
    throw new UsageError(
      `the ${what} ${at} can be written by other users (mode ${(mode & 0o7777).toString(8)}): ctl does not trust it`,
      {
        hint: `Run \`${fix}\`, or name a --state in a folder only you can write (the default under $XDG_STATE_HOME/ctl is).`,
      },
    );
  }
}

async function modeOf(at: string): Promise<number | undefined> {
  try {
    return (await stat(at)).mode;
  } catch {
    return undefined; // missing or unreadable: the load or save names the problem itself
  }
}
