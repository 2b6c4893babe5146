import type { GlobalOptions } from './options.js';
import type { UpgradeState } from '../run/state.js';
import type { Warner } from '../kube/plain-http.js';

/**
 * Whose state `ctl upgrade status` shows (issue 36, item 4). `run` refuses a state recorded for
 * another cluster (src/run/cluster-identity.ts); status used to print it as this cluster's. Here
 * status reads the one object that tells clusters apart, the cluster resource named in the state
 * (its metadata.uid), and judges it with the function `run` uses. It reads, never writes, and
 * never opens the management API (that needs credentials; `run` checks that side too).
 */
export type IdentityCheck =
  | { checked: true; belongsHere: true; message: string }
  | { checked: true; belongsHere: false; message: string; hint: string }
  | { checked: false; belongsHere: null; message: string };

/** The longest status waits for the cluster: a state file is shown anyway, unchecked, after it. */
export const IDENTITY_CHECK_TIMEOUT_MS = 15_000;

export interface IdentityInput {
  globals: GlobalOptions;
  env: NodeJS.ProcessEnv;
  state: UpgradeState;
  /** Where the state is (a file path or `configmap/<ns>/<name>`), for messages. */
  location: string;
  /** A file store is named by its context; a ConfigMap lives in the cluster it belongs to. */
  byContext: boolean;
  timeoutMs?: number;
  /** Each credential of the kubeconfig, for the redactor (src/kube/client.ts createKubeClients). */
  onSecret(secret: string): void;
  /** Where the `warning:` of a plain-http server goes (src/kube/plain-http.ts). */
  warner?: Warner;
}

export async function checkStatusIdentity(input: IdentityInput): Promise<IdentityCheck> {
  const timeoutMs = input.timeoutMs ?? IDENTITY_CHECK_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<IdentityCheck>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          checked: false,
          belongsHere: null,
          message: `could not check that this state is this cluster's: the Kubernetes API did not answer within ${Math.round(timeoutMs / 1000)}s`,
        }),
      timeoutMs,
    );
    timer.unref();
  });
  try {
    return await Promise.race([compare(input), timedOut]);
  } catch (error) {
    return {
      checked: false,
      belongsHere: null,
      message: `could not check that this state is this cluster's: ${firstLine(error)}`,
    };
  } finally {
    clearTimeout(timer);
  }
}

async function compare(input: IdentityInput): Promise<IdentityCheck> {
  const { lineage } = input.state;
  const { loadKubeConfig, createKubeClients } = await import('../kube/client.js');
  const { createClusterReads, CLUSTER_RESOURCE } = await import('../kube/reads.js');
  const loaded = await loadKubeConfig({
    kubeconfig: input.globals.kubeconfig,
    context: input.globals.context,
    env: input.env,
  });
  const reads = createClusterReads(await createKubeClients(loaded, input.onSecret, input.warner));
  const rec = await reads.getCustomObject!(CLUSTER_RESOURCE, lineage.namespace, lineage.cluster);
  const where = `${lineage.namespace}/${lineage.cluster} (context ${loaded.contextName})`;
  if (!rec) {
    return {
      checked: true,
      belongsHere: false,
      message: `this state is not this cluster's: there is no cluster resource ${where}; the state was written for another cluster, or the cluster resource was deleted`,
      hint: `Check --context (or KUBECONFIG): this context reaches ${loaded.server}.`,
    };
  }
  const { checkStateBelongsHere } = await import('../run/cluster-identity.js');
  try {
    checkStateBelongsHere(
      input.state,
      {
        context: loaded.contextName,
        namespace: lineage.namespace,
        cluster: lineage.cluster,
        recUid: rec.metadata?.uid,
      },
      input.location,
      { byContext: input.byContext },
    );
  } catch (error) {
    const { isCtlError } = await import('../errors.js');
    if (!isCtlError(error)) throw error;
    return {
      checked: true,
      belongsHere: false,
      message: `this state is not this cluster's: ${error.message}`,
      hint: error.hint ?? '',
    };
  }
  if (!lineage.recUid) {
    return {
      checked: false,
      belongsHere: null,
      message: `could not check that this state is this cluster's: it records no cluster resource uid (an earlier ctl wrote it); the next run records it`,
    };
  }
  return {
    checked: true,
    belongsHere: true,
    message: `this cluster's: the cluster resource ${where} has the recorded uid ${lineage.recUid}`,
  };
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
