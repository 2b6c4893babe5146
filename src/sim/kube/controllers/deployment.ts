import type { ResourceType } from '../registry.js';
import type { ChangeEvent } from '../store.js';
import { nowTimestamp, randomSuffix } from '../store.js';
import { clone, isRecord, type KubeObject } from '../types.js';
import { type Controller, type ControllerContext, WorkQueue } from './controller.js';
import {
  controlledBy,
  isPodReady,
  ownerReference,
  podFromTemplate,
  runningPodStatus,
  templateHash,
} from './pods.js';

const REVISION = 'deployment.kubernetes.io/revision';

/**
 * The default Deployment -> ReplicaSet -> Pod machinery, reduced to what `helm --wait` (3 and 4)
 * and `kubectl rollout status` check: a ReplicaSet per pod template (pod-template-hash, owner
 * reference, revision), pods that run at once (or after `readinessDelayMs`), and the status
 * fields and conditions of a finished rollout. Old ReplicaSets are scaled to 0 at once.
 */
export class DeploymentController implements Controller {
  readonly name = 'deployment';
  /** How long new pods of a Deployment stay unready; the simulated operator sets this. */
  readinessDelayMs: (deployment: KubeObject) => number = () => 0;
  /**
   * The kubelet's pull of a new pod's images: the pod's status when one cannot be pulled (it
   * then never starts), undefined when it runs. The simulated operator answers for the
   * Deployments whose images its registry knows (src/sim/world/registry.ts); others all pull.
   */
  failedPullStatus: (deployment: KubeObject, pod: KubeObject) => Record<string, unknown> | undefined = () =>
    undefined;
  #context: ControllerContext | undefined;
  #queue: WorkQueue | undefined;
  #listener: ((event: ChangeEvent) => void) | undefined;
  readonly #timers = new Set<NodeJS.Timeout>();

  start(context: ControllerContext): void {
    this.#context = context;
    const queue = new WorkQueue((key) => this.#reconcile(key));
    this.#queue = queue;
    this.#listener = (event) => {
      const rt = event.resource;
      if (rt.group !== 'apps' && !(rt.group === '' && rt.kind === 'Pod')) return;
      const ns = event.object.metadata.namespace ?? '';
      if (rt.kind === 'Deployment') queue.add(`Deployment/${ns}/${event.object.metadata.name}`);
      const owner = (event.object.metadata.ownerReferences ?? []).find((r) => r.controller);
      if (!owner) return;
      if (rt.kind === 'ReplicaSet' && owner.kind === 'Deployment') {
        queue.add(`ReplicaSet/${ns}/${event.object.metadata.name}`);
        queue.add(`Deployment/${ns}/${owner.name}`);
      }
      if (rt.kind === 'Pod' && owner.kind === 'ReplicaSet') queue.add(`ReplicaSet/${ns}/${owner.name}`);
    };
    context.store.on('change', this.#listener);
    for (const d of context.store.all(this.#types().deployments)) {
      queue.add(`Deployment/${d.metadata.namespace}/${d.metadata.name}`);
    }
  }

  stop(): void {
    if (this.#listener) this.#context?.store.off('change', this.#listener);
    this.#queue?.stop();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /** Re-runs every Deployment's reconcile (after changing readinessDelayMs, for example). */
  resync(): void {
    const context = this.#context;
    if (!context) return;
    for (const d of context.store.all(this.#types().deployments)) {
      this.#queue?.add(`Deployment/${d.metadata.namespace}/${d.metadata.name}`);
    }
  }

  #types(): { deployments: ResourceType; replicaSets: ResourceType; pods: ResourceType } {
    const store = this.#context!.store;
    return {
      deployments: store.resolve('apps/v1', 'Deployment'),
      replicaSets: store.resolve('apps/v1', 'ReplicaSet'),
      pods: store.resolve('v1', 'Pod'),
    };
  }

  #reconcile(key: string): void {
    const [kind, namespace, name] = key.split('/') as [string, string, string];
    if (kind === 'Deployment') this.#reconcileDeployment(namespace, name);
    else this.#reconcileReplicaSet(namespace, name);
  }

  #reconcileDeployment(namespace: string, name: string): void {
    const context = this.#context!;
    const { store } = context;
    const types = this.#types();
    const deployment = store.get(types.deployments, namespace, name);
    if (!deployment || deployment.metadata.deletionTimestamp || !context.ownedByDefaultController(deployment))
      return;
    const spec = isRecord(deployment.spec) ? deployment.spec : {};
    const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const hash = templateHash(spec.template);
    const owned = store
      .list(types.replicaSets, { namespace })
      .items.filter((rs) => controlledBy(rs, deployment));
    let current = owned.find((rs) => rs.metadata.labels?.['pod-template-hash'] === hash);
    const maxRevision = Math.max(0, ...owned.map((rs) => Number(rs.metadata.annotations?.[REVISION] ?? 0)));
    if (!current) {
      current = store.create(types.replicaSets, newReplicaSet(deployment, hash, desired, maxRevision + 1), {
        fieldManager: 'kube-controller-manager',
      });
    } else if (replicasOf(current) !== desired) {
      const next = clone(current);
      (next.spec as Record<string, unknown>).replicas = desired;
      current = store.update(types.replicaSets, next, { fieldManager: 'kube-controller-manager' });
    }
    // RollingUpdate (the default strategy) removes an old pod only once a new one is available
    // (for one replica, maxUnavailable 25% rounds down to 0: kubernetes.io "Deployments",
    // "Max Unavailable"); Recreate removes them all first. Here old ReplicaSets go at once but
    // for one case: new pods that can never start (their image does not pull) leave a
    // RollingUpdate Deployment's old pods running, as a real rollout stuck there does.
    const stuck = !isRecreate(deployment) && this.#newPodsFailPull(deployment, current);
    for (const old of owned) {
      if (stuck || old.metadata.uid === current.metadata.uid || replicasOf(old) === 0) continue;
      const next = clone(old);
      (next.spec as Record<string, unknown>).replicas = 0;
      store.update(types.replicaSets, next, { fieldManager: 'kube-controller-manager' });
    }
    const all = store
      .list(types.replicaSets, { namespace })
      .items.filter((rs) => controlledBy(rs, deployment));
    const newRs = all.find((rs) => rs.metadata.uid === current.metadata.uid) ?? current;
    const statusOf = (rs: KubeObject, field: string): number => {
      const value = isRecord(rs.status) ? rs.status[field] : undefined;
      return typeof value === 'number' ? value : 0;
    };
    const sum = (field: string) => all.reduce((total, rs) => total + statusOf(rs, field), 0);
    const replicas = sum('replicas');
    const updated = statusOf(newRs, 'replicas');
    const ready = sum('readyReplicas');
    const available = sum('availableReplicas');
    const complete =
      updated === desired && replicas === desired && statusOf(newRs, 'availableReplicas') === desired;
    const previous = isRecord(deployment.status) ? deployment.status : {};
    const status: Record<string, unknown> = {
      observedGeneration: deployment.metadata.generation,
      replicas,
      updatedReplicas: updated,
      readyReplicas: ready,
      availableReplicas: available,
    };
    if (desired - available > 0) status.unavailableReplicas = desired - available;
    const rsName = newRs.metadata.name;
    status.conditions = [
      keepTimes(
        previous,
        available >= desired
          ? {
              type: 'Available',
              status: 'True',
              reason: 'MinimumReplicasAvailable',
              message: 'Deployment has minimum availability.',
            }
          : {
              type: 'Available',
              status: 'False',
              reason: 'MinimumReplicasUnavailable',
              message: 'Deployment does not have minimum availability.',
            },
      ),
      keepTimes(
        previous,
        complete
          ? {
              type: 'Progressing',
              status: 'True',
              reason: 'NewReplicaSetAvailable',
              message: `ReplicaSet "${rsName}" has successfully progressed.`,
            }
          : {
              type: 'Progressing',
              status: 'True',
              reason: 'ReplicaSetUpdated',
              message: `ReplicaSet "${rsName}" is progressing.`,
            },
      ),
    ];
    const next = clone(deployment);
    next.status = status;
    store.updateStatus(types.deployments, next, { fieldManager: 'kube-controller-manager' });
  }

  /** The new ReplicaSet's pods would wait on an image the registry does not have (judged from its template). */
  #newPodsFailPull(deployment: KubeObject, replicaSet: KubeObject): boolean {
    const spec = isRecord(replicaSet.spec) ? replicaSet.spec : {};
    const pod = podFromTemplate(
      spec.template,
      replicaSet.metadata.name ?? '',
      replicaSet.metadata.namespace ?? '',
      {},
      replicaSet,
    );
    return this.failedPullStatus(deployment, pod) !== undefined;
  }

  #reconcileReplicaSet(namespace: string, name: string): void {
    const context = this.#context!;
    const { store } = context;
    const types = this.#types();
    const rs = store.get(types.replicaSets, namespace, name);
    if (!rs || rs.metadata.deletionTimestamp || !context.ownedByDefaultController(rs)) return;
    const ownerRef = (rs.metadata.ownerReferences ?? []).find((r) => r.controller && r.kind === 'Deployment');
    const deployment = ownerRef ? store.get(types.deployments, namespace, ownerRef.name) : undefined;
    if (deployment && !context.ownedByDefaultController(deployment)) return;
    const spec = isRecord(rs.spec) ? rs.spec : {};
    const desired = replicasOf(rs);
    let pods = store
      .list(types.pods, { namespace })
      .items.filter((p) => controlledBy(p, rs) && !p.metadata.deletionTimestamp);
    const hash = rs.metadata.labels?.['pod-template-hash'] ?? templateHash(spec.template);
    const delay = deployment ? this.readinessDelayMs(deployment) : 0;
    while (pods.length < desired) {
      const pod = podFromTemplate(
        spec.template,
        `${name}-${randomSuffix()}`,
        namespace,
        { 'pod-template-hash': hash },
        rs,
      );
      const created = store.create(types.pods, pod, { fieldManager: 'kube-controller-manager' });
      const running = clone(created);
      const failedPull = deployment ? this.failedPullStatus(deployment, created) : undefined;
      running.status = failedPull ?? runningPodStatus(created, delay <= 0, pods.length);
      pods.push(store.updateStatus(types.pods, running, { fieldManager: 'kubelet' }));
      if (delay > 0 && !failedPull) this.#readyLater(created, delay, pods.length);
    }
    if (pods.length > desired) {
      const extra = [...pods].sort((a, b) =>
        String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)),
      );
      for (const pod of extra.slice(0, pods.length - desired)) {
        store.delete(types.pods, namespace, pod.metadata.name ?? '');
      }
      pods = pods.filter((p) => store.get(types.pods, namespace, p.metadata.name ?? ''));
    }
    const ready = pods.filter(isPodReady).length;
    const next = clone(rs);
    next.status = {
      replicas: pods.length,
      fullyLabeledReplicas: pods.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: rs.metadata.generation,
    };
    store.updateStatus(types.replicaSets, next, { fieldManager: 'kube-controller-manager' });
  }

  #readyLater(pod: KubeObject, delayMs: number, index: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      const { store } = this.#context!;
      const pods = this.#types().pods;
      const current = store.get(pods, pod.metadata.namespace, pod.metadata.name ?? '');
      if (!current || current.metadata.uid !== pod.metadata.uid) return;
      const next = clone(current);
      next.status = runningPodStatus(current, true, index);
      try {
        store.updateStatus(pods, next, { fieldManager: 'kubelet' });
      } catch {
        // deleted meanwhile
      }
    }, delayMs);
    this.#timers.add(timer);
  }
}

function isRecreate(deployment: KubeObject): boolean {
  const spec = isRecord(deployment.spec) ? deployment.spec : {};
  return isRecord(spec.strategy) && spec.strategy.type === 'Recreate';
}

function replicasOf(object: KubeObject): number {
  const spec = isRecord(object.spec) ? object.spec : {};
  return typeof spec.replicas === 'number' ? spec.replicas : 1;
}

function newReplicaSet(deployment: KubeObject, hash: string, replicas: number, revision: number): KubeObject {
  const spec = isRecord(deployment.spec) ? deployment.spec : {};
  const template = isRecord(spec.template) ? clone(spec.template) : {};
  const templateMeta = isRecord(template.metadata) ? template.metadata : {};
  const labels = {
    ...(isRecord(templateMeta.labels) ? (templateMeta.labels as Record<string, string>) : {}),
    'pod-template-hash': hash,
  };
  template.metadata = { ...templateMeta, labels };
  const selector = isRecord(spec.selector) ? clone(spec.selector) : {};
  selector.matchLabels = {
    ...(isRecord(selector.matchLabels) ? selector.matchLabels : {}),
    'pod-template-hash': hash,
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${deployment.metadata.name}-${hash}`,
      namespace: deployment.metadata.namespace,
      labels,
      annotations: {
        [REVISION]: String(revision),
        'deployment.kubernetes.io/desired-replicas': String(replicas),
        'deployment.kubernetes.io/max-replicas': String(replicas + 1),
      },
      ownerReferences: [ownerReference(deployment)],
    },
    spec: { replicas, selector, template },
  };
}

function keepTimes(
  previous: Record<string, unknown>,
  condition: Record<string, string>,
): Record<string, unknown> {
  const conditions = Array.isArray(previous.conditions) ? previous.conditions.filter(isRecord) : [];
  const old = conditions.find((c) => c.type === condition.type);
  const now = nowTimestamp();
  const same =
    old &&
    old.status === condition.status &&
    old.reason === condition.reason &&
    old.message === condition.message;
  return {
    ...condition,
    lastUpdateTime: same ? old.lastUpdateTime : now,
    lastTransitionTime: old && old.status === condition.status ? old.lastTransitionTime : now,
  };
}
