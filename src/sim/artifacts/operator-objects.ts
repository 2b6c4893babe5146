/**
 * The operator's own Kubernetes objects, written for the simulator (nothing is copied from the
 * upstream manifests). The bundles and the helm chart are both built from these, so a bundle
 * install and a chart install deploy the same operator.
 */

import { admissionWebhookEntryName, admissionWebhookName } from '../world/releases.js';

export type Platform = 'kubernetes' | 'openshift';

export const OPERATOR_NAME = 'redis-enterprise-operator';
export const ADMISSION_SERVICE = 'admission';
export const OPERATOR_IMAGE_REPOSITORY = 'redislabs/operator';
export const OPERATOR_RHEL_IMAGE_REPOSITORY =
  'registry.connect.redhat.com/redislabs/redis-enterprise-operator';
/** The optional ConfigMap the real operator reads its environment from (redis-facts.md §3). */
export const OPERATOR_ENV_CONFIGMAP = 'operator-environment-config';

const LABELS = { app: 'redis-enterprise' } as const;

export type KubeManifest = Record<string, unknown>;

export function operatorImage(version: string, platform: Platform): string {
  const repository = platform === 'openshift' ? OPERATOR_RHEL_IMAGE_REPOSITORY : OPERATOR_IMAGE_REPOSITORY;
  return `${repository}:${version}`;
}

/** The namespaced Role the operator runs under; OpenShift adds routes and the nonroot SCC. */
export function operatorRole(platform: Platform): KubeManifest {
  const rules: KubeManifest[] = [
    { apiGroups: ['app.redislabs.com'], resources: ['*'], verbs: ['*'] },
    {
      apiGroups: [''],
      resources: [
        'pods',
        'pods/exec',
        'services',
        'endpoints',
        'persistentvolumeclaims',
        'configmaps',
        'secrets',
        'serviceaccounts',
        'events',
      ],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    },
    {
      apiGroups: ['apps'],
      resources: ['deployments', 'statefulsets', 'replicasets'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    },
    {
      apiGroups: ['policy'],
      resources: ['poddisruptionbudgets'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    },
    {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['roles', 'rolebindings'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
    },
    {
      apiGroups: ['networking.k8s.io'],
      resources: ['ingresses'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    },
  ];
  if (platform === 'openshift') {
    rules.push(
      {
        apiGroups: ['route.openshift.io'],
        resources: ['routes', 'routes/custom-host'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
      {
        apiGroups: ['security.openshift.io'],
        resources: ['securitycontextconstraints'],
        resourceNames: ['nonroot-v2'],
        verbs: ['use'],
      },
    );
  }
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: OPERATOR_NAME, labels: { ...LABELS } },
    rules,
  };
}

/** Subjects without a namespace mean the binding's own namespace: the bundle stays namespace-free. */
export function operatorRoleBinding(): KubeManifest {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: OPERATOR_NAME, labels: { ...LABELS } },
    subjects: [{ kind: 'ServiceAccount', name: OPERATOR_NAME }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: OPERATOR_NAME },
  };
}

export function operatorServiceAccount(): KubeManifest {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: OPERATOR_NAME, labels: { ...LABELS } },
  };
}

/** The admission webhook's Service: 443 on the Service, 8443 in the operator pod. */
export function admissionService(): KubeManifest {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: ADMISSION_SERVICE, labels: { ...LABELS } },
    spec: {
      selector: { name: OPERATOR_NAME },
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443 }],
    },
  };
}

/**
 * The operator Deployment: two containers from one image, `Recreate` so that two operator
 * versions never run side by side. `IS_OPENSHIFT` is always present so a chart can set it from
 * a value instead of adding and removing a list item.
 */
export function operatorDeployment(version: string, platform: Platform): KubeManifest {
  const image = operatorImage(version, platform);
  const selectorLabels = { name: OPERATOR_NAME };
  const env = [
    { name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: 'OPERATOR_NAME', value: OPERATOR_NAME },
    { name: 'IS_OPENSHIFT', value: platform === 'openshift' ? 'true' : 'false' },
  ];
  const envFrom = [{ configMapRef: { name: OPERATOR_ENV_CONFIGMAP, optional: true } }];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: OPERATOR_NAME, labels: { ...LABELS } },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selectorLabels },
      template: {
        metadata: { labels: { ...LABELS, ...selectorLabels } },
        spec: {
          serviceAccountName: OPERATOR_NAME,
          containers: [
            {
              name: OPERATOR_NAME,
              image,
              imagePullPolicy: 'IfNotPresent',
              command: ['operator-root', 'operator'],
              ports: [{ containerPort: 8080 }],
              livenessProbe: {
                httpGet: { path: '/liveness', port: 8080 },
                initialDelaySeconds: 15,
                periodSeconds: 30,
              },
              env,
              envFrom,
              resources: {
                requests: { cpu: '500m', memory: '256Mi' },
                limits: { cpu: '4000m', memory: '512Mi' },
              },
            },
            {
              name: 'admission',
              image,
              imagePullPolicy: 'IfNotPresent',
              command: ['operator-root', 'admission'],
              ports: [{ containerPort: 8443 }],
              env,
              envFrom,
              resources: {
                requests: { cpu: '250m', memory: '256Mi' },
                limits: { cpu: '250m', memory: '256Mi' },
              },
            },
          ],
        },
      },
    },
  };
}

/** The placeholder users replace with `sed` before applying webhook.yaml (6.4.2 and later). */
export const OPERATOR_NAMESPACE_PLACEHOLDER = 'OPERATOR_NAMESPACE';
/** Before 6.4.2 the webhook (then `redb-admission`) used this placeholder instead. */
export const LEGACY_NAMESPACE_PLACEHOLDER = 'NAMESPACE_OF_SERVICE_ACCOUNT';

export interface WebhookOptions {
  name?: string;
  namespace?: string;
  /** Restrict to database resources in the namespaces labelled `namespace-name: <ns>`. */
  limitToNamespace?: string;
  /** Written as "" by the bundle (filled in later from Secret admission-tls); omitted by the chart. */
  caBundle?: string | null;
}

/**
 * The ValidatingWebhookConfiguration that routes database resources to the operator's admission
 * container. `caBundle: null` leaves the field out so a later writer (the operator, or a user's
 * patch) owns it alone.
 */
export function admissionWebhook(version: string, options: WebhookOptions = {}): KubeManifest {
  const name = admissionWebhookName(version);
  const legacy = name === 'redb-admission';
  const clientConfig: KubeManifest = {
    service: {
      name: ADMISSION_SERVICE,
      path: '/admission',
      namespace:
        options.namespace ?? (legacy ? LEGACY_NAMESPACE_PLACEHOLDER : OPERATOR_NAMESPACE_PLACEHOLDER),
    },
  };
  const caBundle = options.caBundle === undefined ? '' : options.caBundle;
  if (caBundle !== null) clientConfig.caBundle = caBundle;
  const webhook: KubeManifest = {
    name: admissionWebhookEntryName(version),
    admissionReviewVersions: ['v1beta1'],
    clientConfig,
    failurePolicy: 'Fail',
    matchPolicy: 'Exact',
    sideEffects: 'None',
    timeoutSeconds: 30,
    rules: [
      {
        apiGroups: ['app.redislabs.com'],
        apiVersions: ['v1alpha1'],
        operations: ['CREATE', 'UPDATE'],
        resources: [
          'redisenterprisedatabases',
          'redisenterpriseactiveactivedatabases',
          'redisenterpriseremoteclusters',
        ],
      },
    ],
  };
  if (options.limitToNamespace) {
    webhook.namespaceSelector = { matchLabels: { 'namespace-name': options.limitToNamespace } };
  }
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: options.name ?? name, labels: { ...LABELS } },
    webhooks: [webhook],
  };
}

export const REDB_ROLE = 'redb-role';
/** Placeholders of the multi-namespace role binding, replaced per watched namespace. */
export const SERVICE_ACCOUNT_NAMESPACE_PLACEHOLDER = 'NAMESPACE_OF_SERVICE_ACCOUNT';
export const REC_SERVICE_ACCOUNT_PLACEHOLDER = 'NAME_OF_REC_SERVICE_ACCOUNT';

/** What the operator and the cluster may do with databases in a namespace they watch. */
export function redbRole(): KubeManifest {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: REDB_ROLE, labels: { ...LABELS } },
    rules: [
      {
        apiGroups: ['app.redislabs.com'],
        resources: [
          'redisenterprisedatabases',
          'redisenterprisedatabases/status',
          'redisenterprisedatabases/finalizers',
          'redisenterpriseactiveactivedatabases',
          'redisenterpriseactiveactivedatabases/status',
          'redisenterpriseactiveactivedatabases/finalizers',
        ],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
      {
        apiGroups: [''],
        resources: ['secrets', 'services'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
    ],
  };
}

export function redbRoleBinding(): KubeManifest {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: REDB_ROLE, labels: { ...LABELS } },
    subjects: [
      { kind: 'ServiceAccount', name: OPERATOR_NAME, namespace: SERVICE_ACCOUNT_NAMESPACE_PLACEHOLDER },
      {
        kind: 'ServiceAccount',
        name: REC_SERVICE_ACCOUNT_PLACEHOLDER,
        namespace: SERVICE_ACCOUNT_NAMESPACE_PLACEHOLDER,
      },
    ],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: REDB_ROLE },
  };
}
