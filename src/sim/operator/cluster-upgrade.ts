import type { SimDialectFields } from '../world/dialect.js';
import { worldOf } from '../world/world.js';
import { isNewerClusterTag } from '../world/versions.js';
import { type ImagePull, nodeImageReference, pullNodeImage, pullReleaseImage } from '../world/registry.js';
import { containersOf, isPodReady } from '../kube/controllers/pods.js';
import { clone, type KubeObject } from '../kube/types.js';
import type { RestModel } from '../rest/model.js';
import type { Scenario } from '../scenario.js';
import type { Timers } from './clock.js';
import {
  OTHER_IMAGE_SPECS,
  BOOTSTRAPPER_CONTAINER,
  CLUSTER_KIND,
  componentImage,
  componentRepository,
  CRD_API_VERSION,
  imageTag,
  NODE_CONTAINER,
  pinsImage,
} from './cluster-objects.js';
import { imageSpecAt, type ServicesRigger } from './services-rigger.js';
import { bundledDatabaseVersionsStatus } from './database-versions.js';
import { imagePullBackOffStatus } from './image-pull.js';
import type { EventRecorder } from './events.js';
import { CLUSTER_LOGGER, type OperatorLog } from './operator-log.js';
import { upgradeBlockers } from './freeze.js';
import type { PodAdmissionGate } from './pod-admission.js';
import { allowsAutoAdjustment, applyPodSecurityAsPatch, podSecurityFor } from './pod-security.js';
import { asString, getPath, type KubeAccess, patchAt, statusOf } from './kube-access.js';
import {
  nodeImageOf,
  podsByOrdinal,
  REVISION_LABEL,
  replicasOf,
  setPodReady,
  templateOf,
  updateRevisionOf,
  writeStatefulSetStatus,
} from './statefulset.js';

/** States from which the real operator starts an upgrade (redis-facts.md §5). */
const UPGRADE_FROM_STATES = ['Running', 'InvalidUpgrade'];

export interface ClusterUpgradeOptions {
  kube: KubeAccess;
  rest: RestModel;
  scenario: Scenario;
  fields: SimDialectFields;
  /** Kubernetes Events: only the one the docs show (InvalidUpgrade's warning). */
  events: EventRecorder;
  log: OperatorLog;
  timers: Timers;
  /** Asks for another reconcile pass (after a timed step). */
  kick: () => void;
  /** Creates node pods; holds the roll while admission (OpenShift SCCs) refuses them. */
  admission: PodAdmissionGate;
  /** Called when a cluster upgrade has finished: the operator resumes managing databases. */
  onUpgradeCompleted: (versionTag: string) => void;
  /** The services rigger's Deployment, whose image follows the cluster resource. */
  rigger: ServicesRigger;
  /** The operator versions whose release images the registry holds (image-pull.ts releaseImageTags). */
  releases: readonly string[];
}

export interface ClusterView {
  /** `status.state` of the cluster resource, undefined when there is none. */
  state: string | undefined;
  /** The image tag the cluster's pods run (or are being upgraded to). */
  versionTag: string | undefined;
  upgradePolicy: string | undefined;
}

/** The Redis Software version the management API reports for an image tag (`8.0.18-36.14` -> `8.0.18-36`). */
export function serverVersionOf(versionTag: string): string {
  return /^\d+\.\d+\.\d+-\d+/.exec(versionTag)?.[0] ?? versionTag;
}

/**
 * The cluster resource's upgrade: when it starts, when it is refused (InvalidUpgrade, state
 * not Running), when it freezes, and the rolling replacement of the node pods.
 */
export class ClusterUpgrade {
  readonly #o: ClusterUpgradeOptions;
  /** REC generation whose image change was answered (started or refused): answer once. */
  #answeredGeneration: number | undefined;
  /** REC generation for which "will not start" was reported. */
  #warnedGeneration: number | undefined;
  /** A new operator is ready and the cluster may have to follow it (autoUpgrade). */
  #autoUpgradePending = false;
  #podStepRunning = false;
  /** The blockers last reported, so a frozen upgrade warns again only when they change. */
  #frozenKey: string | undefined;
  /**
   * The pod template revision with an image the registry does not have: the roll waits at its
   * pod until the template changes.
   */
  #unpullable: string | undefined;

  constructor(options: ClusterUpgradeOptions) {
    this.#o = options;
  }

  /** A new operator version became ready: with autoUpgrade, the cluster follows it. */
  newOperatorReady(): void {
    this.#autoUpgradePending = true;
  }

  reconcile(operatorVersion: string | undefined): ClusterView {
    const { kube, scenario, fields } = this.#o;
    const rec = kube.get(CRD_API_VERSION, CLUSTER_KIND, scenario.namespace, scenario.cluster.name);
    const statefulSet = kube.get('apps/v1', 'StatefulSet', scenario.namespace, scenario.cluster.name);
    if (!rec || !statefulSet) return { state: undefined, versionTag: undefined, upgradePolicy: undefined };
    const state = asString(statusOf(rec).state);
    const runningTag = imageTag(nodeImageOf(templateOf(statefulSet)));
    const view = (): ClusterView => ({
      state: asString(
        statusOf(kube.peek(CRD_API_VERSION, CLUSTER_KIND, scenario.namespace, scenario.cluster.name)).state,
      ),
      versionTag: runningTag,
      upgradePolicy: asString(getPath(rec, fields.upgradePolicyPath)),
    });

    if (this.#autoUpgradePending && this.#autoUpgrade(rec, state, runningTag, operatorVersion)) return view();

    // A pinned rigger image follows its spec at once (a Deployment of its own, rolled by its controller).
    this.#o.rigger.sync(rec);
    const specTag = this.#desiredTag(rec, runningTag, operatorVersion);
    const generation = rec.metadata.generation ?? 0;
    // The pod template follows the spec: a new tag, and also the same tag at another digest or
    // repository, or a new pinned bootstrapper image. Any change of a StatefulSet's pod template
    // rolls its pods ("a Deployment's rollout is triggered if and only if the Deployment's Pod
    // template is changed", kubernetes.io Deployments; StatefulSets update their Pods when
    // .spec.template changes, kubernetes.io "StatefulSet" Rolling Updates).
    const changed =
      specTag !== undefined &&
      runningTag !== undefined &&
      (specTag !== runningTag || this.#templateDiffers(rec, statefulSet, specTag));
    if (state === 'Upgrade') {
      if (changed && specTag === runningTag && this.#answeredGeneration !== generation) {
        // The same version at another digest (or bootstrapper) while rolling: not a new version,
        // so nothing refuses it; the template takes it and the roll goes on with it (how a
        // wrong digest is fixed mid-roll). Ours: the operator's handling is not on record.
        this.#start(rec, statefulSet, specTag, operatorVersion);
        return view();
      }
      if (changed && specTag !== runningTag && this.#warnedGeneration !== generation) {
        this.#warnedGeneration = generation;
        this.#willNotStart(rec, state);
      }
      this.#advance(rec, statefulSet, operatorVersion);
      return view();
    }
    if (state === 'InvalidUpgrade' && !changed && specTag === runningTag && !this.#invalidSpec(rec)) {
      // The spec asks for what runs again (reverted or fixed): nothing left to upgrade.
      kube.patchStatus(rec, { state: 'Running', specStatus: 'Valid' });
      return view();
    }
    if (changed && this.#answeredGeneration !== generation) {
      if (state !== undefined && UPGRADE_FROM_STATES.includes(state)) {
        this.#start(rec, statefulSet, specTag, operatorVersion);
      } else if (this.#warnedGeneration !== generation) {
        this.#warnedGeneration = generation;
        this.#willNotStart(rec, state ?? '');
      }
    }
    return view();
  }

  /**
   * The tag the cluster should run: the spec's, or, when auto-upgrade rolled it without writing
   * the spec (scenario `cluster.autoUpgradeWritesSpec: false`; nothing documents that the real
   * operator writes versionTag, redis-facts.md §12), the operator's default when that is newer.
   */
  #desiredTag(
    rec: KubeObject,
    runningTag: string | undefined,
    operatorVersion: string | undefined,
  ): string | undefined {
    const { fields, scenario } = this.#o;
    const specTag = asString(getPath(rec, [...fields.imageSpecPath, 'versionTag']));
    if (scenario.cluster.autoUpgradeWritesSpec || getPath(rec, fields.autoUpgradePath) !== true)
      return specTag;
    const builtIn = operatorVersion
      ? worldOf(scenario).defaultClusterTag(operatorVersion, scenario.platform)
      : undefined;
    if (builtIn && runningTag === builtIn && (!specTag || isNewerTag(builtIn, specTag))) return builtIn;
    return specTag;
  }

  /** The node image the spec asks for at `tag`: its repository and tag, and its digest when it is that tag's. */
  #nodeImageFor(rec: KubeObject, tag: string): string {
    const { fields, scenario } = this.#o;
    const repository =
      asString(getPath(rec, [...fields.imageSpecPath, 'repository'])) ?? scenario.cluster.repository;
    // The spec's digest belongs to its versionTag: an auto-upgrade to the operator's default
    // (spec not written) has none, and auto-upgrade with a digest never starts (#invalidSpec).
    const specTag = asString(getPath(rec, [...fields.imageSpecPath, 'versionTag']));
    const digest =
      specTag === tag ? asString(getPath(rec, [...fields.imageSpecPath, 'digestHash'])) : undefined;
    return nodeImageReference(repository, tag, digest);
  }

  /** The bootstrapper image: a pinned bootstrapperImageSpec's, else the operator's own image at its version. */
  #bootstrapperImageFor(rec: KubeObject, operatorVersion: string | undefined): string | undefined {
    const spec = imageSpecAt(rec, OTHER_IMAGE_SPECS.bootstrapper.field);
    if (!pinsImage(spec) && operatorVersion === undefined) return undefined;
    return componentImage(
      spec,
      componentRepository('bootstrapper', this.#o.scenario.platform),
      operatorVersion ?? '',
    );
  }

  /** The pod template's images differ from those the spec asks for at `tag` (same tag: digest, repository, bootstrapper). */
  #templateDiffers(rec: KubeObject, statefulSet: KubeObject, tag: string): boolean {
    const template = templateOf(statefulSet);
    if (nodeImageOf(template) !== this.#nodeImageFor(rec, tag)) return true;
    const bootstrapper = imageSpecAt(rec, OTHER_IMAGE_SPECS.bootstrapper.field);
    return (
      pinsImage(bootstrapper) &&
      imageOfContainer(template, BOOTSTRAPPER_CONTAINER) !==
        componentImage(bootstrapper, componentRepository('bootstrapper', this.#o.scenario.platform), '')
    );
  }

  /** The real operator's words (RedisLabs/redis-enterprise-k8s-docs issue #89), in its log. */
  #willNotStart(rec: KubeObject, state: string): void {
    this.#o.log.error(
      CLUSTER_LOGGER,
      rec,
      'Upgrade Error',
      `Upgrade Applied but will not start since REC Status.State is '${state}' and not one of: 'Running', 'InvalidUpgrade'`,
    );
  }

  // ---- starting ----------------------------------------------------------------------------

  /** Returns true when it changed the cluster resource (the pass ends; the change comes back). */
  #autoUpgrade(
    rec: KubeObject,
    state: string | undefined,
    runningTag: string | undefined,
    operatorVersion: string | undefined,
  ): boolean {
    const { fields, kube, scenario, log } = this.#o;
    if (getPath(rec, fields.autoUpgradePath) !== true || !operatorVersion) {
      this.#autoUpgradePending = false;
      return false;
    }
    if (this.#invalidSpec(rec)) {
      // Stays pending: once the spec is fixed the upgrade goes ahead.
      if (this.#answeredGeneration !== rec.metadata.generation) this.#markInvalidSpec(rec);
      return true;
    }
    this.#autoUpgradePending = false;
    if (state !== undefined && !UPGRADE_FROM_STATES.includes(state)) return false;
    const target = worldOf(scenario).defaultClusterTag(operatorVersion, scenario.platform);
    if (!target || !runningTag || !isNewerTag(target, runningTag)) return false;
    log.info(CLUSTER_LOGGER, rec, 'Auto upgrade: updating the Redis Enterprise image', {
      from: runningTag,
      to: target,
    });
    if (!scenario.cluster.autoUpgradeWritesSpec) {
      // The spec keeps its old versionTag (or none): the operator rolls to its own default.
      const statefulSet = kube.get('apps/v1', 'StatefulSet', scenario.namespace, scenario.cluster.name);
      if (statefulSet) this.#start(rec, statefulSet, target, operatorVersion);
      return true;
    }
    kube.patch(rec, patchAt([...fields.imageSpecPath, 'versionTag'], target));
    return true;
  }

  /**
   * autoUpgrade together with a digest hash in ANY of the REC's image specs makes the spec
   * invalid (RED-188354; DOCS `kubernetes/upgrade/upgrade-redis-cluster.md`, redis-facts.md §12).
   */
  #invalidSpec(rec: KubeObject): boolean {
    return this.#digestPinnedSpec(rec) !== undefined;
  }

  /** The first image spec (its path below spec) holding a digestHash while autoUpgrade is on. */
  #digestPinnedSpec(rec: KubeObject): string | undefined {
    const { fields } = this.#o;
    if (getPath(rec, fields.autoUpgradePath) !== true) return undefined;
    const paths = [
      fields.imageSpecPath.slice(1),
      ...Object.values(OTHER_IMAGE_SPECS).map((spec) => spec.field),
    ];
    const pinned = paths.find((path) => Boolean(getPath(rec, ['spec', ...path, 'digestHash'])));
    return pinned ? [...pinned, 'digestHash'].join('.') : undefined;
  }

  #markInvalidSpec(rec: KubeObject): void {
    const { fields, kube, events, log } = this.#o;
    this.#answeredGeneration = rec.metadata.generation;
    const auto = fields.autoUpgradePath.slice(1).join('.');
    const digest = this.#digestPinnedSpec(rec) ?? [...fields.imageSpecPath.slice(1), 'digestHash'].join('.');
    kube.patchStatus(rec, { state: 'InvalidUpgrade', specStatus: 'Invalid' });
    const message =
      `Invalid upgrade spec: ${auto} is true and ${digest} is set; automatic upgrades cannot use a digest. ` +
      `Remove ${digest} or set ${auto} to false`;
    // The docs: the state becomes InvalidUpgrade "and a warning event is raised" (RED-188354,
    // redis/docs PR #3473). Its reason is not documented; the state's name stands in for it.
    events.warning(rec, 'InvalidUpgrade', message);
    log.error(CLUSTER_LOGGER, rec, 'Upgrade Error', message);
  }

  #start(
    rec: KubeObject,
    statefulSet: KubeObject,
    target: string,
    operatorVersion: string | undefined,
  ): void {
    const { kube, log, scenario } = this.#o;
    this.#answeredGeneration = rec.metadata.generation;
    const from = imageTag(nodeImageOf(templateOf(statefulSet))) ?? '';
    const license = asString(getPath(statusOf(rec), ['licenseStatus', 'licenseState']));
    if (license !== undefined && license !== 'Valid') {
      kube.patchStatus(rec, { state: 'InvalidUpgrade' });
      log.error(
        CLUSTER_LOGGER,
        rec,
        'Upgrade Error',
        `Upgrade to ${target} failed: the cluster license is ${license}. Install a valid license, then apply the upgrade again`,
      );
      return;
    }
    if (this.#invalidSpec(rec)) {
      this.#markInvalidSpec(rec);
      return;
    }
    kube.patchStatus(rec, { state: 'Upgrade', specStatus: 'Valid' });
    log.info(CLUSTER_LOGGER, rec, 'Upgrading Redis Enterprise cluster', { from, to: target });
    // A pinned digest goes into the reference next to the tag; the kubelet pulls by the digest
    // (src/sim/world/registry.ts), so a digest of another image runs that image or fails to pull.
    const nodeImage = this.#nodeImageFor(rec, target);
    const bootstrapperImage = this.#bootstrapperImageFor(rec, operatorVersion);
    const template = clone(templateOf(statefulSet)) as { spec?: { containers?: Record<string, unknown>[] } };
    for (const container of template.spec?.containers ?? []) {
      if (container.name === NODE_CONTAINER) container.image = nodeImage;
      if (container.name === BOOTSTRAPPER_CONTAINER && bootstrapperImage) container.image = bootstrapperImage;
    }
    // The services rigger moves with the cluster to the operator's release (or its pinned image).
    this.#o.rigger.sync(rec, operatorVersion);
    if (scenario.platform === 'openshift' && operatorVersion) {
      applyPodSecurityAsPatch(template, podSecurityFor(operatorVersion, allowsAutoAdjustment(rec)));
    }
    const updated = kube.patch(statefulSet, { spec: { template } });
    writeStatefulSetStatus(kube, updated);
    this.#frozenKey = undefined;
    this.#o.kick();
  }

  // ---- rolling -----------------------------------------------------------------------------

  /** One step of the rolling upgrade, or the freeze, or the end. */
  #advance(rec: KubeObject, statefulSet: KubeObject, operatorVersion: string | undefined): void {
    if (this.#podStepRunning || this.#o.admission.blocked) return;
    const { kube, rest, log } = this.#o;
    const target = imageTag(nodeImageOf(templateOf(statefulSet))) ?? '';
    if (this.#unpullable === updateRevisionOf(statefulSet)) return;
    this.#unpullable = undefined;
    const blockers = upgradeBlockers(rest, target, operatorVersion, userDefinedModuleNames(rec));
    if (blockers.length > 0) {
      const key = blockers.map((b) => b.message).join('\n');
      if (key !== this.#frozenKey) {
        this.#frozenKey = key;
        // No wording of these lines is on record; the docs only say the operator freezes the
        // upgrade and to "check the operator logs for the source of the error".
        for (const blocker of blockers) log.error(CLUSTER_LOGGER, rec, 'Upgrade Error', blocker.message);
      }
      return;
    }
    if (this.#frozenKey !== undefined) {
      this.#frozenKey = undefined;
      log.info(CLUSTER_LOGGER, rec, 'Upgrade prerequisites met: continuing the rolling upgrade', {
        to: target,
      });
    }
    const revision = updateRevisionOf(statefulSet);
    const pods = podsByOrdinal(kube, statefulSet);
    // Reverse ordinal order, one pod at a time, as the StatefulSet controller rolls.
    for (let ordinal = replicasOf(statefulSet) - 1; ordinal >= 0; ordinal--) {
      const pod = pods.get(ordinal);
      if (!pod || pod.metadata.labels?.[REVISION_LABEL] !== revision || !isPodReady(pod)) {
        this.#replacePod(statefulSet.metadata.name ?? '', ordinal, target, operatorVersion);
        return;
      }
    }
    this.#complete(rec, statefulSet, target);
  }

  #replacePod(
    statefulSetName: string,
    ordinal: number,
    target: string,
    operatorVersion: string | undefined,
  ): void {
    const { kube, scenario, timers } = this.#o;
    this.#podStepRunning = true;
    const read = () => kube.get('apps/v1', 'StatefulSet', scenario.namespace, statefulSetName);
    const finish = () => {
      this.#podStepRunning = false;
      this.#o.kick();
    };
    const guarded = (step: () => void) => () => {
      try {
        step();
      } catch (error) {
        finish();
        throw error;
      }
    };
    // 1. The old pod goes not-ready (it is being terminated).
    guarded(() => {
      const statefulSet = read();
      const pod = statefulSet && podsByOrdinal(kube, statefulSet).get(ordinal);
      if (statefulSet && pod && pod.metadata.labels?.[REVISION_LABEL] !== updateRevisionOf(statefulSet)) {
        setPodReady(kube, pod, false, ordinal);
        writeStatefulSetStatus(kube, statefulSet);
      }
      // Its Redis Software node stops with it: the shards there are unreachable (rest/shards.ts).
      if (statefulSet) this.#o.rest.nodeStopped(ordinal + 1);
    })();
    // 2. On a later tick it is gone and its successor exists with the new template, not ready.
    timers.after(
      0,
      guarded(() => {
        const statefulSet = read();
        if (!statefulSet) return finish();
        const pod = podsByOrdinal(kube, statefulSet).get(ordinal);
        const stale = pod && pod.metadata.labels?.[REVISION_LABEL] !== updateRevisionOf(statefulSet);
        if (pod && stale) kube.delete(pod);
        if ((!pod || stale) && !this.#o.admission.create(statefulSet, ordinal, false)) {
          // Refused (FailedCreate): the StatefulSet stays short until admission changes its answer.
          writeStatefulSetStatus(kube, statefulSet);
          return finish();
        }
        writeStatefulSetStatus(kube, statefulSet);
        // 3. After podRestart seconds the new pod is ready and its node runs the new version.
        timers.after(
          scenario.timing.podRestart,
          guarded(() => {
            const current = read();
            const fresh = current && podsByOrdinal(kube, current).get(ordinal);
            const image = current ? nodeImageOf(templateOf(current)) : undefined;
            const pull = image ? pullNodeImage(image, worldOf(scenario)) : undefined;
            const failed = current ? this.#failedPull(templateOf(current)) : undefined;
            if (current && fresh && failed) {
              // The registry has no such tag or digest (of the node or the bootstrapper image):
              // the new pod never starts (no kick: nothing to retry).
              kube.patchStatus(fresh, imagePullBackOffStatus(fresh, failed));
              writeStatefulSetStatus(kube, current);
              this.#unpullable = updateRevisionOf(current);
              this.#podStepRunning = false;
              return;
            }
            if (current && fresh) {
              setPodReady(kube, fresh, true, ordinal);
              const node = this.#o.rest.nodes[ordinal];
              // The node runs the image pulled: the digest's when one is pinned.
              if (node) node.software_version = serverVersionOf(pull?.pulled ? pull.tag : target);
              this.#o.rest.nodeStarted(ordinal + 1);
              writeStatefulSetStatus(kube, current);
            }
            this.#podStepRunning = false;
            // Continue at once (not on a later pass) so the cluster is Running the moment the
            // last pod is ready: `rollout status` and `get rec` must agree.
            const rec = kube.get(CRD_API_VERSION, CLUSTER_KIND, scenario.namespace, scenario.cluster.name);
            const latest = read();
            if (rec && latest && statusOf(rec).state === 'Upgrade')
              this.#advance(rec, latest, operatorVersion);
            this.#o.kick();
          }),
        );
      }),
    );
  }

  /** The first image of the node pod template the registry does not hold: the node's, then the bootstrapper's. */
  #failedPull(template: unknown): string | undefined {
    for (const container of containersOf(template)) {
      const image = typeof container.image === 'string' ? container.image : undefined;
      if (image === undefined) continue;
      let pull: ImagePull | undefined;
      if (container.name === NODE_CONTAINER) pull = pullNodeImage(image, worldOf(this.#o.scenario));
      else if (container.name === BOOTSTRAPPER_CONTAINER) pull = pullReleaseImage(image, this.#o.releases);
      if (pull && !pull.pulled) return image;
    }
    return undefined;
  }

  #complete(rec: KubeObject, statefulSet: KubeObject, target: string): void {
    const { kube, rest, log } = this.#o;
    writeStatefulSetStatus(kube, statefulSet);
    // What the nodes run: the image a pinned digest names, which may not be the spec's tag.
    const image = nodeImageOf(templateOf(statefulSet));
    const pull = image ? pullNodeImage(image, worldOf(this.#o.scenario)) : undefined;
    const running = pull?.pulled ? pull.tag : target;
    rest.setServerVersion(serverVersionOf(running));
    kube.patchStatus(rec, {
      state: 'Running',
      specStatus: 'Valid',
      bundledDatabaseVersions: bundledDatabaseVersionsStatus(running, worldOf(this.#o.scenario)),
    });
    log.info(CLUSTER_LOGGER, rec, 'Upgrade completed', { version: target });
    this.#o.onUpgradeCompleted(target);
  }
}

function imageOfContainer(template: unknown, name: string): string | undefined {
  const image = containersOf(template).find((c) => c.name === name)?.image;
  return typeof image === 'string' ? image : undefined;
}

function isNewerTag(candidate: string, current: string): boolean {
  return isNewerClusterTag(candidate, current);
}

/** The names listed in the cluster resource's spec.userDefinedModules. */
function userDefinedModuleNames(rec: KubeObject): string[] {
  const list = (rec as { spec?: { userDefinedModules?: unknown } }).spec?.userDefinedModules;
  return (Array.isArray(list) ? list : []).flatMap((entry: unknown) => {
    const name = (entry as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? [name] : [];
  });
}
