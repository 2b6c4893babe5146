/**
 * A healthy snapshot to start tests from: operator 7.4.6-2 installed from the bundle, cluster
 * `rec` in `redis` on 7.4.6-22 (Running, licence Valid, 3 nodes), the admission webhook
 * trusting admission-tls, one database on 7.2 using search 2.8.4 (rhel8 and rhel9 builds),
 * every permission granted. Tests change what they exercise through `mutate`.
 */

import { type PermissionCondition, requiredPermissionQueries } from '../../../src/planning/permissions.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { resolveTarget, type TargetFlags } from '../../../src/planning/target.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';

const CERT = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');

export function makeSnapshot(mutate: (s: Snapshot) => void = () => {}): Snapshot {
  const snapshot: Snapshot = {
    context: 'sim',
    kubeTarget: {},
    namespace: 'redis',
    dialect: 'redis',
    dialectSource: 'cluster',
    platform: 'kubernetes',
    kubernetesVersion: 'v1.32.0',
    clusterCandidates: ['rec'],
    cluster: {
      uid: 'uid-rec',
      resourceVersion: '100',
      generation: 1,
      name: 'rec',
      namespace: 'redis',
      apiVersion: 'app.redislabs.com/v1',
      state: 'Running',
      specStatus: 'Valid',
      nodes: 3,
      image: { repository: 'redislabs/redis', versionTag: '7.4.6-22', imagePullPolicy: 'IfNotPresent' },
      otherImages: {},
      autoUpgrade: false,
      license: { state: 'Valid', expirationDate: '2030-01-01T00:00:00Z' },
      bundledDatabaseVersions: [
        { dbType: 'redis', version: '6.0.20' },
        { dbType: 'redis', version: '6.2.13' },
        { dbType: 'redis', version: '7.2.4', major: true },
      ],
      serviceAccountName: 'rec',
      allowAutoAdjustment: false,
      userDefinedModules: [],
      credentialSecretName: 'rec',
    },
    operator: {
      uid: 'uid-op',
      resourceVersion: '50',
      generation: 1,
      deploymentName: 'redis-enterprise-operator',
      namespace: 'redis',
      image: 'redislabs/operator:7.4.6-2',
      version: '7.4.6-2',
      replicas: 1,
      readyReplicas: 1,
      openshiftBundle: false,
    },
    operatorConfig: {},
    watchedNamespaces: ['redis'],
    statefulSet: {
      name: 'rec',
      replicas: 3,
      readyReplicas: 3,
      updatedReplicas: 3,
      currentRevision: 'rec-1',
      updateRevision: 'rec-1',
      generation: 1,
      observedGeneration: 1,
    },
    pods: [0, 1, 2].map((i) => ({
      name: `rec-${i}`,
      phase: 'Running',
      ready: true,
      image: 'redislabs/redis:7.4.6-22',
    })),
    databases: [
      {
        uid: 'uid-db1',
        resourceVersion: '200',
        generation: 1,
        name: 'db1',
        namespace: 'redis',
        versionSpec: '7.2',
        statusVersion: '7.2.4',
        status: 'active',
        databaseUid: '1',
        modules: [{ name: 'search', version: '2.8.4' }],
      },
    ],
    activeActiveDatabases: [],
    webhooks: [
      {
        name: 'redis-enterprise-admission',
        uid: 'uid-wh',
        generation: 1,
        webhooks: [
          { name: 'redisenterprise.admission.redislabs', caBundle: CERT, serviceNamespace: 'redis' },
        ],
      },
    ],
    admissionTls: { name: 'admission-tls', present: true, cert: CERT, resourceVersion: '10' },
    credentials: { name: 'rec', present: true, hasUsername: true, hasPassword: true },
    api: {
      reachable: true,
      modules: [
        {
          uid: 'm1',
          module_name: 'search',
          semantic_version: '2.8.4',
          platforms: { 'rhel8/x86_64': {}, 'rhel9/x86_64': {} },
        },
      ],
      bdbs: [
        {
          uid: 1,
          name: 'db1',
          redis_version: '7.2',
          module_list: [{ module_name: 'search', semantic_version: '2.8.4' }],
        },
      ],
      nodes: [1, 2, 3].map((uid) => ({ uid, software_version: '7.4.6-22', status: 'active' })),
      // db1: replicated, its master on node 1 and its replica on node 2.
      shards: {
        read: true,
        shards: [
          { bdbUid: 1, nodeUid: 1, role: 'master', slots: '0-16383' },
          { bdbUid: 1, nodeUid: 2, role: 'slave', slots: '0-16383' },
        ],
      },
    },
    permissions: [],
    readErrors: [],
  };
  mutate(snapshot);
  if (snapshot.permissions.length === 0) snapshot.permissions = grantEverything(snapshot);
  return snapshot;
}

/** Every permission any method could need, granted. */
export function grantEverything(snapshot: Snapshot): Snapshot['permissions'] {
  const conditions = new Set<PermissionCondition>([
    'always',
    'helm',
    'bundle',
    'openshift',
    'admission',
    'multi-namespace',
    'namespace-label',
    'user-defined-modules',
  ]);
  return requiredPermissionQueries(REQUIRED_PERMISSIONS, {
    namespace: snapshot.namespace,
    watchedNamespaces: snapshot.watchedNamespaces,
    conditions,
  }).map((q) => ({ ...q, allowed: true }));
}

export function makeTarget(flags: Partial<TargetFlags> = {}) {
  return resolveTarget({ to: '7.8.2-6', ...flags });
}
