/**
 * The cluster step with auto-upgrade on: the operator upgrades the cluster itself once it runs
 * the new version, so ctl changes nothing and waits until the operator has started (or already
 * finished) the upgrade, seen on the cluster resource or on the pods' image.
 */

import { OperationError } from '../errors.js';
import type { KubeObject } from '../kube/reads.js';
import { CLUSTER_RESOURCE } from '../kube/reads.js';
import type { waitForObject } from '../kube/watch.js';
import { curlApi, kubectl } from '../planning/equivalent-commands.js';
import { type ClusterSnapshot, toCluster } from '../planning/snapshot.js';
import type { StepContext, StepResult } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import { imageAtTarget } from './image-at-target.js';
import { nodeImageOf } from './roll-facts.js';
import { stepWaitWarning } from './wait-warnings.js';

/**
 * Auto-upgrade: the operator upgrades the cluster itself once it runs the new version; wait until
 * it has started (or already finished) the upgrade. Nothing documents that it writes the spec's
 * versionTag (redis-facts.md §12), so a spec write is not awaited: the cluster resource going to
 * state `Upgrade` (or its versionTag changing), or the StatefulSet's node image moving (to the
 * target, or away from what it was), each says the operator has begun. The monitor step then
 * judges the roll by the pods and the nodes.
 */
export async function followAutoUpgrade(
  ctx: StepContext<UpgradeDeps>,
  wait: typeof waitForObject,
  live: ClusterSnapshot,
  tag: string,
): Promise<StepResult> {
  const reason = 'auto-upgrade is on: the operator upgrades the cluster';
  const startTag = ctx.deps.snapshot.cluster?.image.versionTag;
  if (live.image.versionTag === tag) return { skipped: `${reason} (it has set versionTag ${tag})` };
  if (ctx.dryRun) return { skipped: reason };
  ctx.progress(`${reason}; waiting for it to start`);
  const { kube, settings, snapshot } = ctx.deps;
  const ns = live.namespace;
  const operatorNs = snapshot.operator?.namespace ?? ns;
  const hint =
    `Look at the operator's log: ${kubectl(snapshot.kubeTarget, 'logs', 'deploy/redis-enterprise-operator', '-n', operatorNs)}, ` +
    `at ${kubectl(snapshot.kubeTarget, 'get', 'rec', live.name, '-n', ns)} and at the nodes' versions (${curlApi('GET', '/v1/nodes')}). ` +
    'Or turn auto-upgrade off and run ctl again.';
  const facts = { tag, oldDigest: live.image.versionTag !== tag ? live.image.digestHash : undefined };
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  let startImage: string | undefined | null = null;
  const common = {
    kube,
    signal: stop.signal,
    timeoutMs: settings.timeoutMs,
    stallTimeoutMs: settings.stallTimeoutMs,
    hint,
    onProgress: (message: string) => ctx.progress(message),
    onWarning: stepWaitWarning(ctx),
  };
  const byResource = wait<KubeObject>({
    ...common,
    path: `/apis/${CLUSTER_RESOURCE.group}/${live.apiVersion.split('/')[1] ?? CLUSTER_RESOURCE.version}/namespaces/${ns}/${CLUSTER_RESOURCE.plural}`,
    name: live.name,
    description: `the operator to start the upgrade of ${live.name} (auto-upgrade)`,
    check: (object) => {
      if (!object) throw new OperationError(`the cluster resource ${live.name} was deleted`);
      const now = toCluster(object, snapshot.dialect, ns);
      // The operator has answered, with a refusal: the monitor step fails on it with the
      // operator's warning and the fix, which this wait does not collect.
      if (now.state === 'InvalidUpgrade') return true;
      if (
        now.state === 'Upgrade' ||
        (now.image.versionTag !== undefined && now.image.versionTag !== startTag)
      ) {
        return true;
      }
      return `cluster state ${now.state ?? 'unknown'}, versionTag ${now.image.versionTag ?? '(default)'}`;
    },
  }).then((object): Answer => ({ by: 'resource', object }));
  const byPods = wait<KubeObject>({
    ...common,
    path: `/apis/apps/v1/namespaces/${ns}/statefulsets`,
    name: live.name,
    description: `the operator to roll the pods of ${live.name} (auto-upgrade)`,
    check: (object) => {
      if (!object) return `StatefulSet ${live.name} not found yet`;
      const image = nodeImageOf(object, ['spec', 'template', 'spec']);
      if (startImage === null) startImage = image;
      if (image === undefined) return `StatefulSet ${live.name} has no node container`;
      // At the target: started, or already done (the monitor step tells which).
      if (imageAtTarget(image, facts)) return true;
      if (image !== startImage) return true;
      return `the pods' image is ${image}`;
    },
  }).then((object): Answer => ({ by: 'pods', object }));
  let answer: Answer;
  try {
    answer = await firstOf([byResource, byPods], stop);
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
  if (answer.by === 'pods') {
    const image = nodeImageOf(answer.object, ['spec', 'template', 'spec']) ?? '';
    if (!imageAtTarget(image, facts)) {
      ctx.warn(`the operator rolls the pods to ${image}, not to ${tag}`, { image });
    }
    return { skipped: `${reason} (it rolls the pods to ${image})` };
  }
  const answered = toCluster(answer.object, snapshot.dialect, ns);
  if (answered.state === 'InvalidUpgrade') {
    ctx.warn(
      `the operator refused the upgrade of ${live.name} (state InvalidUpgrade): the monitor step shows why`,
    );
    return { skipped: `${reason}, but it answered with state InvalidUpgrade` };
  }
  const chosen = answered.image.versionTag;
  if (chosen !== undefined && chosen !== startTag && chosen !== tag) {
    ctx.warn(`the operator chose versionTag ${chosen}, not ${tag}`, { versionTag: chosen });
  }
  if (chosen === tag) return { skipped: `${reason} (it has set versionTag ${tag})` };
  return { skipped: `${reason} (it has started: state ${answered.state ?? 'unknown'})` };
}

interface Answer {
  by: 'resource' | 'pods';
  object: KubeObject;
}

/**
 * The first of several waits to succeed; the others are stopped. A failure (a timeout, a
 * deleted resource) ends the wait at once unless one of them has already succeeded.
 */
function firstOf<T>(waits: Promise<T>[], stop: AbortController): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    for (const waiting of waits) {
      waiting.then(
        (value) => {
          if (done) return;
          done = true;
          stop.abort();
          resolve(value);
        },
        (error: unknown) => {
          if (done) return;
          done = true;
          stop.abort();
          reject(error);
        },
      );
    }
  });
}
