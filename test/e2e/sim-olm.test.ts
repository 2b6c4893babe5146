/**
 * OperatorHub installs in the simulator (`operator.installedBy: olm`), driven with the real
 * kubectl as a user of `oc` would: the OLM objects, an InstallPlan's approval rolling the
 * operator, a channel switch, and a bundle applied over the OLM-owned Deployment put back.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, parseTable, type SimHarness, startHarness } from './sim-support.js';

const SUBSCRIPTION = 'redis-enterprise-operator-cert';

interface Meta {
  name: string;
  labels?: Record<string, string>;
  generation?: number;
  ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  uid?: string;
}
interface Obj<Spec = Record<string, unknown>, Status = Record<string, unknown>> {
  metadata: Meta;
  spec: Spec;
  status?: Status;
}
interface List<T> {
  items: T[];
}
type Subscription = Obj<
  { channel: string; installPlanApproval: string; name: string; source: string; startingCSV?: string },
  { installedCSV?: string; currentCSV?: string; state?: string; installPlanRef?: { name: string } }
>;
type InstallPlan = Obj<
  { approval: string; approved: boolean; clusterServiceVersionNames: string[] },
  { phase?: string }
>;
type Csv = Obj<{ version: string; replaces?: string; skips?: string[] }, { phase?: string }>;
type Deployment = Obj<{ template: { spec: { containers: { image: string }[] } } }>;

async function json<T>(sim: SimHarness, args: string[]): Promise<T> {
  return JSON.parse((await sim.kubectl([...args, '-o', 'json'])).stdout) as T;
}

const operatorImage = async (sim: SimHarness) =>
  (await json<Deployment>(sim, ['get', 'deploy', 'redis-enterprise-operator'])).spec.template.spec
    .containers[0]?.image ?? '';

const plans = async (sim: SimHarness) => (await json<List<InstallPlan>>(sim, ['get', 'installplan'])).items;

/** What a person does to move the Subscription to another channel: `kubectl patch` its spec.channel. */
async function switchChannel(sim: SimHarness, channel: string): Promise<void> {
  await sim.kubectl([
    'patch',
    'subscription',
    SUBSCRIPTION,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { channel } }),
  ]);
}

describe('sim: OperatorHub install, Manual approval (olm-manual)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('olm-manual');
  });
  after(async () => {
    await sim?.close();
  });

  test('kubectl shows the Subscription, the pending InstallPlan and the installed CSV', async () => {
    const table = await eventually('an InstallPlan for the channel head', async () => {
      const text = (await sim.kubectl(['get', 'installplan'])).stdout;
      return text.includes('redis-enterprise-operator.v8.0.20-25') ? text : undefined;
    });
    assert.deepEqual(parseTable(table).header, ['NAME', 'CSV', 'APPROVAL', 'APPROVED', 'AGE']);
    assert.deepEqual(
      { ...parseTable(table).rows[0], NAME: '', AGE: '' },
      {
        NAME: '',
        CSV: 'redis-enterprise-operator.v8.0.20-25',
        APPROVAL: 'Manual',
        APPROVED: 'false',
        AGE: '',
      },
    );
    const all = (await sim.kubectl(['get', 'subscription,installplan,csv'])).stdout;
    assert.match(
      all,
      /subscription\.operators\.coreos\.com\/redis-enterprise-operator-cert\s+redis-enterprise-operator-cert\s+certified-operators\s+production/,
    );
    assert.match(
      all,
      /clusterserviceversion\.operators\.coreos\.com\/redis-enterprise-operator\.v7\.4\.6-2\s+Redis Enterprise Operator\s+7\.4\.6-2\s+Succeeded/,
    );
    // Short names, as OLM's CRDs define them.
    assert.match((await sim.kubectl(['get', 'sub', SUBSCRIPTION, '-o', 'name'])).stdout, /subscription/);
    assert.match((await sim.kubectl(['get', 'csv', '-o', 'name'])).stdout, /v7\.4\.6-2/);

    const sub = await json<Subscription>(sim, ['get', 'subscription', SUBSCRIPTION]);
    assert.equal(sub.spec.channel, 'production');
    assert.equal(sub.spec.installPlanApproval, 'Manual');
    assert.equal(sub.spec.startingCSV, 'redis-enterprise-operator.v7.4.6-2');
    assert.equal(sub.status?.installedCSV, 'redis-enterprise-operator.v7.4.6-2');
    assert.equal(sub.status?.currentCSV, 'redis-enterprise-operator.v8.0.20-25');
    assert.equal(sub.status?.state, 'UpgradePending');
    const [plan] = await plans(sim);
    assert.equal(sub.status?.installPlanRef?.name, plan?.metadata.name);
    assert.equal(plan?.status?.phase, 'RequiresApproval');
  });

  test('the CSV owns the operator Deployment and the REC pins its image by digest', async () => {
    const csv = await json<Csv>(sim, ['get', 'csv', 'redis-enterprise-operator.v7.4.6-2']);
    const deployment = await json<Deployment>(sim, ['get', 'deploy', 'redis-enterprise-operator']);
    assert.equal(deployment.metadata.labels?.['olm.owner'], 'redis-enterprise-operator.v7.4.6-2');
    assert.equal(deployment.metadata.labels?.['olm.owner.kind'], 'ClusterServiceVersion');
    assert.equal(deployment.metadata.labels?.['olm.owner.namespace'], 'redis');
    assert.deepEqual(
      deployment.metadata.ownerReferences?.map((ref) => [ref.kind, ref.name, ref.uid]),
      [['ClusterServiceVersion', 'redis-enterprise-operator.v7.4.6-2', csv.metadata.uid]],
    );
    const digest = (
      await sim.kubectl(['get', 'rec', 'rec', '-o', 'jsonpath={.spec.redisEnterpriseImageSpec.digestHash}'])
    ).stdout;
    assert.match(digest, /^sha256:[0-9a-f]{64}$/);
  });

  test('approving the InstallPlan replaces the CSV and rolls the operator', async () => {
    const [plan] = await plans(sim);
    assert.ok(plan);
    await sim.kubectl([
      'patch',
      'installplan',
      plan.metadata.name,
      '--type',
      'merge',
      '-p',
      '{"spec":{"approved":true}}',
    ]);
    await sim.kubectl(['rollout', 'status', 'deployment/redis-enterprise-operator', '--timeout=30s']);
    const csvs = await eventually('the new CSV Succeeded and the old one gone', async () => {
      const items = (await json<List<Csv>>(sim, ['get', 'csv'])).items;
      return items.length === 1 && items[0]?.status?.phase === 'Succeeded' ? items : undefined;
    });
    assert.equal(csvs[0]?.metadata.name, 'redis-enterprise-operator.v8.0.20-25');
    // As the certified CSVs: no replaces, the installed CSV among spec.skips.
    assert.equal(csvs[0]?.spec.replaces, undefined);
    assert.ok(
      csvs[0]?.spec.skips?.includes('redis-enterprise-operator.v7.4.6-2'),
      String(csvs[0]?.spec.skips),
    );
    assert.match(await operatorImage(sim), /:8\.0\.20-25$/);
    const deployment = await json<Deployment>(sim, ['get', 'deploy', 'redis-enterprise-operator']);
    assert.equal(deployment.metadata.labels?.['olm.owner'], 'redis-enterprise-operator.v8.0.20-25');
    assert.deepEqual(
      deployment.metadata.ownerReferences?.map((ref) => ref.name),
      ['redis-enterprise-operator.v8.0.20-25'],
    );
    const sub = await json<Subscription>(sim, ['get', 'subscription', SUBSCRIPTION]);
    assert.equal(sub.status?.installedCSV, 'redis-enterprise-operator.v8.0.20-25');
    assert.equal(sub.status?.state, 'AtLatestKnown');
    const done = await json<InstallPlan>(sim, ['get', 'installplan', plan.metadata.name]);
    assert.equal(done.status?.phase, 'Complete');
    // The simulated operator restarted on the new image.
    await eventually('the operator to log its new version', async () => {
      const log = (
        await sim.kubectl(['logs', 'deploy/redis-enterprise-operator', '-c', 'redis-enterprise-operator'])
      ).stdout;
      return log.includes('"version":"8.0.20-25"') ? true : undefined;
    });
  });
});

describe('sim: OperatorHub install at a channel head, Manual approval (olm-channel-switch)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('olm-channel-switch');
  });
  after(async () => {
    await sim?.close();
  });

  test('a bundle applied over the OLM-owned Deployment is put back to the CSV', async () => {
    const before = await json<Deployment>(sim, ['get', 'deploy', 'redis-enterprise-operator']);
    assert.match(await operatorImage(sim), /:7\.8\.6-20$/);
    const bundle = await sim.download('/bundles/7.8.2-6/openshift.bundle.yaml');
    await sim.kubectl(['apply', '--server-side', '-f', bundle]);
    // Reverted: the template back at 7.8.6-20, after two writes (the bundle's and OLM's).
    const reverted = await eventually('OLM to put the operator Deployment back', async () => {
      const deployment = await json<Deployment>(sim, ['get', 'deploy', 'redis-enterprise-operator']);
      const image = deployment.spec.template.spec.containers[0]?.image ?? '';
      const generation = deployment.metadata.generation ?? 0;
      return image.endsWith(':7.8.6-20') && generation >= (before.metadata.generation ?? 0) + 2
        ? deployment
        : undefined;
    });
    assert.equal(reverted.metadata.labels?.['olm.owner'], 'redis-enterprise-operator.v7.8.6-20');
    const csv = await json<Csv>(sim, ['get', 'csv', 'redis-enterprise-operator.v7.8.6-20']);
    assert.equal(csv.status?.phase, 'Succeeded');
    assert.deepEqual(await plans(sim), []);
  });

  test('at the head of its channel: no InstallPlan until the channel is switched', async () => {
    const sub = await json<Subscription>(sim, ['get', 'subscription', SUBSCRIPTION]);
    assert.equal(sub.status?.state, 'AtLatestKnown');
    assert.deepEqual(await plans(sim), []);
    await switchChannel(sim, '8.2.0');
    const [plan] = await eventually('an InstallPlan for the new channel head', async () => {
      const items = await plans(sim);
      return items.length > 0 ? items : undefined;
    });
    assert.deepEqual(plan?.spec.clusterServiceVersionNames, ['redis-enterprise-operator.v8.2.0-18']);
    assert.equal(plan?.spec.approved, false);
    assert.equal(plan?.status?.phase, 'RequiresApproval');
    // Nothing moves until the plan is approved.
    assert.match(await operatorImage(sim), /:7\.8\.6-20$/);
  });
});

describe('sim: OperatorHub install, Automatic approval (olm-automatic)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('olm-automatic');
  });
  after(async () => {
    await sim?.close();
  });

  test('a channel switch installs the new head at once', async () => {
    assert.deepEqual(await plans(sim), []);
    await switchChannel(sim, '8.2.0');
    const sub = await eventually('the Subscription at the new head', async () => {
      const current = await json<Subscription>(sim, ['get', 'subscription', SUBSCRIPTION]);
      return current.status?.installedCSV === 'redis-enterprise-operator.v8.2.0-18' ? current : undefined;
    });
    assert.equal(sub.status?.state, 'AtLatestKnown');
    const [plan] = await plans(sim);
    assert.equal(plan?.spec.approval, 'Automatic');
    assert.equal(plan?.spec.approved, true);
    await sim.kubectl(['rollout', 'status', 'deployment/redis-enterprise-operator', '--timeout=30s']);
    assert.match(await operatorImage(sim), /:8\.2\.0-18$/);
  });
});
