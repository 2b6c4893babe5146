import { bundleObjects } from '../artifacts/bundles.js';
import { ScenarioError } from '../world/errors.js';
import { CHART_NAME, type ChartValues, chartWebhookName, renderChart } from '../artifacts/chart.js';
import {
  admissionWebhook,
  type KubeManifest,
  OPERATOR_ENV_CONFIGMAP,
  redbRole,
  redbRoleBinding,
} from '../artifacts/operator-objects.js';
import { chartInstallsScc } from '../artifacts/openshift-scc.js';
import { crdsFor } from '../crds.js';
import { olmNodeDigest, seedOlmInstall } from '../olm/olm.js';
import type { KubeStore } from '../kube/store.js';
import { isRecord, type KubeObject } from '../kube/types.js';
import type { RestBdb, RestModel } from '../rest/model.js';
import { scenarioLicense } from '../rest/license.js';
import type { Scenario, ScenarioDatabase } from '../scenario.js';
import { olmWebhookCert } from '../olm/webhook-cert.js';
import { admissionTlsSecret } from './admission.js';
import {
  activeActiveResource,
  activeActiveStatus,
  clusterApiService,
  clusterCredentialsSecret,
  clusterResource,
  clusterServiceAccount,
  clusterStatefulSet,
  databaseResource,
  databaseStatus,
  licenseSecretName,
  licenseStatus,
  SIMULATED_LICENSE,
  componentImage,
  componentRepository,
  nodePodTemplate,
  servicesRiggerDeployment,
} from './cluster-objects.js';
import { nodeImageReference } from '../world/registry.js';
import { bundledDatabaseVersionsStatus } from './database-versions.js';
import { deploymentReady } from './deployment.js';
import { helmOwnership, helmReleaseSecret } from './helm-release.js';
import { KubeAccess, type KubeHandle, toKubeHandle } from './kube-access.js';
import { seedOpenShiftSecurity } from './openshift-scc.js';
import { applyPodSecurity, podSecurityFor } from './pod-security.js';
import { createPod, writeStatefulSetStatus } from './statefulset.js';
import { worldOf } from '../world/world.js';

export interface SeedOptions {
  /** Creation and licence times; default now. */
  now?: Date;
}

/**
 * Creates everything a scenario describes, as a finished install would have left it: the
 * operator (by bundle or helm), its admission webhook and TLS Secret, the cluster resource
 * Running with its StatefulSet and ready pods, the databases active, and the management API's
 * modules, databases and nodes consistent with them. Existing objects are kept, so seeding
 * twice is harmless. Writes go straight to the store (no HTTP, no audit lines).
 */
export async function seedCluster(
  storeOrHandle: KubeStore | KubeHandle,
  rest: RestModel,
  scenario: Scenario,
  options: SeedOptions = {},
): Promise<void> {
  const kube = new KubeAccess(toKubeHandle(storeOrHandle).store);
  const now = options.now ?? new Date();
  const { namespace } = scenario;
  // The only slow part (key generation) first, so all writes then happen in one go.
  const admissionTls = await admissionTlsSecret(namespace);
  const olmCert =
    scenario.operator.olm?.webhookCa === 'olm' && scenario.admission.enabled
      ? await olmWebhookCert(namespace)
      : undefined;

  seedNamespaces(kube, scenario);
  for (const crd of crdsFor(scenario.dialect, scenario.operator.version)) kube.ensure(crd as KubeObject);
  const caBundle = String((kube.ensure(admissionTls).data as Record<string, string> | undefined)?.cert ?? '');
  if (scenario.operator.installedBy === 'helm') seedHelmInstall(kube, scenario, caBundle, now);
  else seedBundleInstall(kube, scenario, caBundle);
  seedWatchedNamespaces(kube, scenario);
  if (scenario.platform === 'openshift') seedOpenShiftSecurity(kube, scenario);

  seedRestModel(rest, scenario);
  seedClusterResources(kube, rest, scenario, now);
  seedDatabases(kube, rest, scenario, now);
  // OperatorHub: OLM's objects over the bundle's, the CSV owning the operator Deployment.
  if (scenario.operator.installedBy === 'olm') seedOlmInstall(kube, scenario, caBundle, olmCert);
  seedExtraObjects(kube, scenario);
}

/** The scenario's `objects`, stored as they are (after everything else, so they may refer to it). */
function seedExtraObjects(kube: KubeAccess, scenario: Scenario): void {
  scenario.objects.forEach((object, index) => {
    const candidate = structuredClone(object) as KubeObject;
    candidate.metadata ??= {};
    const rt = kube.type(String(candidate.apiVersion ?? ''), String(candidate.kind ?? ''));
    if (rt?.namespaced && !candidate.metadata.namespace) candidate.metadata.namespace = scenario.namespace;
    try {
      kube.ensure(candidate);
    } catch (error) {
      throw new ScenarioError(
        `scenario ${scenario.name}: objects[${index}] (${String(candidate.kind)} ${String(candidate.metadata.name)}): ${(error as Error).message}`,
        { hint: 'Give each object apiVersion, kind and metadata.name, of a kind the emulator serves.' },
      );
    }
  });
}

// ---- namespaces and operator -----------------------------------------------------------------

function seedNamespaces(kube: KubeAccess, scenario: Scenario): void {
  const names = new Set([
    scenario.namespace,
    ...scenario.operator.watchNamespaces,
    ...scenario.databases.map((database) => database.namespace),
  ]);
  for (const name of names) kube.ensure({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

function inNamespace(manifest: KubeManifest, namespace: string): KubeObject {
  const object = structuredClone(manifest) as KubeObject;
  if (!isRecord(object.metadata)) object.metadata = {};
  object.metadata.namespace = namespace;
  return object;
}

function seedBundleInstall(kube: KubeAccess, scenario: Scenario, caBundle: string): void {
  const { namespace, operator } = scenario;
  for (const manifest of bundleObjects(operator.version, scenario.dialect, scenario.platform)) {
    if (manifest.kind === 'CustomResourceDefinition') continue;
    const object = kube.ensure(inNamespace(manifest, namespace));
    if (object.kind === 'Deployment') markDeploymentReady(kube, object);
  }
  // Under OLM the webhook comes from the CSV's webhookdefinitions (seedOlmInstall), not webhook.yaml.
  if (scenario.admission.enabled && operator.installedBy !== 'olm') {
    // `sed s/OPERATOR_NAMESPACE/<ns>/ webhook.yaml | kubectl create -f -`, then the caBundle patch.
    kube.ensure(
      admissionWebhook(operator.version, {
        name: scenario.admission.webhookName,
        namespace,
        caBundle,
      }) as KubeObject,
    );
  }
}

function seedHelmInstall(kube: KubeAccess, scenario: Scenario, caBundle: string, now: Date): void {
  const { namespace, operator } = scenario;
  const release = operator.helmRelease ?? 'redis-enterprise';
  const given = operator.helmValues ?? {};
  const givenTag = (given.operator as { image?: { tag?: unknown } } | undefined)?.image?.tag;
  const values: ChartValues = {
    openshift: {
      mode: scenario.platform === 'openshift',
      ...(scenario.openshift.sccOwner === 'helm' ? { scc: { install: true } } : {}),
    },
    admission: { limitToNamespace: scenario.admission.webhookName.endsWith(`-${namespace}`) },
    ...(typeof givenTag === 'string' ? { operator: { image: { tag: givenTag } } } : {}),
  };
  const rendered = renderChart(operator.version, scenario.dialect, namespace, values);
  const ownership = helmOwnership(release, namespace);
  for (const { object: manifest } of rendered.templates) {
    const isWebhook = manifest.kind === 'ValidatingWebhookConfiguration';
    if (isWebhook && !scenario.admission.enabled) continue;
    const object = isWebhook ? (structuredClone(manifest) as KubeObject) : inNamespace(manifest, namespace);
    object.metadata.labels = { ...object.metadata.labels, ...ownership.labels };
    object.metadata.annotations = { ...object.metadata.annotations, ...ownership.annotations };
    if (isWebhook) {
      object.metadata.name = chartWebhookName(operator.version, values, namespace);
      for (const webhook of (object.webhooks as Record<string, unknown>[] | undefined) ?? []) {
        if (isRecord(webhook.clientConfig)) webhook.clientConfig.caBundle = caBundle;
      }
    }
    const stored = kube.ensure(object);
    if (stored.kind === 'Deployment') markDeploymentReady(kube, stored);
  }
  // What `helm get values` shows: the scenario's helmValues as given, plus what the install needed.
  const userValues: Record<string, unknown> = structuredClone(given);
  if (values.openshift.mode) userValues.openshift = { ...(userValues.openshift as object), mode: true };
  // scc.install given at install only when the chart's default did not already install the SCC.
  if (values.openshift.mode && values.openshift.scc && !chartInstallsScc(operator.version)) {
    userValues.openshift = { ...(userValues.openshift as object), mode: true, scc: values.openshift.scc };
  }
  if (!values.admission.limitToNamespace) {
    userValues.admission = { ...(userValues.admission as object), limitToNamespace: false };
  }
  kube.ensure(
    helmReleaseSecret({
      release,
      namespace,
      chartName: CHART_NAME,
      chartVersion: operator.version,
      appVersion: operator.version,
      manifest: rendered.manifest,
      config: userValues,
      deployedAt: now,
    }),
  );
}

/** READY 1/1 as left by a finished install (the Deployment controller, when it runs, agrees). */
function markDeploymentReady(kube: KubeAccess, deployment: KubeObject): void {
  if (deploymentReady(deployment)) return;
  const replicas =
    typeof (deployment.spec as { replicas?: unknown }).replicas === 'number'
      ? (deployment.spec as { replicas: number }).replicas
      : 1;
  const time = deployment.metadata.creationTimestamp;
  kube.patchStatus(deployment, {
    observedGeneration: deployment.metadata.generation,
    replicas,
    updatedReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
        lastUpdateTime: time,
        lastTransitionTime: time,
      },
      {
        type: 'Progressing',
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        message: `ReplicaSet "${deployment.metadata.name}" has successfully progressed.`,
        lastUpdateTime: time,
        lastTransitionTime: time,
      },
    ],
  });
}

/** Multi-namespace (redis-facts.md §3): redb-role in each watched namespace, and REDB_NAMESPACES. */
function seedWatchedNamespaces(kube: KubeAccess, scenario: Scenario): void {
  const { namespace, operator, cluster } = scenario;
  if (operator.watchNamespaces.length === 0) return;
  kube.ensure({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: OPERATOR_ENV_CONFIGMAP, namespace },
    data: { REDB_NAMESPACES: operator.watchNamespaces.join(',') },
  });
  // The RoleBinding may point at a ClusterRole instead of the Role (DOCS
  // `kubernetes/re-clusters/multi-namespace.md`); then re-applying the bundle's role_binding.yaml
  // meets the immutable roleRef (422).
  if (operator.roleRefKind === 'ClusterRole') {
    const { metadata, ...rest } = redbRole();
    kube.ensure({
      ...rest,
      kind: 'ClusterRole',
      metadata: { ...(metadata as object), namespace: undefined },
    } as KubeObject);
  }
  for (const watched of operator.watchNamespaces) {
    if (operator.roleRefKind === 'Role') kube.ensure(inNamespace(redbRole(), watched));
    const binding = inNamespace(redbRoleBinding(), watched);
    binding.roleRef = { ...(binding.roleRef as object), kind: operator.roleRefKind };
    const subjects = (binding.subjects as Record<string, unknown>[] | undefined) ?? [];
    // The placeholders users replace with sed: the operator's namespace and the cluster's service account.
    binding.subjects = subjects.map((subject) => ({
      ...subject,
      namespace,
      name: subject.name === 'NAME_OF_REC_SERVICE_ACCOUNT' ? cluster.name : subject.name,
    }));
    kube.ensure(binding);
  }
}

// ---- the management API ----------------------------------------------------------------------

/**
 * Fills in what the REST model lacks, so it agrees with the scenario whether or not it was
 * built from it: users, modules, nodes, and one bdb per database with the scenario's uid.
 */
function seedRestModel(rest: RestModel, scenario: Scenario): void {
  for (const role of scenario.cluster.roles) {
    // A role limited to some databases, by name (or namespace/name): their uids (objects/role.md resources).
    const limited = role.databases;
    const uids = limited
      ? scenario.databases
          .filter((db) => limited.includes(db.name) || limited.includes(`${db.namespace}/${db.name}`))
          .map((db) => db.uid)
      : undefined;
    rest.addRole(role.name, role.management, uids);
  }
  for (const user of scenario.cluster.users) {
    if (rest.findUser(user.username)) continue;
    rest.users.push({
      uid: String(rest.users.length + 1),
      username: user.username,
      password: user.password,
      role: user.role,
      ...(user.roles ? { roleNames: [...user.roles] } : {}),
      passwordExpired: user.passwordExpired,
      ...(user.listed === false ? { listed: false as const } : {}),
    });
  }
  for (const module of scenario.modules) {
    if (!rest.findModule(module.name, module.version)) rest.addModule(module);
  }
  const template = rest.nodes[0];
  while (template && rest.nodes.length < scenario.cluster.nodes) {
    rest.nodes.push({ ...structuredClone(template), uid: rest.nodes.length + 1 });
  }
  if (rest.nodes.length > scenario.cluster.nodes) rest.nodes.splice(scenario.cluster.nodes);

  const byName = new Map(rest.bdbs.map((bdb) => [`${bdb.namespace}/${bdb.name}`, bdb]));
  for (const database of scenario.databases) {
    if (byName.has(`${database.namespace}/${database.name}`)) continue;
    // A model built from the scenario without namespaces: same uid and name is the same database.
    const sameUid = rest.findBdb(database.uid);
    if (sameUid && sameUid.name === database.name) {
      sameUid.namespace = database.namespace;
      byName.set(`${database.namespace}/${database.name}`, sameUid);
      continue;
    }
    // The scenario's uid, unless another database has it: then the next free one.
    const bdb = rest.addBdb({
      name: database.name,
      namespace: database.namespace,
      version: database.version,
      modules: database.modules,
      activeActive: database.activeActive,
      shards: database.shardCount ?? 1,
      replication: database.replication ?? true,
      uid: database.uid,
    });
    byName.set(`${database.namespace}/${database.name}`, bdb);
  }
}

// ---- the cluster --------------------------------------------------------------------------------

function seedClusterResources(kube: KubeAccess, rest: RestModel, scenario: Scenario, now: Date): void {
  const { namespace, cluster, operator } = scenario;
  const rec = kube.ensure(clusterResource(scenario));
  // Every shard the API placed, masters and replicas (rest/shards.ts): what the licence counts.
  const shardsInUse = rest.shards.all().length;
  const license = scenarioLicense(cluster.license, SIMULATED_LICENSE, cluster.nodes, now, shardsInUse);
  rest.license = license;
  kube.patchStatus(rec, {
    state: 'Running',
    specStatus: 'Valid',
    licenseStatus: licenseStatus(license, shardsInUse, operator.version),
    bundledDatabaseVersions: bundledDatabaseVersionsStatus(cluster.versionTag, worldOf(scenario)),
    modules: installedModules(rest),
  });
  const admin = cluster.users[0];
  if (admin) kube.ensure(clusterCredentialsSecret(cluster.name, namespace, admin));
  if (cluster.licenseIn === 'secret') {
    kube.ensure({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: licenseSecretName(cluster.name), namespace },
      type: 'Opaque',
      stringData: { license: SIMULATED_LICENSE },
    });
  }
  kube.ensure(clusterServiceAccount(cluster.name, namespace));
  kube.ensure(clusterApiService(cluster.name, namespace));

  // What the operator wrote for this spec (cluster-upgrade.ts): the node image with its pinned
  // digest, the bootstrapper's pinned image, else the operator's own.
  const template = nodePodTemplate(
    cluster.name,
    // (An OLM install's REC gets its node digest a little later, seedOlmInstall: the same one.)
    nodeImageReference(cluster.repository, cluster.versionTag, cluster.digestHash ?? olmNodeDigest(scenario)),
    componentImage(
      cluster.imageSpecs.bootstrapper,
      componentRepository('bootstrapper', scenario.platform),
      operator.version,
    ),
  );
  if (scenario.platform === 'openshift') {
    applyPodSecurity(template, podSecurityFor(operator.version, cluster.allowAutoAdjustment));
  }
  const statefulSet = kube.ensure(
    clusterStatefulSet(cluster.name, namespace, cluster.nodes, template, cluster.statefulSetStrategy),
  );
  const existing = new Set(kube.list('v1', 'Pod', namespace).map((pod) => pod.metadata.name));
  for (let ordinal = 0; ordinal < cluster.nodes; ordinal++) {
    if (!existing.has(`${cluster.name}-${ordinal}`)) createPod(kube, statefulSet, ordinal, true);
  }
  writeStatefulSetStatus(kube, statefulSet);
  // The services rigger beside the nodes, running its pinned image or the operator's release's.
  const rigger = kube.ensure(
    servicesRiggerDeployment(
      cluster.name,
      namespace,
      componentImage(
        cluster.imageSpecs.rigger,
        componentRepository('rigger', scenario.platform),
        operator.version,
      ),
    ),
  );
  markDeploymentReady(kube, rigger);
}

function installedModules(rest: RestModel): { name: string; displayName: string; versions: string[] }[] {
  const byName = new Map<string, { name: string; displayName: string; versions: string[] }>();
  for (const module of rest.modules) {
    const entry = byName.get(module.module_name) ?? {
      name: module.module_name,
      displayName: module.display_name,
      versions: [],
    };
    entry.versions.push(module.semantic_version);
    byName.set(module.module_name, entry);
  }
  return [...byName.values()];
}

function seedDatabases(kube: KubeAccess, rest: RestModel, scenario: Scenario, now: Date): void {
  const time = now.toISOString().replace(/\.\d+Z$/, 'Z');
  const bdbs = new Map(rest.bdbs.map((bdb) => [`${bdb.namespace}/${bdb.name}`, bdb]));
  for (const database of scenario.databases) {
    const bdb = bdbs.get(`${database.namespace}/${database.name}`);
    if (database.activeActive) seedActiveActive(kube, scenario, database);
    else seedDatabase(kube, scenario, database, bdb, time);
  }
}

function seedDatabase(
  kube: KubeAccess,
  scenario: Scenario,
  database: ScenarioDatabase,
  bdb: RestBdb | undefined,
  time: string,
): void {
  const created = kube.ensure(databaseResource(scenario.dialect, scenario.cluster.name, database));
  const shards = (database.shardCount ?? 1) * ((database.replication ?? true) ? 2 : 1);
  kube.patchStatus(
    created,
    databaseStatus(database, {
      uid: bdb?.uid ?? database.uid,
      version: bdb?.databaseVersion ?? database.version,
      port: bdb?.port ?? 12000 + database.uid,
      clusterName: scenario.cluster.name,
      shards,
      now: time,
    }),
  );
}

function seedActiveActive(kube: KubeAccess, scenario: Scenario, database: ScenarioDatabase): void {
  const created = kube.ensure(activeActiveResource(scenario.dialect, scenario.cluster.name, database));
  kube.patchStatus(created, activeActiveStatus(database));
}
