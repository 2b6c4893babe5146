import type { ChangeEvent } from '../store.js';
import { clone, isRecord, type KubeObject } from '../types.js';
import { type Controller, type ControllerContext, WorkQueue } from './controller.js';
import { controlledBy, isPodReady, podFromTemplate, runningPodStatus, templateHash } from './pods.js';

/**
 * The default StatefulSet controller: pods `<name>-<ordinal>` that run at once, replaced all
 * together when the template changes, and the status fields `kubectl rollout status` reads.
 * The simulated operator claims the cluster's StatefulSet to roll it one pod at a time instead.
 */
export class StatefulSetController implements Controller {
  readonly name = 'statefulset';
  #context: ControllerContext | undefined;
  #queue: WorkQueue | undefined;
  #listener: ((event: ChangeEvent) => void) | undefined;

  start(context: ControllerContext): void {
    this.#context = context;
    const queue = new WorkQueue((key) => this.#reconcile(key));
    this.#queue = queue;
    this.#listener = (event) => {
      const rt = event.resource;
      const ns = event.object.metadata.namespace ?? '';
      if (rt.group === 'apps' && rt.kind === 'StatefulSet') queue.add(`${ns}/${event.object.metadata.name}`);
      if (rt.group === '' && rt.kind === 'Pod') {
        const owner = (event.object.metadata.ownerReferences ?? []).find(
          (r) => r.controller && r.kind === 'StatefulSet',
        );
        if (owner) queue.add(`${ns}/${owner.name}`);
      }
    };
    context.store.on('change', this.#listener);
    for (const s of context.store.all(context.store.resolve('apps/v1', 'StatefulSet'))) {
      queue.add(`${s.metadata.namespace}/${s.metadata.name}`);
    }
  }

  stop(): void {
    if (this.#listener) this.#context?.store.off('change', this.#listener);
    this.#queue?.stop();
  }

  #reconcile(key: string): void {
    const [namespace, name] = key.split('/') as [string, string];
    const context = this.#context!;
    const { store } = context;
    const statefulSets = store.resolve('apps/v1', 'StatefulSet');
    const podsType = store.resolve('v1', 'Pod');
    const sts = store.get(statefulSets, namespace, name);
    if (!sts || sts.metadata.deletionTimestamp || !context.ownedByDefaultController(sts)) return;
    const spec = isRecord(sts.spec) ? sts.spec : {};
    const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const revision = `${name}-${templateHash(spec.template)}`;
    const owned = (): KubeObject[] =>
      store
        .list(podsType, { namespace })
        .items.filter((p) => controlledBy(p, sts) && !p.metadata.deletionTimestamp);
    for (const pod of owned()) {
      const ordinal = Number(pod.metadata.name?.slice(name.length + 1));
      const stale = pod.metadata.labels?.['controller-revision-hash'] !== revision;
      if (ordinal >= desired || stale) store.delete(podsType, namespace, pod.metadata.name ?? '');
    }
    for (let ordinal = 0; ordinal < desired; ordinal++) {
      const podName = `${name}-${ordinal}`;
      if (store.get(podsType, namespace, podName)) continue;
      const pod = podFromTemplate(
        spec.template,
        podName,
        namespace,
        {
          'controller-revision-hash': revision,
          'statefulset.kubernetes.io/pod-name': podName,
          'apps.kubernetes.io/pod-index': String(ordinal),
        },
        sts,
      );
      const created = store.create(podsType, pod, { fieldManager: 'kube-controller-manager' });
      const running = clone(created);
      running.status = runningPodStatus(created, true, ordinal);
      store.updateStatus(podsType, running, { fieldManager: 'kubelet' });
    }
    const pods = owned();
    const ready = pods.filter(isPodReady).length;
    const updated = pods.filter((p) => p.metadata.labels?.['controller-revision-hash'] === revision).length;
    const next = clone(sts);
    next.status = {
      observedGeneration: sts.metadata.generation,
      replicas: pods.length,
      readyReplicas: ready,
      currentReplicas: updated,
      updatedReplicas: updated,
      availableReplicas: ready,
      currentRevision: revision,
      updateRevision: revision,
      collisionCount: 0,
    };
    store.updateStatus(statefulSets, next, { fieldManager: 'kube-controller-manager' });
  }
}
