/**
 * The helm path of the operator upgrade (redis-facts.md §3) with the real helm 3 and helm 4:
 * the helm-installed scenario's release is upgraded from the simulator's chart repository,
 * then the cluster resource follows with kubectl. Each helm major gets its own cluster.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { clusterTagFor } from '../../src/release/catalog.js';
import { parseTable, type SimHarness, startHarness, versionTagPatch } from './sim-support.js';

const RELEASE = 'redis-enterprise';
const FROM = '7.4.6-2';
const TARGET_OPERATOR = '7.8.2-6';
const TARGET_TAG = clusterTagFor(TARGET_OPERATOR) ?? '';

for (const major of [3, 4] as const) {
  describe(`sim: helm ${major} upgrade of helm-installed`, () => {
    let sim: SimHarness;
    before(async () => {
      sim = await startHarness('helm-installed');
    });
    after(async () => {
      await sim?.close();
    });

    test('helm list finds the seeded release, deployed, chart at the scenario version', async () => {
      const { stdout } = await sim.helm(major, ['list', '-o', 'json']);
      const releases = JSON.parse(stdout) as {
        name: string;
        status: string;
        chart: string;
        app_version: string;
      }[];
      assert.equal(releases.length, 1);
      assert.equal(releases[0]?.name, RELEASE);
      assert.equal(releases[0]?.status, 'deployed');
      assert.equal(releases[0]?.chart, `redis-enterprise-operator-${FROM}`);
      assert.equal(releases[0]?.app_version, FROM);
    });

    test('the chart repository lists every catalog version', async () => {
      const response = await fetch(`${sim.cluster.artifactsUrl}/index.yaml`);
      const index = parse(await response.text()) as {
        entries: Record<string, { version: string; digest: string }[]>;
      };
      const versions = (index.entries['redis-enterprise-operator'] ?? []).map((entry) => entry.version);
      assert.ok(versions.includes(FROM) && versions.includes(TARGET_OPERATOR));
      const search = await sim.helm(major, [
        'show',
        'chart',
        'redis-enterprise-operator',
        '--repo',
        sim.cluster.artifactsUrl,
        '--version',
        TARGET_OPERATOR,
      ]);
      assert.match(search.stdout, new RegExp(`appVersion: ${TARGET_OPERATOR}`));
    });

    test('helm upgrade --repo --version moves the operator; rollout status succeeds', async () => {
      await sim.helm(major, [
        'upgrade',
        RELEASE,
        'redis-enterprise-operator',
        '--repo',
        sim.cluster.artifactsUrl,
        '--version',
        TARGET_OPERATOR,
      ]);
      const rollout = await sim.kubectl([
        'rollout',
        'status',
        'deployment/redis-enterprise-operator',
        '--timeout=60s',
      ]);
      assert.match(rollout.stdout, /successfully rolled out/);
      const image = await sim.kubectl([
        'get',
        'deployment/redis-enterprise-operator',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image}',
      ]);
      assert.equal(image.stdout, `redislabs/operator:${TARGET_OPERATOR}`);
      const { stdout } = await sim.helm(major, ['list', '-o', 'json']);
      const release = (JSON.parse(stdout) as { revision: string; status: string; app_version: string }[])[0];
      assert.equal(release?.revision, '2');
      assert.equal(release?.status, 'deployed');
      assert.equal(release?.app_version, TARGET_OPERATOR);
      // The chart's webhook keeps its per-namespace name (admission.limitToNamespace).
      await sim.kubectl(['get', 'validatingwebhookconfiguration', 'redis-enterprise-admission-redis']);
    });

    test('the cluster resource then upgrades to the new operator’s image', async () => {
      await sim.kubectl(['patch', 'rec', 'rec', '--type', 'merge', '-p', versionTagPatch(sim, TARGET_TAG)]);
      await sim.kubectl(['rollout', 'status', 'sts/rec', '--timeout=120s'], { timeoutMs: 150_000 });
      await sim.kubectl(['wait', '--for=jsonpath={.status.state}=Running', 'rec/rec', '--timeout=60s']);
      const row = parseTable((await sim.kubectl(['get', 'rec'])).stdout).rows[0] ?? {};
      assert.equal(row.VERSION, TARGET_TAG);
      assert.equal(row.STATE, 'Running');
    });
  });
}
