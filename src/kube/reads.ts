/**
 * The Kubernetes reads the snapshot needs, behind a small interface so readSnapshot can be
 * tested with a fake and so every request it makes is visible in one place.
 *
 * Every method is ONE request. Lists are used instead of per-object gets so the number of
 * requests never grows with the number of databases.
 */

import type { KubeClients } from './client.js';
import { orUndefinedIfNotFound } from './errors.js';
import { resourcePath } from './rest.js';
import type { KubeTarget } from './kube-target.js';

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
  /** The kubeconfig and context chosen (KubeClients.selection), for the commands hints print; unset: none. */
  readonly selection?: KubeTarget | undefined;
  /** The objects of a custom resource type, without `metadata.managedFields` (never read). */
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

const itemsOf = (list: unknown): KubeObject[] => (list as { items?: KubeObject[] } | undefined)?.items ?? [];

/** `labelSelector` as a query, left out when empty (as client-node's typed calls did). */
const selecting = (labelSelector: string) => (labelSelector === '' ? {} : { labelSelector });

/**
 * The reads, each one request by API path (rest.ts): the same requests client-node's typed
 * clients made, without loading their generated models.
 */
export function createClusterReads(clients: KubeClients): ClusterReads {
  const { rest } = clients;
  const custom = (type: CustomResourceType, namespace?: string, name?: string) =>
    resourcePath(type.group, type.version, type.plural, namespace, name);
  return {
    selection: clients.selection,
    async listCustomObjects(type, namespace) {
      // Without managedFields: half the bytes of 10,000 database resources, and never read.
      return itemsOf(await rest.list(custom(type, namespace === 'all' ? undefined : namespace)));
    },
    async getClusterCustomObject(type, name) {
      return orUndefinedIfNotFound(rest.get<KubeObject>(custom(type, undefined, name)));
    },
    async getCustomObject(type, namespace, name) {
      return orUndefinedIfNotFound(rest.get<KubeObject>(custom(type, namespace, name)));
    },
    async listDeployments(namespace) {
      return itemsOf(await rest.get(resourcePath('apps', 'v1', 'deployments', namespace)));
    },
    async getStatefulSet(namespace, name) {
      return orUndefinedIfNotFound(
        rest.get<KubeObject>(resourcePath('apps', 'v1', 'statefulsets', namespace, name)),
      );
    },
    async listPods(namespace) {
      return itemsOf(await rest.get(resourcePath('', 'v1', 'pods', namespace)));
    },
    async getConfigMap(namespace, name) {
      return orUndefinedIfNotFound(
        rest.get<KubeObject>(resourcePath('', 'v1', 'configmaps', namespace, name)),
      );
    },
    async getSecret(namespace, name) {
      return orUndefinedIfNotFound(rest.get<KubeObject>(resourcePath('', 'v1', 'secrets', namespace, name)));
    },
    async listSecrets(namespace, labelSelector) {
      return itemsOf(await rest.get(resourcePath('', 'v1', 'secrets', namespace), selecting(labelSelector)));
    },
    async listNamespaceNames(labelSelector) {
      const list = itemsOf(await rest.get(resourcePath('', 'v1', 'namespaces'), selecting(labelSelector)));
      return list.map((ns) => ns.metadata?.name).filter((name): name is string => Boolean(name));
    },
    async listValidatingWebhookConfigurations() {
      return itemsOf(
        await rest.get(resourcePath('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations')),
      );
    },
    async getCustomResourceDefinition(name) {
      return orUndefinedIfNotFound(
        rest.get<KubeObject>(
          resourcePath('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', undefined, name),
        ),
      );
    },
    async listApiGroups() {
      const list = await rest.get<{ groups?: { name: string }[] } | undefined>('/apis/');
      return (list?.groups ?? []).map((group) => group.name);
    },
    async serverVersion() {
      return (await rest.get<{ gitVersion: string }>('/version/')).gitVersion;
    },
    async reviewAccess(query) {
      const review = await rest.create<AccessReview>(
        resourcePath('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews'),
        {
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
      );
      return { allowed: review?.status?.allowed === true, reason: review?.status?.reason };
    },
    async reviewRules(namespace) {
      const review = await rest.create<RulesReview>(
        resourcePath('authorization.k8s.io', 'v1', 'selfsubjectrulesreviews'),
        { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } },
      );
      return {
        rules: review?.status?.resourceRules ?? [],
        incomplete: review?.status?.incomplete !== false,
        evaluationError: review?.status?.evaluationError,
      };
    },
  };
}

interface AccessReview {
  status?: { allowed?: boolean; reason?: string };
}

interface RulesReview {
  status?: { resourceRules?: ResourceRule[]; incomplete?: boolean; evaluationError?: string };
}
