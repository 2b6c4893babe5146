/**
 * What the snapshot holds: everything the checks and the planner look at (read by ./snapshot.ts),
 * and the names of the upstream deployment it looks for.
 */

import type { ArtifactAvailability } from './target-available.js';
import type { HelmClientProbe } from '../exec/helm-probe.js';
import type { KubeTarget } from '../kube/kube-target.js';
import type { Dialect } from '../release/dialect.js';
import type { ApiSnapshot } from './management-snapshot.js';
import type { PermissionReview } from './permissions.js';
import type { StateStoreKind } from './state-store-kind.js';
import type { PinnedOperatorImage } from './helm-values.js';
import type { OlmSnapshot } from './olm.js';
import type { RemoteClusterSnapshot } from './participants.js';
import type { ClusterCrdFacts } from './cluster-crd.js';

export type Platform = 'kubernetes' | 'openshift';

export interface ObjectVersion {
  uid?: string | undefined;
  resourceVersion?: string | undefined;
  generation?: number | undefined;
}

export interface ImageSpec {
  repository?: string | undefined;
  versionTag?: string | undefined;
  imagePullPolicy?: string | undefined;
  digestHash?: string | undefined;
}

export interface ClusterSnapshot extends ObjectVersion {
  name: string;
  namespace: string;
  apiVersion: string;
  state?: string | undefined;
  specStatus?: string | undefined;
  nodes?: number | undefined;
  image: ImageSpec;
  /** Other image specs set in the spec, by field name (`bootstrapperImageSpec`, ...). */
  otherImages: Record<string, ImageSpec>;
  autoUpgrade: boolean;
  upgradePolicy?: string | undefined;
  license?: { state?: string | undefined; expirationDate?: string | undefined } | undefined;
  licenseSecretName?: string | undefined;
  /**
   * True when the licence is written inline in `spec.license` (only the fact: the key itself is
   * a secret and never leaves the cluster object).
   */
  licenseInline?: boolean | undefined;
  bundledDatabaseVersions: { dbType?: string | undefined; version: string; major?: boolean | undefined }[];
  serviceAccountName: string;
  /** `spec.securityContext.resourceLimits.allowAutoAdjustment`: keeps the SCC on OpenShift. */
  allowAutoAdjustment: boolean;
  userDefinedModules: string[];
  /** `spec.userDefinedModules` as written (names, sources, Secret names): what a patch of the list keeps. */
  userDefinedModuleEntries?: unknown[] | undefined;
  credentialSecretName: string;
  /** Every field path set under `spec` (`spec.ldap.protocol`), names only: what rules of kind field-used read. */
  specFields?: readonly string[] | undefined;
  /** The values rules of kind field-value list, where this resource holds them (rule-field-values.ts). */
  ruleFieldValues?: Record<string, string | number | boolean> | undefined;
}

export interface OperatorSnapshot extends ObjectVersion {
  deploymentName: string;
  namespace: string;
  image: string;
  /** The image tag, when it is an operator version; for an image by digest only, the version of the CSV that owns the Deployment (OLM). */
  version?: string | undefined;
  replicas: number;
  readyReplicas: number;
  /** From the Deployment's helm labels/annotations. */
  helmRelease?: { name: string; namespace: string; chart?: string | undefined } | undefined;
  /** The OpenShift bundle sets IS_OPENSHIFT=true on the operator. */
  openshiftBundle: boolean;
}

export interface HelmReleaseSnapshot {
  name: string;
  namespace: string;
  /** The newest revision and its status (`deployed`, `failed`, `pending-upgrade`, ...). */
  revision: number;
  status: string;
  /** The newest revision that reached `deployed` or `superseded`: the rollback target. */
  lastDeployedRevision?: number | undefined;
  /** `operator.image.{tag,repository}` the user set (the newest revision's values; src/planning/helm-values.ts). */
  pinnedOperatorImage?: PinnedOperatorImage | undefined;
}

export interface StatefulSetSnapshot extends ObjectVersion {
  name: string;
  replicas: number;
  readyReplicas: number;
  updatedReplicas: number;
  currentRevision?: string | undefined;
  updateRevision?: string | undefined;
  observedGeneration?: number | undefined;
  /** `spec.updateStrategy.type`: `RollingUpdate` (Kubernetes' default) or `OnDelete`. */
  updateStrategy?: string | undefined;
}

export interface PodSnapshot {
  name: string;
  phase?: string | undefined;
  ready: boolean;
  image?: string | undefined;
}

/** What the release rules read of a database resource (release-rules.ts). */
export interface RuleFields {
  /** Every field path set under `spec`, names only (field-used rules). */
  specFields?: readonly string[] | undefined;
  /** The values rules of kind field-value list, where this resource holds them (rule-field-values.ts). */
  ruleFieldValues?: Record<string, string | number | boolean> | undefined;
}

export interface DatabaseSnapshot extends ObjectVersion, RuleFields {
  name: string;
  namespace: string;
  /** The version field of the spec (`7.2`, `major`, `latest`), in the dialect's name. */
  versionSpec?: string | undefined;
  /** `status.version`, e.g. `7.2.4`. */
  statusVersion?: string | undefined;
  status?: string | undefined;
  /** `status.databaseUID`: the bdb uid in the management API. */
  databaseUid?: string | undefined;
  modules: { name: string; version?: string | undefined }[];
}

export interface ActiveActiveSnapshot extends ObjectVersion, RuleFields {
  name: string;
  namespace: string;
  versionSpec?: string | undefined;
  status?: string | undefined;
  participatingClusters: { name: string; namespace?: string | undefined }[];
}

export interface WebhookSnapshot extends ObjectVersion {
  name: string;
  /** The ClusterServiceVersion that owns it (OLM's labels), when OLM installed it from the CSV's webhookdefinitions. */
  olmOwner?: string | undefined;
  webhooks: {
    name: string;
    caBundle?: string | undefined;
    serviceNamespace?: string | undefined;
    /** `namespaceSelector.matchLabels.namespace-name` (DOCS deployment/quick-start.md). */
    selectorNamespace?: string | undefined;
  }[];
}

export interface SecretPresence extends ObjectVersion {
  name: string;
  present: boolean;
}

export interface AdmissionTlsSnapshot extends SecretPresence {
  /** `data.cert`, base64 as stored: the webhook's caBundle must equal it. */
  cert?: string | undefined;
}

export interface SccSnapshot extends ObjectVersion {
  name: string;
  present: boolean;
  users: string[];
  /** Installed by the operator's helm chart (openshift.scc.install): a chart upgrade may delete it. */
  helmOwned?: boolean;
}

export interface CredentialsSnapshot extends SecretPresence {
  hasUsername: boolean;
  hasPassword: boolean;
}

export interface Snapshot {
  context: string;
  /**
   * The kubeconfig and context the person chose for ctl (src/kube/kube-target.ts): every kubectl,
   * oc and helm command the plan and the run print names them, so a pasted one acts on this
   * cluster. Not part of the fingerprint (a plan may be run with the kubeconfig at another path);
   * `context` and the objects' uids are.
   */
  kubeTarget: KubeTarget;
  namespace: string;
  dialect: Dialect;
  dialectSource: 'cluster' | 'crd' | 'default';
  platform: Platform;
  kubernetesVersion?: string | undefined;
  /** OpenShift only: the ClusterVersion's version (`4.16.12`); undefined when unreadable. */
  openshiftVersion?: string | undefined;
  /** Cluster resources found in the namespace (for "which one?" messages). */
  clusterCandidates: string[];
  /** The name asked for with --cluster, if any. */
  requestedCluster?: string | undefined;
  /**
   * `-n` as given, if it was: the ctl commands a fix proposes repeat it (ctlTargetOf,
   * src/planning/equivalent-commands.ts). Not part of the fingerprint; `namespace` is.
   */
  requestedNamespace?: string | undefined;
  /** What the run will fetch for the plan's targets, asked before planning (src/planning/target-available.ts). */
  artifacts?: ArtifactAvailability[] | undefined;
  /** The helm client the run would call, asked before planning when the method is helm (check helm-available). */
  helmClient?: HelmClientProbe | undefined;
  cluster?: ClusterSnapshot | undefined;
  operator?: OperatorSnapshot | undefined;
  /** Set when OLM (OperatorHub) owns the operator Deployment: its CSV and Subscription (src/planning/olm.ts). */
  olm?: OlmSnapshot | undefined;
  helmRelease?: HelmReleaseSnapshot | undefined;
  operatorConfig: {
    redbNamespaces?: string | undefined;
    redbNamespacesLabel?: string | undefined;
  } & ObjectVersion;
  /** The cluster's namespace first, then every other namespace the operator watches. */
  watchedNamespaces: string[];
  statefulSet?: StatefulSetSnapshot | undefined;
  pods: PodSnapshot[];
  databases: DatabaseSnapshot[];
  activeActiveDatabases: ActiveActiveSnapshot[];
  /**
   * The RERCs the Active-Active databases name, each remote one with its RS version or why it is
   * unknown (src/planning/participants.ts); absent in snapshots made before it was read.
   */
  remoteClusters?: RemoteClusterSnapshot[] | undefined;
  webhooks: WebhookSnapshot[];
  admissionTls: AdmissionTlsSnapshot;
  /** Only read on OpenShift. */
  scc?: SccSnapshot | undefined;
  credentials: CredentialsSnapshot;
  api: ApiSnapshot;
  permissions: PermissionReview[];
  /** `--state-store` of the run this snapshot is for (absent: file), which decides permissions. */
  stateStore?: StateStoreKind | undefined;
  /**
   * The cluster resource's CRD, read only for `--user-defined-modules`: whether it declares
   * spec.userDefinedModules (src/planning/cluster-crd.ts). Absent when the flag is not given.
   */
  clusterCrd?: ClusterCrdFacts | undefined;
  /** Reads that failed without stopping the snapshot, e.g. `list namespaces: forbidden`. */
  readErrors: string[];
}

// ---- names and thresholds of the upstream deployment

export const OPERATOR_DEPLOYMENT = 'redis-enterprise-operator';
export const OPERATOR_CONFIGMAP = 'operator-environment-config';
export const ADMISSION_TLS_SECRET = 'admission-tls';
export const SCC_NAME = 'redis-enterprise-scc-v2';
/** Above this many watched namespaces, one cluster-wide list replaces the per-namespace lists. */
export const MAX_NAMESPACED_LISTS = 3;
/** In-flight requests at once; enough for speed, not a flood for the API server. */
export const READ_CONCURRENCY = 16;

/**
 * What the first answers of the snapshot settle for whatever is planned later: the operator
 * (its Deployment's helm labels, or the ClusterServiceVersion that owns it) and the platform.
 * Handed out as soon as they are read, so that a read that needs only these (the target's
 * artifact: src/planning/target-available.ts) goes out beside the rest of the snapshot.
 */
export interface OperatorBasis {
  namespace: string;
  platform: Platform;
  operator?: OperatorSnapshot | undefined;
  /** A ClusterServiceVersion owns the operator: the snapshot will hold its OLM reads. */
  olmOwned: boolean;
}
