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
 * Whether the probe runs in a process group of its own. On Windows `detached` gives the child a
 * console of its own instead, and a negative pid names nothing to process.kill.
 */
const GROUPS = process.platform !== 'win32';

/**
 * Asks the helm client its version, read-only, with the environment the run gives helm (no ctl
 * credential) and a deadline. Never throws: what went wrong is in the answer.
 *
 * The deadline ends the probe even when the binary is a wrapper (a shim, a script) whose own
 * child hangs: that child holds stdout open, so stopping the wrapper alone left the plan waiting
 * for the pipe to close, for ever. The probe runs in a process group of its own, and at the
 * deadline (or when ctl exits first) the whole group is killed and the pipes are let go.
 */
export async function probeHelmClient(binary: string, env: NodeJS.ProcessEnv): Promise<HelmClientProbe> {
  const { execa } = await import('execa');
  let timedOut = false;
  let subprocess: ReturnType<typeof execa> | undefined;
  const stop = (): void => {
    // Windows has no process groups: there the probe itself is stopped, as before groups.
    if (GROUPS) killGroup(subprocess?.pid);
    else subprocess?.kill('SIGKILL');
    subprocess?.stdout?.destroy();
    subprocess?.stderr?.destroy();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, PROBE_TIMEOUT_MS);
  process.once('exit', stop);
  try {
    subprocess = execa(binary, ['version', '--template', '{{.Version}}'], {
      env: helmEnvironment(env),
      extendEnv: false,
      stdin: 'ignore',
      detached: GROUPS,
      reject: true,
    });
    const result = await subprocess;
    return { binary, found: true, version: String(result.stdout).trim() };
  } catch (error) {
    const e = error as { code?: string; shortMessage?: string };
    if (e.code === 'ENOENT') return { binary, found: false, error: 'not found' };
    if (e.code === 'EACCES') return { binary, found: false, error: 'not executable' };
    if (timedOut)
      return { binary, found: true, error: `no answer to helm version in ${PROBE_TIMEOUT_MS / 1000} s` };
    return { binary, found: true, error: (e.shortMessage ?? String(error)).split('\n')[0] };
  } finally {
    clearTimeout(timer);
    process.removeListener('exit', stop);
  }
}

/** SIGKILL to the process group led by `pid` (the probe's own group: `detached`). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group has ended already.
  }
}
