import { helmEnvironment } from './helm.js';

/** What `<binary> version` answered, asked before planning (check helm-available). */
export interface HelmClientProbe {
  /** The binary the run would call: `--helm-bin`, CTL_HELM, else `helm` from the PATH. */
  binary: string;
  found: boolean;
  /** `v3.14.2`, as `helm version --template {{.Version}}` prints it. */
  version?: string | undefined;
  /** Why it could not be asked (not found, no answer in time, an error). */
  error?: string | undefined;
}

/** Bounded: a helm that does not answer within this is reported, not waited for. */
const PROBE_TIMEOUT_MS = 15_000;

/**
 * Asks the helm client its version, read-only, with the environment the run gives helm (no ctl
 * credential) and a deadline. Never throws: what went wrong is in the answer.
 */
export async function probeHelmClient(binary: string, env: NodeJS.ProcessEnv): Promise<HelmClientProbe> {
  const { execa } = await import('execa');
  try {
    const result = await execa(binary, ['version', '--template', '{{.Version}}'], {
      env: helmEnvironment(env),
      extendEnv: false,
      stdin: 'ignore',
      timeout: PROBE_TIMEOUT_MS,
      reject: true,
    });
    return { binary, found: true, version: result.stdout.trim() };
  } catch (error) {
    const e = error as { code?: string; timedOut?: boolean; shortMessage?: string };
    if (e.code === 'ENOENT') return { binary, found: false, error: 'not found' };
    if (e.code === 'EACCES') return { binary, found: false, error: 'not executable' };
    if (e.timedOut)
      return { binary, found: true, error: `no answer to helm version in ${PROBE_TIMEOUT_MS / 1000} s` };
    return { binary, found: true, error: (e.shortMessage ?? String(error)).split('\n')[0] };
  }
}
