import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Runs `body` with the working folder `<dir>/working`, which holds a decoy at `relativePath`
 * (the text `token-of-the-working-folder`), then goes back to the folder it started in: a
 * kubeconfig's relative path must be taken from the kubeconfig's folder, as kubectl takes it,
 * never from the folder ctl runs in (client-node read the decoy).
 */
export async function inDecoyWorkingFolder<T>(
  dir: string,
  relativePath: string,
  body: () => Promise<T>,
): Promise<T> {
  const working = join(dir, 'working');
  const decoy = join(working, relativePath);
  mkdirSync(dirname(decoy), { recursive: true });
  writeFileSync(decoy, 'token-of-the-working-folder');
  const started = process.cwd();
  process.chdir(working);
  try {
    return await body();
  } finally {
    process.chdir(started);
  }
}
