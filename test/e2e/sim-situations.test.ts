/**
 * The scenario keys for real-world situations (SIMULATOR.md), each driven with the real kubectl
 * or helm against the simulated cluster, as a user would meet them.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import {
  applyOperatorBundle,
  eventually,
  FormData,
  type SimHarness,
  startHarness,
  versionTagPatch,
  warningEvents,
} from './sim-support.js';

async function json<T>(sim: SimHarness, args: string[]): Promise<T> {
  return JSON.parse((await sim.kubectl([...args, '-o', 'json'])).stdout) as T;
}

interface StatefulSetView {
  spec: { updateStrategy: { type: string } };
  status: {
    currentRevision?: string;
    updateRevision?: string;
    updatedReplicas?: number;
    readyReplicas?: number;
  };
}

interface PodList {
  items: {
    metadata: { name: string; labels: Record<string, string> };
    spec: { containers: { image: string }[] };
  }[];
}

describe('sim: cluster.statefulSetStrategy OnDelete (ondelete-statefulset)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('ondelete-statefulset');
  });
  after(async () => {
    await sim?.close();
  });

  test('the rollout completes pod by pod, and currentRevision is never promoted', async () => {
    const before = await json<StatefulSetView>(sim, ['get', 'sts', 'rec']);
    assert.equal(before.spec.updateStrategy.type, 'OnDelete');
    await sim.kubectl(['patch', 'rec', 'rec', '--type', 'merge', '-p', versionTagPatch(sim, '7.4.6-102')]);
    // Fast timing: the rollout may be over before a wait for Upgrade could see it.
    // The REC is read first and the StatefulSet last, and the wait asks the StatefulSet itself
    // for ready pods: read the other way round, a last pod could turn ready between the two
    // reads and leave a StatefulSet view with 2 ready of 3 (a CI run saw it).
    const after = await eventually('the rollout to finish on the new revision, 3 pods ready', async () => {
      const state = (await sim.kubectl(['get', 'rec', 'rec', '-o', 'jsonpath={.status.state}'])).stdout;
      const sts = await json<StatefulSetView>(sim, ['get', 'sts', 'rec']);
      const moved = sts.status.updateRevision !== before.status.updateRevision;
      const rolled = sts.status.updatedReplicas === 3 && sts.status.readyReplicas === 3;
      return moved && rolled && state === 'Running' ? sts : undefined;
    });
    assert.equal(after.status.updatedReplicas, 3);
    assert.equal(after.status.readyReplicas, 3);
    assert.notEqual(after.status.updateRevision, before.status.updateRevision);
    // Kubernetes #73492/#106055: OnDelete leaves currentRevision at the old revision.
    assert.equal(after.status.currentRevision, before.status.currentRevision);
    assert.notEqual(after.status.currentRevision, after.status.updateRevision);
    const pods = await json<PodList>(sim, ['get', 'pods', '-l', 'redis.io/cluster=rec']);
    assert.equal(pods.items.length, 3);
    for (const pod of pods.items) {
      assert.equal(
        pod.metadata.labels['controller-revision-hash'],
        after.status.updateRevision,
        pod.metadata.name,
      );
      assert.match(pod.spec.containers[0]?.image ?? '', /:7\.4\.6-102$/);
    }
  });
});

describe('sim: cluster.autoUpgradeWritesSpec false (auto-upgrade-no-spec-write)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('auto-upgrade-no-spec-write');
  });
  after(async () => {
    await sim?.close();
  });

  test("the new operator rolls the pods to its default image; the spec's versionTag stays", async () => {
    await applyOperatorBundle(sim, '7.8.2-6');
    await eventually('every cluster pod on 7.8.2-60 and the cluster Running', async () => {
      const pods = await json<PodList>(sim, ['get', 'pods', '-l', 'redis.io/cluster=rec']);
      const state = (await sim.kubectl(['get', 'rec', 'rec', '-o', 'jsonpath={.status.state}'])).stdout;
      const done =
        pods.items.length === 3 &&
        pods.items.every((pod) => pod.spec.containers[0]?.image.endsWith(':7.8.2-60')) &&
        state === 'Running';
      return done || undefined;
    });
    const tag = await sim.kubectl([
      'get',
      'rec',
      'rec',
      '-o',
      'jsonpath={.spec.redisEnterpriseImageSpec.versionTag}',
    ]);
    assert.equal(tag.stdout, '7.4.6-22');
    const nodes = await sim.api('GET', '/v1/nodes');
    for (const node of nodes.body as { software_version: string }[])
      assert.equal(node.software_version, '7.8.2-60');
  });
});

describe('sim: cluster.imageSpecs with a digest (digest-pinned)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('digest-pinned');
  });
  after(async () => {
    await sim?.close();
  });

  test('the image specs are in the REC under their real names', async () => {
    const rec = await json<{ spec: Record<string, { digestHash?: string; repository?: string }> }>(sim, [
      'get',
      'rec',
      'rec',
    ]);
    assert.match(rec.spec.redisEnterpriseServicesRiggerImageSpec?.digestHash ?? '', /^sha256:/);
    assert.equal(rec.spec.redisEnterpriseServicesRiggerImageSpec?.repository, 'redislabs/k8s-controller');
    assert.equal(rec.spec.bootstrapperImageSpec?.repository, 'redislabs/operator');
    assert.equal(rec.spec.redisEnterpriseImageSpec?.digestHash, undefined);
  });

  test("a digest in the rigger's spec makes the new operator answer InvalidUpgrade", async () => {
    await applyOperatorBundle(sim, '7.8.2-6');
    await sim.kubectl(['wait', '--for=jsonpath={.status.state}=InvalidUpgrade', 'rec/rec', '--timeout=60s']);
    const warning = (await warningEvents(sim)).find((event) => event.reason === 'InvalidUpgrade');
    assert.ok(warning, 'the documented warning event');
    assert.match(warning.message, /redisEnterpriseServicesRiggerImageSpec\.digestHash/);
  });
});

describe('sim: operator.helmValues (helm-pinned-values)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('helm-pinned-values');
  });
  after(async () => {
    await sim?.close();
  });

  const image = async () =>
    (
      await sim.kubectl([
        'get',
        'deploy',
        'redis-enterprise-operator',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image}',
      ])
    ).stdout;

  test('helm get values shows what the user gave', async () => {
    const values = parse((await sim.helm(3, ['get', 'values', 'redis-enterprise'])).stdout) as Record<
      string,
      unknown
    >;
    assert.deepEqual(values.operator, { image: { tag: '7.4.6-2' } });
  });

  test('an upgrade with --reset-then-reuse-values keeps the pinned image; setting the tag moves it', async () => {
    const repo = sim.cluster.env.CTL_HELM_REPO ?? '';
    const upgrade = [
      'upgrade',
      'redis-enterprise',
      'redis-enterprise-operator',
      '--repo',
      repo,
      '--version',
      '7.8.2-6',
    ];
    await sim.helm(3, [...upgrade, '--reset-then-reuse-values']);
    assert.equal(await image(), 'redislabs/operator:7.4.6-2');
    await sim.helm(3, [...upgrade, '--reset-then-reuse-values', '--set', 'operator.image.tag=7.8.2-6']);
    assert.equal(await image(), 'redislabs/operator:7.8.2-6');
  });
});

describe('sim: operator.roleRefKind ClusterRole (cluster-role-binding)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('cluster-role-binding');
  });
  after(async () => {
    await sim?.close();
  });

  test('redb-role in app-a points at the ClusterRole; re-applying the bundle binding fails with 422', async () => {
    const kind = await sim.kubectl([
      'get',
      'rolebinding',
      'redb-role',
      '-n',
      'app-a',
      '-o',
      'jsonpath={.roleRef.kind}',
    ]);
    assert.equal(kind.stdout, 'ClusterRole');
    await sim.kubectl(['get', 'clusterrole', 'redb-role']);
    const file = await sim.download('/bundles/7.4.6-2/multi-namespace-redb/role_binding.yaml');
    for (const mode of [[], ['--server-side']]) {
      const applied = await sim.kubectl(['apply', ...mode, '-f', file, '-n', 'app-a'], {
        allowFailure: true,
      });
      assert.notEqual(applied.code, 0, `kubectl apply ${mode.join(' ')} must fail`);
      assert.match(applied.stderr, /cannot change roleRef/);
    }
    const patched = await sim.kubectl(
      [
        'patch',
        'rolebinding',
        'redb-role',
        '-n',
        'app-a',
        '--type',
        'merge',
        '-p',
        '{"roleRef":{"kind":"Role"}}',
      ],
      { allowFailure: true },
    );
    assert.match(
      patched.stderr,
      // kubectl's rendering of the API server's 422 Status.
      /The RoleBinding "redb-role" is invalid: roleRef: Invalid value: rbac.RoleRef\{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"redb-role"\}: cannot change roleRef/,
    );
  });
});

describe('sim: cluster.licenseIn spec (inline-license)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('inline-license');
  });
  after(async () => {
    await sim?.close();
  });

  test('the licence is inline and no licence Secret is named', async () => {
    const rec = await json<{ spec: { license?: string; licenseSecretName?: string } }>(sim, [
      'get',
      'rec',
      'rec',
    ]);
    assert.match(rec.spec.license ?? '', /LICENSE START/);
    assert.equal(rec.spec.licenseSecretName, undefined);
  });
});

describe('sim: api.modulesUpload disabled (modules-upload-disabled)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('modules-upload-disabled');
  });
  after(async () => {
    await sim?.close();
  });

  test('POST /v2/modules answers 403 modules_upload_disabled', async () => {
    const form = new FormData();
    form.append('module', new Blob([Buffer.from('x')]), 'search.Linux-rhel9-x86_64.8.2.1.zip');
    const upload = await sim.api('POST', '/v2/modules', form);
    assert.equal(upload.status, 403);
    assert.equal((upload.body as { error_code: string }).error_code, 'modules_upload_disabled');
  });

  test('the custom module uploads RS 8.2 names answer 403 modules_upload_disabled too', async () => {
    // rs-8-2-0-25.md: POST /v2/modules/user-defined and POST /v2/local/modules/user-defined/artifacts.
    const config = await sim.api('POST', '/v2/modules/user-defined', {
      module_name: 'ledgerx',
      version: 10203,
      semantic_version: '1.2.3',
      display_name: 'Ledger X',
      commands: [],
      command_line_args: '',
      capabilities: [],
      min_redis_version: '7.2',
    });
    assert.equal(config.status, 403);
    assert.equal((config.body as { error_code: string }).error_code, 'modules_upload_disabled');
    const form = new FormData();
    form.append('module', new Blob([Buffer.from('x')]), 'ledgerx.Linux-rhel9-x86_64.1.2.3.zip');
    const artifact = await sim.api('POST', '/v2/local/modules/user-defined/artifacts', form);
    assert.equal(artifact.status, 403);
    assert.equal((artifact.body as { error_code: string }).error_code, 'modules_upload_disabled');
  });

  test('GET /v1/cluster reports the RS 8.2 setting allow_modules_upload: false', async () => {
    const cluster = await sim.api('GET', '/v1/cluster');
    assert.equal(cluster.status, 200);
    assert.equal((cluster.body as { allow_modules_upload?: boolean }).allow_modules_upload, false);
  });
});

describe('sim: objects and api.headerFormAnswer (a scenario file)', () => {
  let sim: SimHarness;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-sim-objects-'));
    const file = path.join(dir, 'objects.yaml');
    writeFileSync(
      file,
      [
        'name: with-objects',
        'description: extra objects and a pre-7.8.2 API that answers 401 to a header-only authorize',
        'operator: { version: 7.4.6-2 }',
        'cluster: { versionTag: 7.4.6-22, apiVersion: 7.4.6-22 }',
        'api: { headerFormAnswer: 401 }',
        'objects:',
        '  - apiVersion: v1',
        '    kind: ConfigMap',
        '    metadata: { name: team-settings, labels: { owner: platform } }',
        '    data: { maintenanceWindow: "sun 02:00" }',
        '  - apiVersion: policy/v1',
        '    kind: PodDisruptionBudget',
        '    metadata: { name: rec-pdb }',
        '    spec: { maxUnavailable: 1, selector: { matchLabels: { redis.io/cluster: rec } } }',
        '',
      ].join('\n'),
    );
    sim = await startHarness(file);
  });
  after(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the extra objects are there as given', async () => {
    const cm = await json<{ data: Record<string, string>; metadata: { labels: Record<string, string> } }>(
      sim,
      ['get', 'configmap', 'team-settings'],
    );
    assert.deepEqual(cm.data, { maintenanceWindow: 'sun 02:00' });
    assert.equal(cm.metadata.labels.owner, 'platform');
    await sim.kubectl(['get', 'pdb', 'rec-pdb']);
  });

  test('a header-only authorize on the pre-7.8.2 API answers 401', async () => {
    const answer = await sim.api('POST', '/v1/users/authorize', {});
    assert.equal(answer.status, 401);
  });
});
