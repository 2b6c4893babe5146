/**
 * The Kubernetes reads the snapshot needs, behind a small interface so readSnapshot can be
 * tested with a fake and so every request it makes is visible in one place.
 *
 * Every method is ONE request. Lists are used instead of per-object gets so the number of
 * requests never grows with the number of databases.
 */

import type { KubeClients } from './client.js';
import { orUndefinedIfNotFound } from './errors.js';

/** A Kubernetes object as JSON; only the fields ctl reads are named. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: KubeMetadata;
  spec?: unknown;
  status?: unknown;
  data?: Record<string, string> | undefined;
  [key: string]: unknown;
}

export interface KubeMetadata {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { kind?: string; name?: string }[];
}

/** A custom resource type: group, version and plural, as in its API path. */
export interface CustomResourceType {
  group: string;
  version: string;
  plural: string;
}

export const OPERATOR_GROUP = 'app.redislabs.com';
export const CLUSTER_RESOURCE: CustomResourceType = {
  group: OPERATOR_GROUP,
  version: 'v1',
  plural: 'redisenterpriseclusters',
};
export const DATABASE_RESOURCE: CustomResourceType = {
  group: OPERATOR_GROUP,
  version: 'v1alpha1',
  plural: 'redisenterprisedatabases',
};
export const ACTIVE_ACTIVE_RESOURCE: CustomResourceType = {
  group: OPERATOR_GROUP,
  version: 'v1alpha1',
  plural: 'redisenterpriseactiveactivedatabases',
};
/** RedisEnterpriseRemoteCluster (RERC): a participating cluster of Active-Active databases (reference `crd-rerc.yaml`). */
export const REMOTE_CLUSTER_RESOURCE: CustomResourceType = {
  group: OPERATOR_GROUP,
  version: 'v1alpha1',
  plural: 'redisenterpriseremoteclusters',
};
export const SCC_RESOURCE: CustomResourceType = {
  group: 'security.openshift.io',
  version: 'v1',
  plural: 'securitycontextconstraints',
};
/** OpenShift's ClusterVersion (a singleton named `version`): `status.desired.version` is the OpenShift version. */
export const CLUSTER_VERSION_RESOURCE: CustomResourceType = {
  group: 'config.openshift.io',
  version: 'v1',
  plural: 'clusterversions',
};
export const CLUSTER_CRD_NAME = `${CLUSTER_RESOURCE.plural}.${OPERATOR_GROUP}`;

export interface AccessQuery {
  verb: string;
  group: string;
  resource: string;
  subresource?: string | undefined;
  /** undefined for cluster-scoped resources; '' means every namespace. */
  namespace?: string | undefined;
}

export interface AccessAnswer {
  allowed: boolean;
  reason?: string | undefined;
}

/** One rule of a SelfSubjectRulesReview, as RBAC writes it. */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[] | undefined;
  resources?: string[] | undefined;
  resourceNames?: string[] | undefined;
}

/** What the user may do in one namespace; `incomplete`: some authorizer could not list its rules. */
export interface RulesAnswer {
  rules: ResourceRule[];
  incomplete: boolean;
  evaluationError?: string | undefined;
}

export interface ClusterReads {
  listCustomObjects(type: CustomResourceType, namespace: string | 'all'): Promise<KubeObject[]>;
  getClusterCustomObject(type: CustomResourceType, name: string): Promise<KubeObject | undefined>;
  /** A namespaced custom object by name; undefined when not found. Optional for test doubles. */
  getCustomObject?(
    type: CustomResourceType,
    namespace: string,
    name: string,
  ): Promise<KubeObject | undefined>;
  listDeployments(namespace: string): Promise<KubeObject[]>;
  getStatefulSet(namespace: string, name: string): Promise<KubeObject | undefined>;
  listPods(namespace: string): Promise<KubeObject[]>;
  getConfigMap(namespace: string, name: string): Promise<KubeObject | undefined>;
  getSecret(namespace: string, name: string): Promise<KubeObject | undefined>;
  listSecrets(namespace: string, labelSelector: string): Promise<KubeObject[]>;
  listNamespaceNames(labelSelector: string): Promise<string[]>;
  listValidatingWebhookConfigurations(): Promise<KubeObject[]>;
  getCustomResourceDefinition(name: string): Promise<KubeObject | undefined>;
  /** The API groups the server serves (GET /apis): tells OpenShift from plain Kubernetes. */
  listApiGroups(): Promise<string[]>;
  /** `GET /version` gitVersion, e.g. `v1.32.4`. */
  serverVersion(): Promise<string>;
  reviewAccess(query: AccessQuery): Promise<AccessAnswer>;
  /** SelfSubjectRulesReview in one namespace. Optional: without it every question is one review. */
  reviewRules?(namespace: string): Promise<RulesAnswer>;
}

// Typed client-node results are class instances (creationTimestamp becomes a Date); ctl only
// reads plain fields from them, so they are handed on as KubeObject.
const asObject = (value: unknown): KubeObject => value as KubeObject;
const itemsOf = (list: unknown): KubeObject[] => ((list as { items?: unknown[] })?.items ?? []).map(asObject);

export function createClusterReads(clients: KubeClients): ClusterReads {
  const { core, apps, custom, admission, apiextensions, authorization, apis, version } = clients;
  return {
    async listCustomObjects(type, namespace) {
      const list =
        namespace === 'all'
          ? await custom.listClusterCustomObject({ ...type })
          : await custom.listNamespacedCustomObject({ ...type, namespace });
      return itemsOf(list);
    },
    async getClusterCustomObject(type, name) {
      return orUndefinedIfNotFound(custom.getClusterCustomObject({ ...type, name }).then(asObject));
    },
    async getCustomObject(type, namespace, name) {
      return orUndefinedIfNotFound(
        custom.getNamespacedCustomObject({ ...type, namespace, name }).then(asObject),
      );
    },
    async listDeployments(namespace) {
      return itemsOf(await apps.listNamespacedDeployment({ namespace }));
    },
    async getStatefulSet(namespace, name) {
      return orUndefinedIfNotFound(apps.readNamespacedStatefulSet({ namespace, name }).then(asObject));
    },
    async listPods(namespace) {
      return itemsOf(await core.listNamespacedPod({ namespace }));
    },
    async getConfigMap(namespace, name) {
      return orUndefinedIfNotFound(core.readNamespacedConfigMap({ namespace, name }).then(asObject));
    },
    async getSecret(namespace, name) {
      return orUndefinedIfNotFound(core.readNamespacedSecret({ namespace, name }).then(asObject));
    },
    async listSecrets(namespace, labelSelector) {
      return itemsOf(await core.listNamespacedSecret({ namespace, labelSelector }));
    },
    async listNamespaceNames(labelSelector) {
      const list = await core.listNamespace({ labelSelector });
      return list.items.map((ns) => ns.metadata?.name).filter((name): name is string => Boolean(name));
    },
    async listValidatingWebhookConfigurations() {
      return itemsOf(await admission.listValidatingWebhookConfiguration());
    },
    async getCustomResourceDefinition(name) {
      return orUndefinedIfNotFound(apiextensions.readCustomResourceDefinition({ name }).then(asObject));
    },
    async listApiGroups() {
      const list = await apis.getAPIVersions();
      return list.groups.map((group) => group.name);
    },
    async serverVersion() {
      return (await version.getCode()).gitVersion;
    },
    async reviewAccess(query) {
      const review = await authorization.createSelfSubjectAccessReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: {
            resourceAttributes: {
              verb: query.verb,
              group: query.group,
              resource: query.resource,
              ...(query.subresource ? { subresource: query.subresource } : {}),
              ...(query.namespace !== undefined ? { namespace: query.namespace } : {}),
            },
          },
        },
      });
      return { allowed: review.status?.allowed === true, reason: review.status?.reason };
    },
    async reviewRules(namespace) {
      const review = await authorization.createSelfSubjectRulesReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectRulesReview',
          spec: { namespace },
        },
      });
      return {
        rules: review.status?.resourceRules ?? [],
        incomplete: review.status?.incomplete !== false,
        evaluationError: review.status?.evaluationError,
      };
    },
  };
}
