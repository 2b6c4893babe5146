/**
 * The Redis Enterprise operator's log, read through the Kubernetes API (the `pods/log`
 * subresource, client-node `CoreV1Api.readNamespacedPodLog`): what `kubectl logs
 * deploy/redis-enterprise-operator` shows. The docs send users there when an upgrade freezes:
 * "check the operator logs for the source of the error" (redis/docs
 * `content/operate/kubernetes/upgrade/upgrade-redis-cluster.md`); the operator raises no
 * documented Event for it.
 *
 * Lines are zap JSON from controller-runtime, e.g. (RedisLabs/redis-enterprise-k8s-docs #89):
 * {"level":"error","ts":1573829086.31,"logger":"controller_redisenterprisecluster",
 *  "msg":"Upgrade Error","Request.Namespace":"ns","Request.Name":"rec","error":"Upgrade Applied but will not start ..."}
 * Lines that are not JSON are kept as text.
 */

import { parseJson } from '../json-read.js';
import type { KubeClients } from './client.js';
import { resourcePath } from './rest.js';

/** The container of the operator Deployment that runs the operator (K8S `operator.yaml`). */
export const OPERATOR_CONTAINER = 'redis-enterprise-operator';

/**
 * How much of the operator's log one look reads. The log was read whole since the step began
 * (an earlier attempt's start on a resume, days maybe), from every pod the Deployment's selector
 * matches, whose lines any pod with those labels writes: up to 128 MiB a pod (the limit of one
 * Kubernetes answer), held and parsed each look. What ctl looks for is the operator's recent
 * error lines about the cluster: its last lines (pods/log `tailLines`), at most `bytes` of them
 * (`limitBytes`, and refused past it whatever the server sends), from at most `pods` pods.
 */
export const OPERATOR_LOG_LIMITS = {
  tailLines: 5000,
  bytes: 8 * 1024 * 1024,
  pods: 3,
} as const;

export interface OperatorLogLine {
  /** The line as written. */
  text: string;
  level?: string | undefined;
  logger?: string | undefined;
  msg?: string | undefined;
  /** Of error lines: why. */
  error?: string | undefined;
  /** `Request.Name`: the resource being reconciled. */
  requestName?: string | undefined;
}

export interface ReadOperatorLogOptions {
  namespace: string;
  deploymentName: string;
  /** Only lines of the last this many seconds (the pods/log `sinceSeconds`). */
  sinceSeconds?: number | undefined;
}

/**
 * The last lines the operator's pods wrote (within `sinceSeconds` and OPERATOR_LOG_LIMITS), pod
 * by pod. The pods are found through the Deployment's own selector, so a helm-installed operator
 * with other labels works too. Throws what the API answers (403 without `get` on `pods/log`, a
 * log past the limit): the caller decides.
 */
export async function readOperatorLog(
  kube: KubeClients,
  options: ReadOperatorLogOptions,
): Promise<OperatorLogLine[]> {
  const { namespace, deploymentName } = options;
  const deployment = await kube.rest.get<DeploymentView>(
    resourcePath('apps', 'v1', 'deployments', namespace, deploymentName),
  );
  const labels = deployment?.spec?.selector?.matchLabels ?? {};
  const labelSelector = Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  if (labelSelector === '') return [];
  const pods = await kube.rest.get<{ items?: PodView[] }>(resourcePath('', 'v1', 'pods', namespace), {
    labelSelector,
  });
  const lines: OperatorLogLine[] = [];
  const running = (pods?.items ?? []).filter((pod) => pod.metadata?.name && pod.status?.phase !== 'Pending');
  // The Deployment's own pods first (named after it; the operator runs one), then any other.
  const own = (pod: PodView) => (pod.metadata?.name?.startsWith(`${deploymentName}-`) ? 0 : 1);
  running.sort((a, b) => own(a) - own(b));
  for (const pod of running.slice(0, OPERATOR_LOG_LIMITS.pods)) {
    const name = pod.metadata?.name ?? '';
    const containers = (pod.spec?.containers ?? []).map((c) => c.name);
    const container = containers.includes(OPERATOR_CONTAINER) ? OPERATOR_CONTAINER : containers[0];
    const since =
      options.sinceSeconds === undefined ? undefined : Math.max(1, Math.ceil(options.sinceSeconds));
    const text = await kube.rest.text(
      `${resourcePath('', 'v1', 'pods', namespace, name)}/log`,
      {
        container,
        sinceSeconds: since,
        tailLines: OPERATOR_LOG_LIMITS.tailLines,
        limitBytes: OPERATOR_LOG_LIMITS.bytes,
      },
      // A server that ignores limitBytes (or a proxy before it) is cut off past it.
      { bytes: OPERATOR_LOG_LIMITS.bytes, what: "one look at a pod's log" },
    );
    for (const line of String(text ?? '').split('\n')) {
      if (line.trim() !== '') lines.push(parseLogLine(line));
    }
  }
  return lines;
}

/** The fields of the Deployment and its pods read here. */
interface DeploymentView {
  spec?: { selector?: { matchLabels?: Record<string, string> } };
}

interface PodView {
  metadata?: { name?: string };
  spec?: { containers?: { name: string }[] };
  status?: { phase?: string };
}

export function parseLogLine(text: string): OperatorLogLine {
  if (!text.startsWith('{')) return { text };
  try {
    const entry = parseJson(text, "the operator's log") as Record<string, unknown>;
    const field = (key: string) => (typeof entry[key] === 'string' ? (entry[key] as string) : undefined);
    return {
      text,
      level: field('level'),
      logger: field('logger'),
      msg: field('msg'),
      error: field('error'),
      requestName: field('Request.Name'),
    };
  } catch {
    return { text };
  }
}
