import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildTable,
  evaluateJsonPath,
  humanDuration,
  type KubeObject,
  shortHumanDuration,
  type TableColumnSpec,
} from '../../../../src/sim/kube/table.js';

/**
 * The printer columns of the REC and REDB storage versions as the real CRDs declare them (every
 * column a string but Age; redis-facts.md section 2). test/upstream/table.test.ts builds the same
 * table from the upstream CRD itself.
 */
const column = (name: string, jsonPath: string, type = 'string'): TableColumnSpec => ({
  name,
  type,
  jsonPath,
});
const REC_COLUMNS: TableColumnSpec[] = [
  column('Nodes', '.spec.nodes'),
  column('Shards', '.status.licenseStatus.shardsUsage'),
  column('Version', '.spec.redisEnterpriseImageSpec.versionTag'),
  column('State', '.status.state'),
  column('Spec Status', '.status.specStatus'),
  column('License State', '.status.licenseStatus.licenseState'),
  column('License Expiration Date', '.status.licenseStatus.expirationDate'),
  column('Age', '.metadata.creationTimestamp', 'date'),
];
const REDB_COLUMNS: TableColumnSpec[] = [
  column('Version', '.status.version'),
  column('Port', '.status.internalEndpoints[*].port'),
  column('Cluster', '.status.redisEnterpriseCluster'),
  column('Shards', '.status.shardStatuses.active'),
  column('Status', '.status.status'),
  column('Spec Status', '.status.specStatus'),
  column('Age', '.metadata.creationTimestamp', 'date'),
];

const now = new Date('2026-11-21T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('durations', () => {
  it('prints ages like duration.HumanDuration', () => {
    const cases: [number, string][] = [
      [-5 * S, '<invalid>'],
      [-1500, '0s'],
      [0, '0s'],
      [45 * S, '45s'],
      [119 * S, '119s'],
      [2 * M, '2m'],
      [5 * M + 3 * S, '5m3s'],
      [9 * M + 59 * S, '9m59s'],
      [10 * M + 30 * S, '10m'],
      [179 * M, '179m'],
      [3 * H, '3h'],
      [3 * H + 12 * M, '3h12m'],
      [7 * H + 59 * M, '7h59m'],
      [8 * H + 30 * M, '8h'],
      [47 * H, '47h'],
      [2 * D, '2d'],
      [2 * D + 3 * H, '2d3h'],
      [7 * D + 23 * H, '7d23h'],
      [8 * D + 5 * H, '8d'],
      [729 * D, '729d'],
      [730 * D, '2y'],
      [3 * 365 * D + 12 * D, '3y12d'],
      [9 * 365 * D + 40 * D, '9y'],
    ];
    for (const [ms, expected] of cases) assert.equal(humanDuration(ms), expected, `${ms} ms`);
  });

  it('prints short ages like duration.ShortHumanDuration', () => {
    const cases: [number, string][] = [
      [-5 * S, '<invalid>'],
      [-1 * S, '0s'],
      [45 * S, '45s'],
      [5 * M + 3 * S, '5m'],
      [3 * H + 12 * M, '3h'],
      [2 * D + 3 * H, '2d'],
      [400 * D, '1y'],
    ];
    for (const [ms, expected] of cases) assert.equal(shortHumanDuration(ms), expected, `${ms} ms`);
  });
});

describe('evaluateJsonPath', () => {
  const object = {
    status: {
      internalEndpoints: [{ port: 12000 }, { port: 12001 }],
      conditions: [{ type: 'Ready', status: 'True' }],
    },
    metadata: { labels: { 'app.kubernetes.io/name': 'x' } },
  };
  it('supports the Kubernetes JSONPath forms printer columns use', () => {
    assert.deepEqual(evaluateJsonPath(object, '.status.internalEndpoints[*].port'), [12000, 12001]);
    assert.deepEqual(evaluateJsonPath(object, '{.status.internalEndpoints[1].port}'), [12001]);
    assert.deepEqual(evaluateJsonPath(object, '.status.conditions[?(@.type=="Ready")].status'), ['True']);
    assert.deepEqual(evaluateJsonPath(object, ".metadata.labels['app.kubernetes.io/name']"), ['x']);
    assert.deepEqual(evaluateJsonPath(object, '.status.missing.deeper'), []);
  });
});

describe('buildTable for custom resources', () => {
  const recColumns = REC_COLUMNS;
  const redbColumns = REDB_COLUMNS;

  const rec: KubeObject = {
    apiVersion: 'app.redislabs.com/v1',
    kind: 'RedisEnterpriseCluster',
    metadata: {
      name: 'rec',
      namespace: 'redis',
      creationTimestamp: ago(92 * M),
      uid: 'u1',
    },
    spec: { nodes: 3, redisEnterpriseImageSpec: { versionTag: '8.0.2-17' } },
    status: {
      state: 'Upgrade',
      specStatus: 'Valid',
      licenseStatus: {
        licenseState: 'Valid',
        shardsUsage: '4',
        expirationDate: '2022-07-16T13:59:00Z',
      },
    },
  };

  it('shows Name then the REC printer columns of redis-facts.md section 2', () => {
    const table = buildTable([rec], recColumns, 'RedisEnterpriseCluster', now);
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(
      table.columnDefinitions.map((c) => c.name),
      [
        'Name',
        'Nodes',
        'Shards',
        'Version',
        'State',
        'Spec Status',
        'License State',
        'License Expiration Date',
        'Age',
      ],
    );
    assert.equal(table.columnDefinitions[0]?.format, 'name');
    assert.equal(table.columnDefinitions.at(-1)?.type, 'date');
    // The DOCS sample line: rec 3 8.0.2-17 Upgrade Valid Valid ... 92m (with the 7.8.6-2+ Shards column).
    assert.deepEqual(table.rows[0]?.cells, [
      'rec',
      '3',
      '4',
      '8.0.2-17',
      'Upgrade',
      'Valid',
      'Valid',
      '2022-07-16T13:59:00Z',
      '92m',
    ]);
    assert.deepEqual(table.rows[0]?.object, {
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: rec.metadata,
    });
  });

  it('leaves missing values as null cells (a fresh REC has no status)', () => {
    const fresh: KubeObject = {
      ...rec,
      status: undefined,
      metadata: { ...rec.metadata, creationTimestamp: ago(5 * S) },
    };
    const table = buildTable([fresh], recColumns, 'RedisEnterpriseCluster', now);
    assert.deepEqual(table.rows[0]?.cells, ['rec', '3', null, '8.0.2-17', null, null, null, null, '5s']);
  });

  it('shows the REDB printer columns, with the first port of internalEndpoints as the API server does', () => {
    const redb: KubeObject = {
      metadata: { name: 'db1', creationTimestamp: ago(2 * D + 3 * H) },
      status: {
        version: '7.4.0',
        internalEndpoints: [
          { host: 'db1', port: 12000 },
          { host: 'db1-headless', port: 12001 },
        ],
        redisEnterpriseCluster: 'rec',
        shardStatuses: { active: 2 },
        status: 'active',
        specStatus: 'Valid',
      },
    };
    const table = buildTable([redb], redbColumns, 'RedisEnterpriseDatabase', now);
    assert.deepEqual(
      table.columnDefinitions.map((c) => c.name),
      ['Name', 'Version', 'Port', 'Cluster', 'Shards', 'Status', 'Spec Status', 'Age'],
    );
    assert.deepEqual(table.rows[0]?.cells, ['db1', '7.4.0', '12000', 'rec', '2', 'active', 'Valid', '2d3h']);
  });

  it('types cells by column type and serves the default Age column when a CRD has none', () => {
    const columns: TableColumnSpec[] = [
      { name: 'Count', type: 'integer', jsonPath: '.spec.count' },
      { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
      { name: 'On', type: 'boolean', jsonPath: '.spec.on' },
      { name: 'Bad', type: 'integer', jsonPath: '.spec.text' },
      { name: 'Map', type: 'string', jsonPath: '.spec.map', priority: 1 },
      { name: 'When', type: 'date', jsonPath: '.spec.text' },
    ];
    const object: KubeObject = {
      metadata: { name: 'x' },
      spec: {
        count: 4.7,
        ratio: 0.5,
        on: false,
        text: 'soon',
        map: { b: 1, a: [true] },
      },
    };
    const table = buildTable([object], columns, 'Thing', now);
    assert.deepEqual(table.rows[0]?.cells, ['x', 4, 0.5, false, null, '{"a":[true],"b":1}', '<invalid>']);
    assert.equal(table.columnDefinitions[5]?.priority, 1);
    assert.equal(
      table.columnDefinitions[1]?.description,
      'Custom resource definition column (in JSONPath format): .spec.count',
    );

    const defaulted = buildTable(
      [{ metadata: { name: 'y', creationTimestamp: ago(45 * S) } }],
      [],
      'Thing',
      now,
    );
    assert.deepEqual(
      defaulted.columnDefinitions.map((c) => c.name),
      ['Name', 'Age'],
    );
    assert.deepEqual(defaulted.rows[0]?.cells, ['y', '45s']);
  });
});

describe('buildTable for built-in kinds', () => {
  const names = (kind: string, serverMinor?: number) =>
    buildTable([], undefined, kind, now, serverMinor).columnDefinitions.map((c) =>
      c.priority ? `(${c.name})` : c.name,
    );

  it('computes the Deployment READY column and the -o wide columns', () => {
    const deployment: KubeObject = {
      kind: 'Deployment',
      metadata: {
        name: 'redis-enterprise-operator',
        creationTimestamp: ago(5 * M),
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: { name: 'redis-enterprise-operator' } },
        template: {
          spec: {
            containers: [
              {
                name: 'redis-enterprise-operator',
                image: 'redislabs/operator:7.4.6-2',
              },
              { name: 'admission', image: 'redislabs/operator:7.4.6-2' },
            ],
          },
        },
      },
      status: { updatedReplicas: 1, availableReplicas: 0 },
    };
    assert.deepEqual(names('Deployment'), [
      'Name',
      'Ready',
      'Up-to-date',
      'Available',
      'Age',
      '(Containers)',
      '(Images)',
      '(Selector)',
    ]);
    assert.deepEqual(buildTable([deployment], undefined, 'Deployment', now).rows[0]?.cells, [
      'redis-enterprise-operator',
      '0/1',
      1,
      0,
      '5m',
      'redis-enterprise-operator,admission',
      'redislabs/operator:7.4.6-2,redislabs/operator:7.4.6-2',
      'name=redis-enterprise-operator',
    ]);
    const ready = {
      ...deployment,
      status: { readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1 },
    };
    assert.equal(buildTable([ready], undefined, 'Deployment', now).rows[0]?.cells[1], '1/1');
  });

  it('prints StatefulSets, ReplicaSets, Secrets, ConfigMaps and Namespaces', () => {
    const template = {
      spec: {
        containers: [{ name: 'redis-enterprise-node', image: 'redislabs/redis:7.4.6-22' }],
      },
    };
    const statefulSet: KubeObject = {
      metadata: { name: 'rec', creationTimestamp: ago(3 * H) },
      spec: { replicas: 3, template },
      status: { readyReplicas: 2 },
    };
    assert.deepEqual(names('StatefulSet'), ['Name', 'Ready', 'Age', '(Containers)', '(Images)']);
    assert.deepEqual(buildTable([statefulSet], undefined, 'StatefulSet', now).rows[0]?.cells, [
      'rec',
      '2/3',
      '3h',
      'redis-enterprise-node',
      'redislabs/redis:7.4.6-22',
    ]);

    const replicaSet: KubeObject = {
      metadata: { name: 'op-5d9c', creationTimestamp: ago(10 * M) },
      spec: {
        replicas: 1,
        template,
        selector: {
          matchLabels: { name: 'op' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }],
        },
      },
      status: { replicas: 1, readyReplicas: 1 },
    };
    assert.deepEqual(names('ReplicaSet'), [
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Age',
      '(Containers)',
      '(Images)',
      '(Selector)',
    ]);
    assert.deepEqual(buildTable([replicaSet], undefined, 'ReplicaSet', now).rows[0]?.cells, [
      'op-5d9c',
      1,
      1,
      1,
      '10m',
      'redis-enterprise-node',
      'redislabs/redis:7.4.6-22',
      'name=op,tier in (a,b)',
    ]);

    const secret: KubeObject = {
      metadata: {
        name: 'sh.helm.release.v1.redis-enterprise.v1',
        creationTimestamp: ago(30 * S),
      },
      type: 'helm.sh/release.v1',
      data: { release: 'H4sI' },
    };
    assert.deepEqual(names('Secret'), ['Name', 'Type', 'Data', 'Age']);
    assert.deepEqual(buildTable([secret], undefined, 'Secret', now).rows[0]?.cells, [
      'sh.helm.release.v1.redis-enterprise.v1',
      'helm.sh/release.v1',
      1,
      '30s',
    ]);

    const configMap: KubeObject = {
      metadata: { name: 'cm', creationTimestamp: ago(1 * D) },
      data: { a: '1', b: '2' },
      binaryData: { c: 'AA==' },
    };
    assert.deepEqual(names('ConfigMap'), ['Name', 'Data', 'Age']);
    assert.deepEqual(buildTable([configMap], undefined, 'ConfigMap', now).rows[0]?.cells, ['cm', 3, '24h']);

    const namespace: KubeObject = {
      metadata: { name: 'redis', creationTimestamp: ago(9 * D) },
      status: { phase: 'Active' },
    };
    assert.deepEqual(names('Namespace'), ['Name', 'Status', 'Age']);
    assert.deepEqual(buildTable([namespace], undefined, 'Namespace', now).rows[0]?.cells, [
      'redis',
      'Active',
      '9d',
    ]);
  });

  it('prints Pods with their aggregate status', () => {
    assert.deepEqual(names('Pod'), [
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      '(IP)',
      '(Node)',
      '(Nominated Node)',
      '(Readiness Gates)',
    ]);
    const pod = (status: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject => ({
      metadata: { name: 'rec-0', creationTimestamp: ago(20 * M), ...extra },
      spec: {
        containers: [{ name: 'redis-enterprise-node' }, { name: 'bootstrapper' }],
        nodeName: 'node-1',
      },
      status,
    });
    const cells = (p: KubeObject) => buildTable([p], undefined, 'Pod', now).rows[0]?.cells.slice(0, 5);
    const running = { running: { startedAt: ago(19 * M) } };

    assert.deepEqual(
      cells(
        pod({
          phase: 'Running',
          containerStatuses: [
            {
              name: 'redis-enterprise-node',
              ready: true,
              restartCount: 0,
              state: running,
            },
            {
              name: 'bootstrapper',
              ready: true,
              restartCount: 0,
              state: running,
            },
          ],
        }),
      ),
      ['rec-0', '2/2', 'Running', '0', '20m'],
    );
    assert.deepEqual(
      cells(
        pod({
          phase: 'Running',
          containerStatuses: [
            {
              name: 'redis-enterprise-node',
              ready: false,
              restartCount: 0,
              state: running,
            },
            {
              name: 'bootstrapper',
              ready: false,
              restartCount: 3,
              state: { waiting: { reason: 'CrashLoopBackOff' } },
              lastState: {
                terminated: { exitCode: 1, finishedAt: ago(2 * M) },
              },
            },
          ],
        }),
      ),
      ['rec-0', '0/2', 'CrashLoopBackOff', '3 (2m ago)', '20m'],
    );
    assert.deepEqual(cells(pod({ phase: 'Pending' })), ['rec-0', '0/2', 'Pending', '0', '20m']);
    assert.deepEqual(cells(pod({ phase: 'Running' }, { deletionTimestamp: ago(0) })), [
      'rec-0',
      '0/2',
      'Terminating',
      '0',
      '20m',
    ]);
    const wide = buildTable([pod({ phase: 'Pending', podIP: '10.0.0.7' })], undefined, 'Pod', now).rows[0]
      ?.cells;
    assert.deepEqual(wide?.slice(5), ['10.0.0.7', 'node-1', '<none>', '<none>']);
  });

  it('prints Events with LAST SEEN, TYPE, REASON, OBJECT and MESSAGE', () => {
    const event: KubeObject = {
      metadata: { name: 'rec.1789', creationTimestamp: ago(10 * M) },
      involvedObject: {
        kind: 'RedisEnterpriseCluster',
        name: 'rec',
        namespace: 'redis',
      },
      reason: 'InvalidUpgrade',
      message: 'upgrade will not start while state is Upgrade \n',
      type: 'Warning',
      firstTimestamp: ago(10 * M),
      lastTimestamp: ago(45 * S),
      count: 4,
      source: { component: 'redis-enterprise-operator' },
    };
    const table = buildTable([event], undefined, 'Event', now);
    assert.deepEqual(
      table.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name),
      ['Last Seen', 'Type', 'Reason', 'Object', 'Message'],
    );
    assert.deepEqual(table.rows[0]?.cells, [
      '45s',
      'Warning',
      'InvalidUpgrade',
      'redisenterprisecluster/rec',
      '',
      'redis-enterprise-operator',
      'upgrade will not start while state is Upgrade',
      '10m',
      4,
      'rec.1789',
    ]);
  });

  it('prints other kinds as the API server does, and unknown kinds as NAME and AGE', () => {
    assert.deepEqual(names('ValidatingWebhookConfiguration'), ['Name', 'Webhooks', 'Age']);
    assert.deepEqual(names('Role'), ['Name', 'Created At']);
    const role: KubeObject = {
      metadata: {
        name: 'redb-role',
        creationTimestamp: '2026-11-20T10:00:00Z',
      },
    };
    assert.deepEqual(buildTable([role], undefined, 'Role', now).rows[0]?.cells, [
      'redb-role',
      '2026-11-20T10:00:00Z',
    ]);
    const service: KubeObject = {
      metadata: { name: 'admission', creationTimestamp: ago(H) },
      spec: {
        clusterIP: '10.96.0.10',
        ports: [{ port: 443, protocol: 'TCP' }],
        selector: { name: 'op' },
      },
    };
    assert.deepEqual(buildTable([service], undefined, 'Service', now).rows[0]?.cells, [
      'admission',
      'ClusterIP',
      '10.96.0.10',
      '<none>',
      '443/TCP',
      '60m',
      'name=op',
    ]);
    assert.deepEqual(names('SecurityContextConstraints'), ['Name', 'Age']);
    // A kind without a printer of its own (Lease and PodDisruptionBudget have theirs now).
    const missingTimestamp = buildTable(
      [{ metadata: { name: 'z' } }],
      undefined,
      'SecurityContextConstraints',
      now,
    );
    assert.deepEqual(missingTimestamp.rows[0]?.cells, ['z', '<unknown>']);
  });

  it('gives a Job the status printJob picks: Complete, Failed, Terminating, Suspended, FailureTarget, Running', () => {
    assert.deepEqual(names('Job'), [
      'Name',
      'Status',
      'Completions',
      'Duration',
      'Age',
      '(Containers)',
      '(Images)',
      '(Selector)',
    ]);
    const status = (job: Partial<KubeObject>) =>
      buildTable([{ metadata: { name: 'j' }, ...job }], undefined, 'Job', now).rows[0]?.cells[1];
    const is = (type: string, value = 'True') => ({ status: { conditions: [{ type, status: value }] } });
    assert.equal(status(is('Complete')), 'Complete');
    assert.equal(status(is('Failed')), 'Failed');
    // Only a True condition counts; the deletion comes before Suspended and FailureTarget.
    assert.equal(status(is('Complete', 'False')), 'Running');
    assert.equal(
      status({ metadata: { name: 'j', deletionTimestamp: ago(1) }, ...is('Suspended') }),
      'Terminating',
    );
    assert.equal(status(is('Suspended')), 'Suspended');
    assert.equal(status(is('FailureTarget')), 'FailureTarget');
    assert.equal(status({}), 'Running');
  });

  it("prints a Job's Status column only for servers of 1.30 and later, as printJob does there", () => {
    const before = ['Name', 'Completions', 'Duration', 'Age', '(Containers)', '(Images)', '(Selector)'];
    assert.deepEqual(names('Job', 28), before);
    assert.deepEqual(names('Job', 29), before);
    assert.deepEqual(names('Job', 30), ['Name', 'Status', ...before.slice(1)]);
    assert.deepEqual(names('Job', 35), names('Job'));
    const job: KubeObject = {
      metadata: { name: 'migrate', creationTimestamp: ago(2 * M) },
      spec: {
        completions: 1,
        selector: { matchLabels: { 'batch.kubernetes.io/job-name': 'migrate' } },
        template: { spec: { containers: [{ name: 'run', image: 'busybox' }] } },
      },
      status: {
        startTime: ago(90 * S),
        completionTime: ago(30 * S),
        succeeded: 1,
        conditions: [{ type: 'Complete', status: 'True' }],
      },
    };
    const tail = ['1/1', '60s', '2m', 'run', 'busybox', 'batch.kubernetes.io/job-name=migrate'];
    assert.deepEqual(buildTable([job], undefined, 'Job', now, 28).rows[0]?.cells, ['migrate', ...tail]);
    assert.deepEqual(buildTable([job], undefined, 'Job', now, 32).rows[0]?.cells, [
      'migrate',
      'Complete',
      ...tail,
    ]);
  });

  it('prints a PodDisruptionBudget as printPodDisruptionBudget does: bounds or N/A, allowed disruptions', () => {
    assert.deepEqual(names('PodDisruptionBudget'), [
      'Name',
      'Min Available',
      'Max Unavailable',
      'Allowed Disruptions',
      'Age',
    ]);
    assert.equal(buildTable([], undefined, 'PodDisruptionBudget', now).columnDefinitions[3]?.type, 'integer');
    const pdb = (spec: Record<string, unknown>, status?: Record<string, unknown>): unknown[] | undefined =>
      buildTable(
        [{ metadata: { name: 'rec', creationTimestamp: ago(3 * H) }, spec, ...(status ? { status } : {}) }],
        undefined,
        'PodDisruptionBudget',
        now,
      ).rows[0]?.cells;
    assert.deepEqual(pdb({ maxUnavailable: 1 }, { disruptionsAllowed: 1 }), ['rec', 'N/A', '1', 1, '3h']);
    assert.deepEqual(pdb({ minAvailable: '50%' }, { disruptionsAllowed: 0 }), ['rec', '50%', 'N/A', 0, '3h']);
    // A new PDB has no status yet: no disruption is allowed.
    assert.deepEqual(pdb({ minAvailable: 2 }), ['rec', '2', 'N/A', 0, '3h']);
  });

  it('prints a PersistentVolumeClaim as printPersistentVolumeClaim does, VolumeAttributesClass from 1.29 on', () => {
    const before = [
      'Name',
      'Status',
      'Volume',
      'Capacity',
      'Access Modes',
      'StorageClass',
      'Age',
      '(VolumeMode)',
    ];
    assert.deepEqual(names('PersistentVolumeClaim', 28), before);
    const withClass = [...before.slice(0, 6), 'VolumeAttributesClass', ...before.slice(6)];
    assert.deepEqual(names('PersistentVolumeClaim', 29), withClass);
    assert.deepEqual(names('PersistentVolumeClaim'), withClass);
    const bound: KubeObject = {
      metadata: { name: 'redis-storage-rec-0', creationTimestamp: ago(D) },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '10Gi' } },
        storageClassName: 'standard',
        volumeName: 'pvc-0a1b',
        volumeMode: 'Filesystem',
      },
      status: {
        phase: 'Bound',
        // Given out of order and twice: the cell names each once, RWO first.
        accessModes: ['ReadWriteOncePod', 'ReadWriteOnce', 'ReadWriteOnce'],
        capacity: { storage: '12Gi' },
      },
    };
    const cells = (claim: KubeObject, minor?: number) =>
      buildTable([claim], undefined, 'PersistentVolumeClaim', now, minor).rows[0]?.cells;
    assert.deepEqual(cells(bound), [
      'redis-storage-rec-0',
      'Bound',
      'pvc-0a1b',
      '12Gi',
      'RWO,RWOP',
      'standard',
      '<unset>',
      '24h',
      'Filesystem',
    ]);
    assert.deepEqual(cells(bound, 28), [
      'redis-storage-rec-0',
      'Bound',
      'pvc-0a1b',
      '12Gi',
      'RWO,RWOP',
      'standard',
      '24h',
      'Filesystem',
    ]);
    // Unbound: no capacity or modes yet (the request is not shown); the beta annotation's class
    // wins over spec.storageClassName; a set attributes class; a deleted claim is Terminating.
    const pending: KubeObject = {
      metadata: {
        name: 'data',
        creationTimestamp: ago(5 * S),
        deletionTimestamp: ago(1 * S),
        annotations: { 'volume.beta.kubernetes.io/storage-class': 'fast' },
      },
      spec: {
        resources: { requests: { storage: '1Gi' } },
        storageClassName: 'standard',
        volumeAttributesClassName: 'gold',
      },
      status: { phase: 'Pending' },
    };
    assert.deepEqual(cells(pending), ['data', 'Terminating', '', '', '', 'fast', 'gold', '5s', '<unset>']);
  });

  it('prints a Lease without a holder with an empty Holder cell, as printLease does', () => {
    assert.deepEqual(names('Lease'), ['Name', 'Holder', 'Age']);
    const lease = buildTable([{ metadata: { name: 'z' }, spec: {} }], undefined, 'Lease', now);
    assert.deepEqual(lease.rows[0]?.cells, ['z', '', '<unknown>']);
  });
});
