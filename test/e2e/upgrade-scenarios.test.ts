import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import {
  assertExit,
  assertUpgraded,
  changes,
  describeEntries,
  getPath,
  parseEvents,
  readState,
  TARGET,
  writesTo,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * `ctl upgrade run` end to end on the scenarios that differ from the happy path in one way:
 * the BUILT binary, a fresh simulated cluster each, the end state read with the real kubectl.
 */

const TAG = clusterTagFor(TARGET) ?? '';

describe('ctl upgrade run on each scenario (e2e)', () => {
  it('helm-installed: helm upgrade (release Secret at revision 2), then the rest completes', async () => {
    await withUpgradeSim('helm-installed', async (sim) => {
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
      assertExit(result, 0);
      const events = parseEvents(result.stdout);
      assert.ok(
        events.some((e) => e.step === 'operator' && /helm upgrade redis-enterprise/.test(e.message)),
        'the operator step ran helm upgrade',
      );
      const secrets = await sim.list(['secret', '-l', 'owner=helm,name=redis-enterprise']);
      const revisions = secrets.map((s) => Number(s.metadata.labels?.version)).sort();
      assert.deepEqual(revisions, [1, 2]);
      const latest = secrets.find((s) => s.metadata.labels?.version === '2');
      assert.equal(latest?.metadata.labels?.status, 'deployed');
      // helm, not a bundle: no server-side apply of the Deployment by ctl's field manager.
      assert.equal(
        changes(sim).filter((e) => /fieldManager=ctl/.test(e.path) && /deployments/.test(e.path)).length,
        0,
      );
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
    });
  });

  it('auto-upgrade: the cluster step changes nothing, the run still completes', async () => {
    await withUpgradeSim('auto-upgrade', async (sim) => {
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
      assertExit(result, 0);
      const skip = parseEvents(result.stdout).find((e) => e.step === 'cluster' && e.type === 'step-skip');
      assert.match(skip?.message ?? '', /auto-upgrade is on/);
      assert.deepEqual(writesTo(sim, '/redisenterpriseclusters/rec'), [], 'ctl never patched the REC');
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      assert.equal(readState(sim).steps.cluster?.status, 'skipped');
    });
  });

  // 7.22.0-6 is the first operator whose pods run unprivileged; 7.22.0-7 is in the catalog.
  const OPENSHIFT_TARGET = '7.22.0-7';
  const OPENSHIFT_TAG = clusterTagFor(OPENSHIFT_TARGET) ?? '';

  it(`openshift to ${OPENSHIFT_TARGET}: redis-enterprise-scc-v2 is unbound and deleted`, async () => {
    await withUpgradeSim('openshift', async (sim) => {
      assert.equal((await sim.list(['scc'])).length > 0, true, 'the scenario starts with the SCC');
      const result = await sim.ctl(['upgrade', 'run', '--to', OPENSHIFT_TARGET, '--yes']);
      assertExit(result, 0);
      const names = (await sim.list(['scc'])).map((s) => s.metadata.name);
      assert.ok(!names.includes('redis-enterprise-scc-v2'), `SCCs left: ${names.join(', ')}`);
      assert.equal(
        changes(sim).filter((e) => e.method === 'DELETE' && /redis-enterprise-scc-v2$/.test(e.path)).length,
        1,
      );
      await assertUpgraded(sim, { operator: OPENSHIFT_TARGET, tag: OPENSHIFT_TAG, dbVersion: '7.4' });
    });
  });

  it(`openshift to ${OPENSHIFT_TARGET} --keep-scc: the SCC stays, bound as before`, async () => {
    await withUpgradeSim('openshift', async (sim) => {
      const before = await sim.get(['scc', 'redis-enterprise-scc-v2']);
      const result = await sim.ctl(['upgrade', 'run', '--to', OPENSHIFT_TARGET, '--yes', '--keep-scc']);
      assertExit(result, 0);
      const after = await sim.get(['scc', 'redis-enterprise-scc-v2']);
      assert.deepEqual(after.users, before.users);
      assert.deepEqual(
        changes(sim).filter((e) => /securitycontextconstraints/.test(e.path)),
        [],
        'nothing touched the SCC',
      );
      assert.match(readState(sim).steps['security-context']?.skipReason ?? '', /--keep-scc/);
      await assertUpgraded(sim, { operator: OPENSHIFT_TARGET, tag: OPENSHIFT_TAG, dbVersion: '7.4' });
    });
  });

  it('multi-namespace: redb-role re-applied in app-a and app-b, every database upgraded', async () => {
    await withUpgradeSim('multi-namespace', async (sim) => {
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(result, 0);
      for (const namespace of ['app-a', 'app-b']) {
        for (const kind of ['roles', 'rolebindings']) {
          const applied = writesTo(sim, `/namespaces/${namespace}/${kind}/redb-role`);
          assert.equal(
            applied.length,
            1,
            `${kind}/redb-role in ${namespace}:\n${describeEntries(changes(sim))}`,
          );
        }
        await sim.get(['role', 'redb-role', '-n', namespace]);
        const binding = await sim.get(['rolebinding', 'redb-role', '-n', namespace]);
        assert.equal(getPath(binding, ['roleRef', 'name']), 'redb-role');
      }
      await assertUpgraded(sim, {
        operator: TARGET,
        tag: TAG,
        dbVersion: '7.4',
        namespaces: ['redis', 'app-a', 'app-b'],
      });
    });
  });

  it('legacy-webhook: redb-admission deleted, redis-enterprise-admission trusts admission-tls', async () => {
    await withUpgradeSim('legacy-webhook', async (sim) => {
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(result, 0);
      const webhooks = (await sim.list(['validatingwebhookconfigurations'])).map((w) => w.metadata.name);
      assert.ok(!webhooks.includes('redb-admission'), `webhooks: ${webhooks.join(', ')}`);
      const webhook = await sim.get(['validatingwebhookconfiguration', 'redis-enterprise-admission']);
      const secret = await sim.get(['secret', 'admission-tls', '-n', 'redis']);
      const cert = secret.data?.cert;
      assert.ok(cert, 'admission-tls has a cert');
      const entries = webhook.webhooks as { clientConfig: { caBundle?: string } }[];
      assert.ok(entries.length > 0);
      for (const entry of entries) assert.equal(entry.clientConfig.caBundle, cert);
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
    });
  });

  it('flaky-api: resets, 503s and dropped watches are retried; the run completes', async () => {
    await withUpgradeSim('flaky-api', async (sim) => {
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-v']);
      assertExit(result, 0);
      const rest = sim.cluster.audit.entries.filter((e) => e.api === 'rest');
      assert.ok(
        rest.some((e) => e.status === 0 || e.status === 503),
        'the faults fired (a reset or a 503 was served)',
      );
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
    });
  });

  // 8.0.2-2 upgrades Active-Active databases through the REAADB (and databases to 8.2).
  const REDIS_TARGET = '8.0.2-2';

  it(`redis-dialect to ${REDIS_TARGET}: the patches use redisEnterpriseImageSpec and redisVersion`, async () => {
    await withUpgradeSim('redis-dialect', async (sim) => {
      const before = sim.cluster.audit.entries.length;
      // 8.0.2-2 predates the fix of advisory reaadb-empty-password and the scenario holds an
      // REAADB, so release-advisories fails; this test is about the dialect's field names.
      const result = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        REDIS_TARGET,
        '--ignore-check',
        'release-advisories',
        '--yes',
        '-vv',
      ]);
      assertExit(result, 0);
      const tag = clusterTagFor(REDIS_TARGET) ?? '';
      // -vv prints each patch body (ctl's own trace of what it sent).
      assert.ok(
        result.stderr.includes(`{"spec":{"redisEnterpriseImageSpec":{"versionTag":"${tag}"}}}`),
        result.stderr,
      );
      assert.ok(result.stderr.includes('{"spec":{"redisVersion":"8.2"}}'));
      assert.ok(result.stderr.includes('{"spec":{"globalConfigurations":{"redisVersion":"8.2"}}}'));
      assert.doesNotMatch(result.stderr, /engineEnterpriseImageSpec|engineVersion|engine_version/);
      assert.ok(!result.stderr.includes(sim.env.CTL_PASSWORD ?? '\u0000'), 'no password under -vv');

      // The server's record of who set what: ctl's field manager owns the real field names.
      const rec = await sim.kubectl(['get', 'rec', 'rec', '-o', 'json', '--show-managed-fields']);
      const managed = (JSON.parse(rec) as { metadata: { managedFields?: { manager: string }[] } }).metadata
        .managedFields;
      const ours = JSON.stringify(managed?.filter((m) => m.manager === 'ctl') ?? []);
      assert.match(ours, /f:redisEnterpriseImageSpec/);
      assert.match(ours, /f:versionTag/);

      assert.ok(writesTo(sim, '/redisenterpriseclusters/rec', before).length === 1);
      await assertUpgraded(sim, { operator: REDIS_TARGET, tag, dbVersion: '8.2' });
      const aa = await sim.get(['reaadb', 'geo']);
      assert.equal(getPath(aa, ['spec', 'globalConfigurations', 'redisVersion']), '8.2');
    });
  });
});
