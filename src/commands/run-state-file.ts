import type { RunCommandInput } from './run-input.js';

/**
 * A `--state` file that is not a ctl state at all (not JSON, another apiVersion or kind, the
 * schema; larger than any state ctl writes, not a regular file) is refused before the cluster
 * is read: no plan of the cluster can make it usable, so reading and judging the whole cluster
 * first only delays the same refusal. The error is the one the run gives when it loads the file later: the mode
 * check first (exit 2), then the file's own (exit 1), and a run that would hold the lock keeps
 * a copy of the file as it would (`<file>.corrupt-<time>`), under the local lock file only (the
 * cluster's Lease would be a request to the cluster).
 *
 * Only the file's content is judged here. A missing file is a first run; a valid state of another
 * cluster can only be told once the cluster is known (chooseState, src/run/cluster-identity.ts);
 * a file that cannot be read, and the default path (it depends on the cluster), are left to the
 * run's own load, as before.
 */
export async function refuseStateFileEarly(input: RunCommandInput): Promise<void> {
  const path = input.statePath;
  if (path === undefined || input.stateStore === 'configmap') return;
  const { StateFile } = await import('../run/state.js');
  if (!(await new StateFile(path).refusesContent())) return;
  // The kubeconfig and context ctl was given, for the `ctl upgrade unlock` of a lock's hint.
  const { chosenKubeTarget } = await import('../kube/client.js');
  const { FileStateStore } = await import('../run/state-store.js');
  const store = new FileStateStore(path, undefined, chosenKubeTarget({ ...input.globals, env: input.env }));
  // Throws the file's error; returns only when the file was replaced by a valid one meanwhile
  // (another run wrote it), which the run then goes on with as usual.
  if (input.dryRun) {
    await store.load();
    return;
  }
  const lock = await store.lock('upgrade run');
  try {
    await store.load();
  } finally {
    await lock.release();
  }
}

/**
 * Where the refused run was pointed, for its `--report` (src/run/report.ts `cluster`), from what
 * is known without a request to the cluster, as the run would have resolved it
 * (src/kube/management-access.ts openKubeAccess, src/commands/session.ts): the context given, else
 * the kubeconfig's current one; the namespace given, else the context's, else `default`; the
 * cluster resource given (without `--cluster` it is only known once the namespace is read). A
 * kubeconfig that cannot be loaded leaves what it would have said unknown: the report is about the
 * state file's refusal, not that.
 */
export async function locationBeforeRead(
  input: RunCommandInput,
): Promise<{ context: string | undefined; namespace: string | undefined; cluster: string | undefined }> {
  const { loadKubeConfig, resolveNamespace } = await import('../kube/client.js');
  const loaded = await loadKubeConfig({
    kubeconfig: input.globals.kubeconfig,
    context: input.globals.context,
    env: input.env,
  }).catch(() => undefined);
  return {
    context: loaded?.contextName ?? (input.globals.context || undefined),
    namespace: loaded
      ? resolveNamespace(input.globals.namespace, loaded)
      : input.globals.namespace || undefined,
    cluster: input.globals.cluster || undefined,
  };
}
