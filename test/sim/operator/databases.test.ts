import assert from 'node:assert/strict';
import { test } from 'node:test';
import { logErrors, logInfos, REAADB, REC, REDB, settle, startSim, statusOf, waitFor } from './harness.js';

test('a new engineVersion upgrades the database: active-change-pending, then active at the new version', async () => {
  const sim = await startSim('engine-dialect', {
    adjust: (scenario) => {
      scenario.timing.databaseUpgrade = 0.2;
    },
  });
  try {
    const seen = new Set<string>();
    sim.store.on('change', (change) => {
      if (change.object.kind === 'RedisEnterpriseDatabase' && change.object.metadata.name === 'cache') {
        seen.add(String(statusOf(change.object).status));
      }
    });
    // RS 7.4.6 offers 6.0, 6.2 and 7.2: move to 7.4 after a cluster upgrade to 7.8.2.
    sim.mergePatch(...REC, 'rec', { spec: { engineEnterpriseImageSpec: { versionTag: '7.8.2-60' } } });
    await waitFor(
      'the cluster upgrade',
      () => statusOf(sim.get(...REC, 'rec')).state === 'Running' && sim.rest.serverVersion === '7.8.2-60',
    );
    sim.mergePatch(...REDB, 'cache', { spec: { engineVersion: '7.4' } });
    await waitFor('cache at 7.4', () => {
      const status = statusOf(sim.get(...REDB, 'cache'));
      return status.version === '7.4' && status.status === 'active';
    });
    assert.ok(seen.has('active-change-pending'));
    const bdb = sim.rest.bdbs.find((b) => b.name === 'cache');
    assert.equal(bdb?.databaseVersion, '7.4');
    assert.equal(sim.rest.renderBdb(bdb!).engine_version, '7.4');
    const status = statusOf(sim.get(...REDB, 'cache'));
    assert.equal(sim.rest.actions.get(String(status.lastActionUid))?.status, 'completed');
    assert.equal(status.lastActionStatus, 'completed');
    assert.deepEqual(logErrors(sim), []);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('a major upgrade policy refuses a minor version: Warning and specStatus Invalid', async () => {
  const sim = await startSim('happy-path', {
    adjust: (scenario) => {
      scenario.cluster.versionTag = '7.8.2-60';
      scenario.cluster.apiVersion = '7.8.2-60';
      scenario.cluster.upgradePolicy = 'major';
    },
  });
  try {
    sim.mergePatch(...REDB, 'cache', { spec: { redisVersion: '7.4' } });
    const [line] = await waitFor('the refusal in the operator log', () => {
      const found = logErrors(sim, /minor version/);
      return found.length > 0 ? found : undefined;
    });
    assert.match(String(line?.error), /7\.4 is a minor version/);
    assert.equal(line?.logger, 'controller_redisenterprisedatabase');
    assert.equal(line?.['Request.Namespace'], 'redis');
    assert.equal(line?.['Request.Name'], 'cache');
    await waitFor('specStatus Invalid', () => statusOf(sim.get(...REDB, 'cache')).specStatus === 'Invalid');
    assert.equal(statusOf(sim.get(...REDB, 'cache')).version, '7.2');
    assert.equal(sim.rest.bdbs.find((b) => b.name === 'cache')?.databaseVersion, '7.2');
    // Reported once per change, not on every pass.
    await settle();
    assert.equal(logErrors(sim, /minor version/).length, 1);

    // Back to a version the policy allows: valid again.
    sim.mergePatch(...REDB, 'cache', { spec: { redisVersion: '7.2' } });
    await waitFor('specStatus Valid', () => statusOf(sim.get(...REDB, 'cache')).specStatus === 'Valid');
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('a version the cluster does not offer is refused', async () => {
  const sim = await startSim('happy-path');
  try {
    sim.mergePatch(...REDB, 'cache', { spec: { redisVersion: '7.4' } });
    const [line] = await waitFor('the refusal in the operator log', () => {
      const found = logErrors(sim, /not available/);
      return found.length > 0 ? found : undefined;
    });
    assert.match(String(line?.error), /not available on cluster version 7\.4\.6-22/);
  } finally {
    await sim.close();
  }
});

test('POST /v1/bdbs/<uid>/upgrade through the API: the REDB status follows', async () => {
  const sim = await startSim('happy-path', {
    adjust: (scenario) => {
      scenario.cluster.versionTag = '7.8.2-60';
      scenario.cluster.apiVersion = '7.8.2-60';
    },
  });
  try {
    const bdb = sim.rest.bdbs.find((b) => b.name === 'sessions');
    assert.ok(bdb);
    const { action } = sim.rest.requestBdbUpgrade(bdb, '7.4');
    await waitFor('the action', () => sim.rest.actions.get(action.action_uid)?.status === 'completed');
    await waitFor('sessions status at 7.4', () => statusOf(sim.get(...REDB, 'sessions')).version === '7.4');
    assert.equal(statusOf(sim.get(...REDB, 'sessions')).status, 'active');
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('the redis dialect reads redisVersion and writes redis_version', async () => {
  const sim = await startSim('redis-dialect', {
    adjust: (scenario) => {
      for (const database of scenario.databases) database.version = '7.2';
    },
  });
  try {
    const [first] = sim.list(...REDB, sim.scenario.namespace);
    assert.ok(first);
    const name = first.metadata.name ?? '';
    assert.ok('redisVersion' in (first.spec as object));
    sim.mergePatch(...REDB, name, { spec: { redisVersion: '7.4' } });
    await waitFor(`${name} at 7.4`, () => statusOf(sim.get(...REDB, name)).version === '7.4');
    const bdb = sim.rest.bdbs.find((b) => b.name === name);
    assert.equal(sim.rest.renderBdb(bdb!).redis_version, '7.4');
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('after an operator upgrade, databases wait for the cluster upgrade', async () => {
  const sim = await startSim('happy-path', {
    adjust: (scenario) => {
      scenario.cluster.versionTag = '7.8.2-60';
      scenario.cluster.apiVersion = '7.8.2-60';
      scenario.operator.version = '7.8.2-6';
    },
  });
  try {
    const image = 'redislabs/operator:7.8.4-9';
    sim.strategicPatch('apps/v1', 'Deployment', 'redis-enterprise-operator', {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'redis-enterprise-operator', image },
              { name: 'admission', image },
            ],
          },
        },
      },
    });
    await waitFor('the new operator', () => logInfos(sim, /^Operator upgraded/).length > 0);
    sim.mergePatch(...REDB, 'cache', { spec: { redisVersion: '7.4' } });
    await settle();
    assert.equal(sim.rest.bdbs.find((b) => b.name === 'cache')?.databaseVersion, '7.2', 'suspended');
    sim.mergePatch(...REC, 'rec', { spec: { redisEnterpriseImageSpec: { versionTag: '7.8.4-95' } } });
    await waitFor('cache at 7.4', () => statusOf(sim.get(...REDB, 'cache')).version === '7.4');
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('Active-Active: an operator before 8.0.2-2 refuses the REAADB version change', async () => {
  const sim = await startSim('redis-dialect', {
    adjust: (scenario) => {
      for (const database of scenario.databases) database.version = '7.2';
    },
  });
  try {
    sim.mergePatch(...REAADB, 'geo', { spec: { globalConfigurations: { redisVersion: '7.4' } } });
    const [line] = await waitFor('the refusal in the operator log', () => {
      const found = logErrors(sim, /Active-Active/);
      return found.length > 0 ? found : undefined;
    });
    assert.equal(line?.logger, 'controller_redisenterpriseactiveactivedatabase');
    assert.match(String(line?.error), /8\.0\.2-2/);
    assert.equal(sim.rest.bdbs.find((b) => b.name === 'geo')?.databaseVersion, '7.2');
    await waitFor('specStatus Invalid', () => statusOf(sim.get(...REAADB, 'geo')).specStatus === 'Invalid');
  } finally {
    await sim.close();
  }
});

test('Active-Active: from operator 8.0.2-2 on, the REAADB version upgrades the crdt database', async () => {
  const sim = await startSim('redis-dialect', {
    adjust: (scenario) => {
      scenario.operator.version = '8.0.2-2';
      scenario.cluster.versionTag = '8.0.2-17';
      scenario.cluster.apiVersion = '8.0.2-17';
      for (const database of scenario.databases) database.version = '7.2';
    },
  });
  try {
    sim.mergePatch(...REAADB, 'geo', { spec: { globalConfigurations: { redisVersion: '7.4' } } });
    await waitFor('geo at 7.4', () => sim.rest.bdbs.find((b) => b.name === 'geo')?.databaseVersion === '7.4');
    await waitFor('REAADB active', () => statusOf(sim.get(...REAADB, 'geo')).status === 'active');
    assert.deepEqual(logErrors(sim), []);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});
