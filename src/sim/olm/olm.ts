/**
 * Operator Lifecycle Manager, as far as an OperatorHub install of the Redis Enterprise operator
 * meets it (SIMULATOR.md `operator.installedBy: olm`; redis-facts.md §12; DOCS
 * `kubernetes/upgrade/upgrade-olm.md`):
 *
 * - seeding: the three OLM CRDs, the Subscription in the scenario's channel, the installed CSV
 *   (Succeeded) owning the operator Deployment (OLM's labels and owner reference), and the
 *   cluster's image specs pinned by digest (`digestHash` "is only supported for OLM
 *   deployments", DOCS `kubernetes/reference/redis_enterprise_cluster_api.md`);
 * - seeding also makes the admission webhook from the CSV's webhookdefinitions, as OLM does
 *   (generated name, OLM's owner labels, the Service `<deployment>-service`), signed by OLM's
 *   own CA unless `operator.olm.webhookCa: operator` (webhook-cert.ts); OLM moves it to each
 *   new CSV;
 * - on OpenShift each CSV's permissions entry for service account `rec` becomes a Role and
 *   RoleBinding with a generated name (permissions.ts), removed with its CSV;
 * - `operator.olm.installFailure`: a new CSV goes Failed first, retried or for good;
 * - the catalog operator: the newest CSV of the subscribed channel that skips the installed one
 *   (catalog.ts `replacementOf`; OLM Classic picks "the successor closest to the channel head",
 *   Red Hat OpenShift docs "Extensions > Update paths") gets an InstallPlan; Automatic approval
 *   approves it at once, Manual waits for `spec.approved: true` (operator-framework/api
 *   `installplan_types.go`, `subscription_types.go`). No CSV skips the installed one: the
 *   Subscription stays AtLatestKnown with no InstallPlan;
 * - the OLM operator: an approved plan installs the new CSV, which takes over the Deployment
 *   and rolls it to its image; once the Deployment is ready the new CSV is Succeeded and the old
 *   one (Replacing meanwhile) is deleted. A change of the Deployment's pod template by anyone
 *   else (a bundle's server-side apply, a helm upgrade, kubectl edit) is put back to the CSV's
 *   spec after a short delay, as OLM's install strategy does (redis-facts.md §12: "anything
 *   else applied over it is reverted").
 *
 * Simplified: no downgrades; no OperatorGroup or CatalogSource objects; the PackageManifest is a CRD object
 * (objects.ts), not the package server's aggregated API; the plan's other
 * steps (CRDs, RBAC) are not listed in its status.
 */

import { OPERATOR_NAME } from '../artifacts/operator-objects.js';
import { type OperatorClock, systemClock, Timers } from '../operator/clock.js';
import { deploymentReady } from '../operator/deployment.js';
import { KubeAccess, getPath, setPath, specOf, statusOf } from '../operator/kube-access.js';
import type { ChangeEvent, KubeStore } from '../kube/store.js';
import { nowTimestamp } from '../kube/store.js';
import { isRecord, type KubeObject } from '../kube/types.js';
import type { Scenario } from '../scenario.js';
import { simDialectFields } from '../world/dialect.js';
import { compareNumbers, operatorNumbers } from '../world/versions.js';
import { worldOf } from '../world/world.js';
import type { OlmWebhookCert } from './webhook-cert.js';
import { csvPodPermissions } from './permissions.js';
import { type OlmCatalog, type OlmSkips, scenarioCatalog } from './catalog.js';
import {
  CSV_KIND,
  INSTALL_PLAN_KIND,
  OLM_API_VERSION,
  olmCrds,
  packageManifestCrd,
  SUBSCRIPTION_KIND,
} from './crds.js';
import {
  clusterServiceVersion,
  CSV_STATUS,
  csvDeploymentSpec,
  imageDigest,
  installPlan,
  OLM_FIELD_MANAGER,
  olmWebhookConfiguration,
  OWNER_KIND_LABEL,
  OWNER_NAMESPACE_LABEL,
  WEBHOOK_DESCRIPTION_LABEL,
  OWNER_LABEL,
  ownerLabels,
  packageManifest,
  ownerReference,
  SPEC_HASH_LABEL,
  specHash,
  subscription,
} from './objects.js';

/** The resolved `operator.olm` of a scenario. */
export interface ScenarioOlm {
  channel: string;
  approval: 'Manual' | 'Automatic';
  startingCSV: string;
  /** The CSV's Deployment names the operator image by digest only. */
  operatorImageByDigest: boolean;
  /** Which newer CSVs skip the installed one (catalog.ts). */
  skips: OlmSkips;
  /** Who signs OLM's webhook: OLM's own CA (default) or the operator's admission-tls. */
  webhookCa: 'olm' | 'operator';
  /** How the install of a new CSV fails first (SIMULATOR scenario key operator.olm.installFailure). */
  installFailure: 'none' | 'InstallCheckFailed' | 'InvalidStrategy';
}

function olmOf(scenario: Scenario): ScenarioOlm {
  return (
    scenario.operator.olm ?? {
      channel: 'production',
      approval: 'Manual',
      startingCSV: `redis-enterprise-operator.v${scenario.operator.version}`,
      operatorImageByDigest: false,
      skips: 'catalog',
      webhookCa: 'olm',
      installFailure: 'none',
    }
  );
}

/** The catalog the scenario's OperatorHub shows. */
export function catalogOf(scenario: Scenario): OlmCatalog {
  return scenarioCatalog(
    olmOf(scenario),
    scenario.operator.version,
    worldOf(scenario),
    scenario.openshiftVersion,
  );
}

function write(kube: KubeAccess, object: KubeObject): KubeObject {
  const rt = kube.store.resolve(object.apiVersion ?? '', object.kind ?? '');
  return kube.store.update(rt, object, { fieldManager: OLM_FIELD_MANAGER });
}

function writeStatus(kube: KubeAccess, object: KubeObject, status: Record<string, unknown>): KubeObject {
  return kube.patchStatus(object, status, OLM_FIELD_MANAGER);
}

/** The operator Deployment taken over by `csv`: OLM's labels, owner reference and spec hash. */
function adopt(
  kube: KubeAccess,
  deployment: KubeObject,
  csv: KubeObject,
  spec?: Record<string, unknown>,
): KubeObject {
  const next = structuredClone(deployment);
  if (spec) next.spec = structuredClone(spec);
  const namespace = deployment.metadata.namespace ?? '';
  next.metadata.labels = {
    ...next.metadata.labels,
    ...ownerLabels(csv.metadata.name ?? '', namespace),
    [SPEC_HASH_LABEL]: specHash((spec ?? specOf(deployment)).template),
  };
  next.metadata.ownerReferences = [
    ...(next.metadata.ownerReferences ?? []).filter((ref) => ref.kind !== CSV_KIND),
    ownerReference(csv),
  ];
  const stored = write(kube, next);
  // The hash of the template as stored (the API server defaults pod templates).
  const hash = specHash(specOf(stored).template);
  if (stored.metadata.labels?.[SPEC_HASH_LABEL] === hash) return stored;
  return kube.patch(stored, { metadata: { labels: { [SPEC_HASH_LABEL]: hash } } });
}

/**
 * Seeds an OperatorHub install over the bundle objects `seedCluster` created: CRDs,
 * Subscription (AtLatestKnown or UpgradePending; the catalog operator's first pass fills in the
 * InstallPlan), the CSV owning the Deployment, and digests in the REC's image specs.
 */
export function seedOlmInstall(
  kube: KubeAccess,
  scenario: Scenario,
  operatorCaBundle: string,
  olmCert?: OlmWebhookCert,
): void {
  const { namespace, operator } = scenario;
  const olm = olmOf(scenario);
  const catalog = catalogOf(scenario);
  for (const crd of olmCrds()) kube.ensure(crd as KubeObject);
  kube.ensure(packageManifestCrd() as KubeObject);
  kube.ensure(packageManifest(namespace, catalog, scenario.platform));
  const csv = kube.ensure(
    clusterServiceVersion({
      version: operator.version,
      namespace,
      dialect: scenario.dialect,
      platform: scenario.platform,
      catalog,
      operatorImageByDigest: olm.operatorImageByDigest,
    }),
  );
  writeStatus(kube, csv, CSV_STATUS.succeeded());
  installPodPermissions(kube, scenario, csv, operator.version);
  const deployment = kube.get('apps/v1', 'Deployment', namespace, OPERATOR_NAME);
  if (deployment && !deployment.metadata.labels?.[OWNER_LABEL]) {
    // By digest, the CSV's Deployment replaces the bundle's (tagged) one the seed created.
    const spec = olm.operatorImageByDigest
      ? csvDeploymentSpec(operator.version, scenario.dialect, scenario.platform, true)
      : undefined;
    adopt(kube, deployment, csv, spec);
  }
  const sub = kube.ensure(
    subscription({ namespace, channel: olm.channel, approval: olm.approval, startingCSV: olm.startingCSV }),
  );
  if (!statusOf(sub).installedCSV) {
    writeStatus(kube, sub, {
      installedCSV: csv.metadata.name,
      currentCSV: csv.metadata.name,
      state: 'AtLatestKnown',
      lastUpdated: nowTimestamp(),
    });
  }
  pinDigests(kube, scenario);
  if (!scenario.admission.enabled) return;
  // operator.olm.webhookCa: olm signs with its own CA (webhook-cert.ts); operator: admission-tls.
  if (olmCert) kube.ensure(olmCert.secret);
  seedOlmWebhook(kube, csv.metadata.name ?? '', namespace, olmCert?.caBundle ?? operatorCaBundle);
}

/** OLM's Role and RoleBinding from the CSV's permissions for `rec` (OpenShift: they grant SCCs). */
function installPodPermissions(kube: KubeAccess, scenario: Scenario, csv: KubeObject, version: string): void {
  if (scenario.platform !== 'openshift') return;
  for (const object of csvPodPermissions(csv, version, scenario.namespace)) kube.ensure(object);
}

/** What OLM made for a CSV: its Roles and RoleBindings, gone with it (owner references). */
function removeCsvPermissions(kube: KubeAccess, csv: string, namespace: string): void {
  for (const kind of ['RoleBinding', 'Role']) {
    for (const object of kube.list('rbac.authorization.k8s.io/v1', kind, namespace)) {
      if (object.metadata.labels?.[OWNER_LABEL] === csv) kube.delete(object);
    }
  }
}

/** OLM's webhook from the CSV's webhookdefinitions, and the Service it calls. */
function seedOlmWebhook(kube: KubeAccess, csv: string, namespace: string, caBundle: string): void {
  if (olmWebhooks(kube, namespace).length === 0)
    kube.create(olmWebhookConfiguration(csv, namespace, caBundle));
  kube.ensure({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `${OPERATOR_NAME}-service`, namespace, labels: ownerLabels(csv, namespace) },
    spec: {
      selector: { name: OPERATOR_NAME },
      ports: [{ name: '8443', port: 443, targetPort: 8443, protocol: 'TCP' }],
    },
  });
}

/** The webhook configurations OLM made for the CSVs of `namespace`. */
function olmWebhooks(kube: KubeAccess, namespace: string): KubeObject[] {
  return kube
    .list('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration')
    .filter(
      (object) =>
        object.metadata.labels?.[WEBHOOK_DESCRIPTION_LABEL] !== undefined &&
        object.metadata.labels[OWNER_NAMESPACE_LABEL] === namespace &&
        object.metadata.labels[OWNER_KIND_LABEL] === CSV_KIND,
    );
}

/**
 * The node image digest an OLM install's REC pins (the CSV's relatedImages, by the simulated
 * registry's digest of `repository:versionTag`); the seed's StatefulSet template carries it too,
 * as the operator writes the image with its digest (src/sim/operator/cluster-upgrade.ts).
 */
export function olmNodeDigest(scenario: Scenario): string | undefined {
  if (scenario.operator.installedBy !== 'olm') return undefined;
  return (
    scenario.cluster.digestHash ??
    imageDigest(`${scenario.cluster.repository}:${scenario.cluster.versionTag}`)
  );
}

/** An OLM install's REC names its images by digest (the CSV's relatedImages). */
function pinDigests(kube: KubeAccess, scenario: Scenario): void {
  const rec = kube.get(
    'app.redislabs.com/v1',
    'RedisEnterpriseCluster',
    scenario.namespace,
    scenario.cluster.name,
  );
  if (!rec) return;
  const path = simDialectFields(scenario.dialect).imageSpecPath;
  const imageSpec = getPath(rec, path);
  if (!isRecord(imageSpec) || imageSpec.digestHash) return;
  const next = structuredClone(rec);
  setPath(next as Record<string, unknown>, path, {
    ...imageSpec,
    digestHash: imageDigest(`${String(imageSpec.repository)}:${String(imageSpec.versionTag)}`),
  });
  write(kube, next);
}

export interface OlmOptions {
  kube: KubeAccess;
  scenario: Scenario;
  timers: Timers;
  /** Seconds before OLM puts back a Deployment someone else changed. */
  revertSeconds: number;
}

/** OLM's catalog and OLM operators for the scenario's namespace; `stop()` detaches them. */
export class OlmController {
  readonly #kube: KubeAccess;
  readonly #scenario: Scenario;
  readonly #timers: Timers;
  readonly #revertSeconds: number;
  readonly #store: KubeStore;
  readonly #catalog: OlmCatalog;
  /** The channel the catalog operator last resolved the Subscription in. */
  #resolvedChannel: string | undefined;
  readonly #onChange: (event: ChangeEvent) => void;
  #scheduled = false;
  /** The Deployment spec hash a revert is already scheduled for. */
  #revertPending: string | undefined;

  constructor(options: OlmOptions) {
    this.#kube = options.kube;
    this.#scenario = options.scenario;
    this.#timers = options.timers;
    this.#revertSeconds = options.revertSeconds;
    this.#store = options.kube.store;
    this.#catalog = catalogOf(options.scenario);
    this.#onChange = (event) => {
      const object = event.object;
      if (object.metadata.namespace !== this.#scenario.namespace) return;
      if (object.kind === 'Deployment' && object.metadata.name !== OPERATOR_NAME) return;
      if (
        object.kind === 'Deployment' ||
        object.kind === SUBSCRIPTION_KIND ||
        object.kind === INSTALL_PLAN_KIND ||
        object.kind === CSV_KIND
      )
        this.kick();
    };
  }

  start(): void {
    this.#store.on('change', this.#onChange);
    this.kick();
  }

  stop(): void {
    this.#store.off('change', this.#onChange);
  }

  kick(): void {
    if (this.#scheduled || this.#timers.stopped) return;
    this.#scheduled = true;
    this.#timers.after(0, () => {
      this.#scheduled = false;
      this.#pass();
    });
  }

  #get(kind: string, name: string): KubeObject | undefined {
    return this.#kube.get(OLM_API_VERSION, kind, this.#scenario.namespace, name);
  }

  #list(kind: string): KubeObject[] {
    return this.#kube.list(OLM_API_VERSION, kind, this.#scenario.namespace);
  }

  #pass(): void {
    const sub = this.#list(SUBSCRIPTION_KIND)[0];
    if (!sub) return;
    this.#resolve(sub);
    for (const plan of this.#list(INSTALL_PLAN_KIND)) this.#progress(plan);
    this.#finishInstalls();
    this.#guardDeployment();
  }

  /**
   * The catalog operator: the newest CSV of the channel that skips the installed one gets a
   * plan; none: AtLatestKnown (status rewritten after a channel change, so a reader sees that
   * the new channel was resolved).
   */
  #resolve(sub: KubeObject): void {
    const spec = specOf(sub);
    const status = statusOf(sub);
    const channel = String(spec.channel ?? '');
    const installed = typeof status.installedCSV === 'string' ? status.installedCSV : undefined;
    const channelChanged = this.#resolvedChannel !== channel;
    this.#resolvedChannel = channel;
    if (!this.#catalog.channelHead(channel)) {
      this.#subscriptionStatus(sub, {
        state: 'None',
        conditions: [
          {
            type: 'ResolutionFailed',
            status: 'True',
            reason: 'ConstraintsNotSatisfiable',
            message: `no operators found in channel ${channel} of package ${String(spec.name)} in the catalog referenced by subscription ${sub.metadata.name}`,
          },
        ],
      });
      return;
    }
    const next = installed ? this.#catalog.replacementOf(installed, channel) : undefined;
    if (!next || !this.#isNewer(next, installed)) {
      const settled = status.state === 'AtLatestKnown' || this.#planFor(String(status.currentCSV ?? ''));
      if (!settled || channelChanged)
        this.#subscriptionStatus(sub, { state: 'AtLatestKnown', currentCSV: installed, conditions: [] });
      return;
    }
    const existing = this.#planFor(next);
    if (existing) return;
    const plans = this.#list(INSTALL_PLAN_KIND);
    const plan = this.#kube.create(
      installPlan({
        namespace: this.#scenario.namespace,
        csv: next,
        approval: spec.installPlanApproval === 'Automatic' ? 'Automatic' : 'Manual',
        generation: plans.length + 1,
        owner: sub,
      }),
    );
    const approved = getPath(plan, ['spec', 'approved']) === true;
    writeStatus(this.#kube, plan, {
      phase: approved ? 'Installing' : 'RequiresApproval',
      catalogSources: [],
    });
    this.#subscriptionStatus(sub, {
      currentCSV: next,
      state: 'UpgradePending',
      installPlanRef: {
        apiVersion: OLM_API_VERSION,
        kind: INSTALL_PLAN_KIND,
        name: plan.metadata.name,
        namespace: plan.metadata.namespace,
        uid: plan.metadata.uid,
      },
      installplan: {
        apiVersion: OLM_API_VERSION,
        kind: INSTALL_PLAN_KIND,
        name: plan.metadata.name,
        uuid: plan.metadata.uid,
      },
      conditions: [],
    });
  }

  /** True when CSV `candidate` is a newer operator release than `current` (or nothing is installed). */
  #isNewer(candidate: string, current: string | undefined): boolean {
    const a = operatorNumbers(this.#catalog.versionOfCsv(candidate) ?? '');
    if (!a) return false;
    const b = current ? operatorNumbers(this.#catalog.versionOfCsv(current) ?? '') : undefined;
    return !b || compareNumbers(a, b) > 0;
  }

  /** An unfinished plan for `csv`. */
  #planFor(csv: string): KubeObject | undefined {
    return this.#list(INSTALL_PLAN_KIND).find((plan) => {
      const names = getPath(plan, ['spec', 'clusterServiceVersionNames']);
      if (!Array.isArray(names) || names[0] !== csv) return false;
      const phase = statusOf(plan).phase;
      return phase !== 'Complete' && phase !== 'Failed';
    });
  }

  #subscriptionStatus(sub: KubeObject, status: Record<string, unknown>): void {
    writeStatus(this.#kube, sub, { ...status, lastUpdated: nowTimestamp() });
  }

  /** The OLM operator: an approved plan installs its CSV, which takes over the Deployment. */
  #progress(plan: KubeObject): void {
    const phase = statusOf(plan).phase;
    const approved = getPath(plan, ['spec', 'approved']) === true;
    if (phase === 'RequiresApproval' && approved) {
      writeStatus(this.#kube, plan, { phase: 'Installing' });
      return; // the write kicks the next pass
    }
    if (phase !== 'Installing') return;
    const names = getPath(plan, ['spec', 'clusterServiceVersionNames']);
    const target = Array.isArray(names) && typeof names[0] === 'string' ? names[0] : undefined;
    const version = target ? this.#catalog.versionOfCsv(target) : undefined;
    const sub = this.#list(SUBSCRIPTION_KIND)[0];
    const installed = sub ? String(statusOf(sub).installedCSV ?? '') : '';
    if (!target || !version || !sub) {
      writeStatus(this.#kube, plan, { phase: 'Failed', message: `no bundle found for ${String(target)}` });
      return;
    }
    if (!this.#isNewer(target, installed)) {
      writeStatus(this.#kube, plan, { phase: 'Complete' });
      return;
    }
    const { namespace, dialect, platform } = this.#scenario;
    const byDigest = olmOf(this.#scenario).operatorImageByDigest;
    const csv =
      this.#get(CSV_KIND, target) ??
      this.#kube.create(
        clusterServiceVersion({
          version,
          namespace,
          dialect,
          platform,
          catalog: this.#catalog,
          operatorImageByDigest: byDigest,
        }),
      );
    writeStatus(this.#kube, csv, CSV_STATUS.installing());
    installPodPermissions(this.#kube, this.#scenario, csv, version);
    const failedForGood = this.#failInstall(csv);
    const old = this.#get(CSV_KIND, installed);
    if (old) writeStatus(this.#kube, old, CSV_STATUS.replacing(target));
    // An invalid install strategy is refused before anything of it is installed: the old CSV's
    // Deployment and webhooks stay as they are (OLM's operator.go fails the CSV in its Pending
    // or InstallReady phase, before the strategy installer runs).
    if (!failedForGood) {
      const deployment = this.#kube.get('apps/v1', 'Deployment', namespace, OPERATOR_NAME);
      const spec = csvDeploymentSpec(version, dialect, platform, byDigest);
      if (deployment) adopt(this.#kube, deployment, csv, spec);
      else
        this.#kube.create({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: OPERATOR_NAME, namespace },
          spec,
        });
      this.#moveWebhooks(target);
    }
    // The InstallPlan is Complete once it has created its objects, the CSV among them; the
    // catalog operator then records the CSV as installed whatever its phase
    // (operator-lifecycle-manager catalog operator, ensureSubscriptionCSVState).
    writeStatus(this.#kube, plan, { phase: 'Complete' });
    this.#subscriptionStatus(sub, {
      installedCSV: target,
      currentCSV: target,
      state: 'AtLatestKnown',
      conditions: [],
    });
  }

  /**
   * operator.olm.installFailure: the new CSV goes Failed first. InstallCheckFailed is retried:
   * on OLM's next sync (a second later, never in the same pass, so a
   * reader sees it) it goes back to Installing and succeeds once the Deployment is ready.
   * InvalidStrategy stays Failed (reason InvalidInstallStrategy): true.
   */
  #failInstall(csv: KubeObject): boolean {
    const failure = olmOf(this.#scenario).installFailure;
    if (failure === 'none') return false;
    writeStatus(this.#kube, csv, CSV_STATUS.failed(failure));
    if (failure !== 'InstallCheckFailed') return true;
    this.#timers.after(Math.max(this.#revertSeconds, 1), () => {
      const live = this.#get(CSV_KIND, csv.metadata.name ?? '');
      if (live && statusOf(live).phase === 'Failed') writeStatus(this.#kube, live, CSV_STATUS.installing());
    });
    return false;
  }

  /** OLM replaces the webhook configuration with the new CSV's: its owner labels name `csv`. */
  #moveWebhooks(csv: string): void {
    for (const webhook of olmWebhooks(this.#kube, this.#scenario.namespace)) {
      if (webhook.metadata.labels?.[OWNER_LABEL] === csv) continue;
      this.#kube.patch(webhook, { metadata: { labels: ownerLabels(csv, this.#scenario.namespace) } });
    }
  }

  /** An Installing CSV whose Deployment is ready is Succeeded; the CSVs it replaced go. */
  #finishInstalls(): void {
    const deployment = this.#kube.get('apps/v1', 'Deployment', this.#scenario.namespace, OPERATOR_NAME);
    for (const csv of this.#list(CSV_KIND)) {
      if (statusOf(csv).phase !== 'Installing') continue;
      const owner = deployment?.metadata.labels?.[OWNER_LABEL];
      if (!deployment || owner !== csv.metadata.name || !deploymentReady(deployment)) continue;
      writeStatus(this.#kube, csv, CSV_STATUS.succeeded());
      for (const other of this.#list(CSV_KIND)) {
        if (statusOf(other).phase !== 'Replacing') continue;
        this.#kube.delete(other);
        removeCsvPermissions(this.#kube, other.metadata.name ?? '', this.#scenario.namespace);
      }
    }
  }

  /** Someone else changed the Deployment's pod template: back to the CSV's spec, shortly. */
  #guardDeployment(): void {
    const { namespace, dialect, platform } = this.#scenario;
    const byDigest = olmOf(this.#scenario).operatorImageByDigest;
    const deployment = this.#kube.get('apps/v1', 'Deployment', namespace, OPERATOR_NAME);
    const owner = deployment?.metadata.labels?.[OWNER_LABEL];
    if (!deployment || !owner) return;
    const current = specHash(specOf(deployment).template);
    if (current === deployment.metadata.labels?.[SPEC_HASH_LABEL] || this.#revertPending === current) return;
    this.#revertPending = current;
    this.#timers.after(this.#revertSeconds, () => {
      this.#revertPending = undefined;
      const live = this.#kube.get('apps/v1', 'Deployment', namespace, OPERATOR_NAME);
      const csv = live?.metadata.labels?.[OWNER_LABEL];
      const version = csv ? this.#catalog.versionOfCsv(csv) : undefined;
      const csvObject = csv ? this.#get(CSV_KIND, csv) : undefined;
      if (!live || !version || !csvObject) return;
      if (specHash(specOf(live).template) === live.metadata.labels?.[SPEC_HASH_LABEL]) return;
      adopt(this.#kube, live, csvObject, csvDeploymentSpec(version, dialect, platform, byDigest));
    });
  }
}

/** Starts OLM for an `installedBy: olm` scenario; `stop()` cancels its pending work. */
export function startOlm(options: { store: KubeStore; scenario: Scenario; clock?: OperatorClock }): {
  stop(): Promise<void>;
} {
  const timers = new Timers(options.clock ?? systemClock, (error) =>
    process.stderr.write(`simulated OLM: ${error instanceof Error ? error.stack : String(error)}\n`),
  );
  const controller = new OlmController({
    kube: new KubeAccess(options.store),
    scenario: options.scenario,
    timers,
    // OLM notices a changed Deployment on its next sync; a second, or at once with --fast.
    revertSeconds: Math.min(1, options.scenario.timing.operatorStart),
  });
  controller.start();
  return {
    stop: async () => {
      timers.stop();
      controller.stop();
    },
  };
}
