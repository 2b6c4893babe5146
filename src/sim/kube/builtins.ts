import { validateCustomResourceDefinition } from './crds.js';
import {
  defaultCustomResourceDefinition,
  defaultDeployment,
  defaultJob,
  defaultNamespace,
  defaultPod,
  defaultReplicaSet,
  defaultSecret,
  defaultService,
  defaultStatefulSet,
  establishCustomResourceDefinition,
  validateJob,
} from './defaults.js';
import { CRUD_VERBS, type ResourceRegistry, type ResourceType } from './registry.js';
import type { FieldCause, KubeObject } from './types.js';

type BuiltinSpec = Partial<ResourceType> & Pick<ResourceType, 'group' | 'version' | 'kind' | 'plural'>;

function builtin(spec: BuiltinSpec): ResourceType {
  return {
    listKind: `${spec.kind}List`,
    singular: spec.kind.toLowerCase(),
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: CRUD_VERBS,
    subresources: [],
    builtin: true,
    ...spec,
  };
}

const ALL = ['all'];

/**
 * A binding's roleRef is immutable: the API server refuses an update that changes it with 422
 * and these words (kubernetes pkg/apis/rbac/validation: `field.Invalid(field.NewPath("roleRef"),
 * roleRef, "cannot change roleRef")`, the value printed as Go's %#v of rbac.RoleRef).
 */
function roleRefUnchanged(next: KubeObject, existing: KubeObject): FieldCause[] {
  const ref = (o: KubeObject) => (o.roleRef ?? {}) as { apiGroup?: string; kind?: string; name?: string };
  const a = ref(next);
  const b = ref(existing);
  if (a.apiGroup === b.apiGroup && a.kind === b.kind && a.name === b.name) return [];
  return [
    {
      field: 'roleRef',
      reason: 'FieldValueInvalid',
      message: `Invalid value: rbac.RoleRef{APIGroup:"${a.apiGroup ?? ''}", Kind:"${a.kind ?? ''}", Name:"${a.name ?? ''}"}: cannot change roleRef`,
    },
  ];
}

/** The built-in kinds of the emulator, in the order discovery lists them. */
export function builtinResourceTypes(platform: 'kubernetes' | 'openshift'): ResourceType[] {
  const types: ResourceType[] = [
    builtin({
      group: '',
      version: 'v1',
      kind: 'Namespace',
      plural: 'namespaces',
      namespaced: false,
      shortNames: ['ns'],
      subresources: ['status', 'finalize'],
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      applyDefaults: defaultNamespace,
    }),
    builtin({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', shortNames: ['cm'] }),
    builtin({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets', applyDefaults: defaultSecret }),
    builtin({
      group: '',
      version: 'v1',
      kind: 'Service',
      plural: 'services',
      shortNames: ['svc'],
      categories: ALL,
      subresources: ['status'],
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      applyDefaults: defaultService,
    }),
    builtin({
      group: '',
      version: 'v1',
      kind: 'ServiceAccount',
      plural: 'serviceaccounts',
      shortNames: ['sa'],
    }),
    builtin({
      group: '',
      version: 'v1',
      kind: 'Pod',
      plural: 'pods',
      shortNames: ['po'],
      categories: ALL,
      subresources: ['status', 'portforward', 'log'],
      applyDefaults: defaultPod,
    }),
    builtin({ group: '', version: 'v1', kind: 'Event', plural: 'events', shortNames: ['ev'] }),
    builtin({
      group: '',
      version: 'v1',
      kind: 'PersistentVolumeClaim',
      plural: 'persistentvolumeclaims',
      shortNames: ['pvc'],
      subresources: ['status'],
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      plural: 'deployments',
      shortNames: ['deploy'],
      categories: ALL,
      subresources: ['status', 'scale'],
      applyDefaults: defaultDeployment,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      kind: 'ReplicaSet',
      plural: 'replicasets',
      shortNames: ['rs'],
      categories: ALL,
      subresources: ['status', 'scale'],
      applyDefaults: defaultReplicaSet,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      kind: 'StatefulSet',
      plural: 'statefulsets',
      shortNames: ['sts'],
      categories: ALL,
      subresources: ['status', 'scale'],
      applyDefaults: defaultStatefulSet,
    }),
    // The emulator runs no job controller (a cluster whose controller-manager is stopped):
    // a Job is validated, defaulted, stored, listed and watched, and no pod runs it (docs/simulator-internals.md).
    builtin({
      group: 'batch',
      version: 'v1',
      kind: 'Job',
      plural: 'jobs',
      categories: ALL,
      subresources: ['status'],
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      applyDefaults: defaultJob,
      validate: validateJob,
    }),
    builtin({ group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', shortNames: ['ev'] }),
    builtin({
      group: 'authorization.k8s.io',
      version: 'v1',
      kind: 'SelfSubjectAccessReview',
      plural: 'selfsubjectaccessreviews',
      namespaced: false,
      verbs: ['create'],
      createOnly: true,
    }),
    builtin({
      group: 'authorization.k8s.io',
      version: 'v1',
      kind: 'SelfSubjectRulesReview',
      plural: 'selfsubjectrulesreviews',
      namespaced: false,
      verbs: ['create'],
      createOnly: true,
    }),
    builtin({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles' }),
    builtin({
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      kind: 'RoleBinding',
      plural: 'rolebindings',
      validateUpdate: roleRefUnchanged,
    }),
    builtin({
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      kind: 'ClusterRole',
      plural: 'clusterroles',
      namespaced: false,
    }),
    builtin({
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      kind: 'ClusterRoleBinding',
      plural: 'clusterrolebindings',
      namespaced: false,
      validateUpdate: roleRefUnchanged,
    }),
    builtin({
      group: 'policy',
      version: 'v1',
      kind: 'PodDisruptionBudget',
      plural: 'poddisruptionbudgets',
      shortNames: ['pdb'],
      subresources: ['status'],
    }),
    builtin({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      kind: 'ValidatingWebhookConfiguration',
      plural: 'validatingwebhookconfigurations',
      namespaced: false,
      categories: ['api-extensions'],
    }),
    builtin({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      subresources: ['status'],
      validate: validateCustomResourceDefinition,
      applyDefaults: (object: KubeObject) => {
        defaultCustomResourceDefinition(object);
        establishCustomResourceDefinition(object);
      },
    }),
    builtin({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases' }),
  ];
  if (platform === 'openshift') {
    types.push(
      builtin({
        group: 'security.openshift.io',
        version: 'v1',
        kind: 'SecurityContextConstraints',
        plural: 'securitycontextconstraints',
        namespaced: false,
        shortNames: ['scc'],
      }),
      // OpenShift's version (src/sim/world/cluster-version.ts seeds `version`).
      builtin({
        group: 'config.openshift.io',
        version: 'v1',
        kind: 'ClusterVersion',
        plural: 'clusterversions',
        namespaced: false,
      }),
    );
  }
  return types;
}

export function registerBuiltins(registry: ResourceRegistry, platform: 'kubernetes' | 'openshift'): void {
  for (const rt of builtinResourceTypes(platform)) registry.register(rt);
}
