/**
 * The simulated world as real clients see it: a release that only the scenario's `releases:`
 * key adds (newer than every built-in one, so newer than ctl's catalog may know) is offered by
 * the OperatorHub's PackageManifest and the helm repository and run by the operator, and the
 * platform versions are what `kubectl version` and `oc get clusterversion` show.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { eventually, type SimHarness, startHarness, versionTagPatch } from './sim-support.js';

const NEW_RELEASE = '8.2.0-25';
const NEW_CSV = `redis-enterprise-operator.v${NEW_RELEASE}`;
const NEW_TAG = '8.2.0-80.25';

const SCENARIO = `name: newer-release
description: "OperatorHub install on OpenShift 4.20 whose catalog holds a release newer than the built-in list"
dialect: redis
platform: openshift
openshiftVersion: "4.20"
operator:
  version: 8.2.0-18
  installedBy: olm
  olm: {channel: production, approval: Manual}
cluster:
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
databases:
  - { name: cache, version: "8.2" }
releases:
  - operator: ${NEW_RELEASE}
    rs: ${NEW_TAG}
    databaseVersions: ["7.2", "7.4", "8.2", "8.6", "8.8"]
    defaultDatabaseVersion: "8.8"
    kubernetes: {supported: ["1.33", "1.34", "1.35", "1.36"], deprecated: ["1.32"]}
    openshift: {supported: ["4.20", "4.21", "4.22"], deprecated: ["4.19"]}
    variants: [minimal]
`;

interface Channel {
  name: string;
  currentCSV: string;
  currentCSVDesc?: { version?: string; relatedImages?: string[] };
  entries: { name: string; version: string }[];
}

async function json<T>(sim: SimHarness, args: string[]): Promise<T> {
  return JSON.parse((await sim.kubectl([...args, '-o', 'json'])).stdout) as T;
}

describe('sim: a release beyond the built-in list (releases:) on OpenShift 4.20', () => {
  let sim: SimHarness;
  before(async () => {
    const file = path.join(tempDir('ctl-sim-world-'), 'newer-release.yaml');
    writeFileSync(file, SCENARIO);
    sim = await startHarness(file);
  });
  after(async () => {
    await sim?.close();
  });

  test('kubectl version shows the Kubernetes of OpenShift 4.20, and ClusterVersion says 4.20.0', async () => {
    const version = await json<{ serverVersion: { major: string; minor: string; gitVersion: string } }>(sim, [
      'version',
    ]);
    assert.equal(version.serverVersion.gitVersion, 'v1.33.0');
    assert.equal(version.serverVersion.minor, '33');
    const clusterVersion = await json<{
      status: { desired: { version: string }; history: { state: string; version: string }[] };
    }>(sim, ['get', 'clusterversion', 'version']);
    assert.equal(clusterVersion.status.desired.version, '4.20.0');
    assert.deepEqual(
      clusterVersion.status.history.map((entry) => [entry.state, entry.version]),
      [['Completed', '4.20.0']],
    );
  });

  test('the PackageManifest offers the new release at the head of production, 8.2.0 and its own channel', async () => {
    const manifest = await json<{ status: { defaultChannel: string; channels: Channel[] } }>(sim, [
      'get',
      'packagemanifest',
      'redis-enterprise-operator-cert',
    ]);
    const channel = (name: string) => manifest.status.channels.find((c) => c.name === name);
    assert.equal(manifest.status.defaultChannel, 'production');
    assert.equal(channel('production')?.currentCSV, NEW_CSV);
    assert.equal(channel('8.2.0')?.currentCSV, NEW_CSV);
    assert.deepEqual(channel(`${NEW_RELEASE}.0`)?.entries, [{ name: NEW_CSV, version: NEW_RELEASE }]);
    // The head's relatedImages name the node images (by digest, as the certified CSVs do).
    const related = channel('production')?.currentCSVDesc?.relatedImages ?? [];
    assert.ok(
      related.filter((image) =>
        image.startsWith('registry.connect.redhat.com/redislabs/redis-enterprise@sha256:'),
      ).length === 2,
      `the full and the minimal node image: ${related.join(', ')}`,
    );
    assert.equal(channel('8.2.0-18.0')?.currentCSV, 'redis-enterprise-operator.v8.2.0-18');
  });

  test('the helm repository and the bundle server offer it', async () => {
    const index = await sim.download('/index.yaml');
    const { readFileSync } = await import('node:fs');
    assert.match(readFileSync(index, 'utf8'), new RegExp(`version: ${NEW_RELEASE.replaceAll('.', '\\.')}`));
    const bundle = await sim.download(`/bundles/${NEW_RELEASE}/openshift.bundle.yaml`);
    assert.match(readFileSync(bundle, 'utf8'), new RegExp(`redis-enterprise-operator:${NEW_RELEASE}`));
  });

  test('approved, OLM installs it, and the operator rolls the cluster to its RS with its databases', async () => {
    const plan = await eventually('an InstallPlan for the new release', async () => {
      const plans = await json<{
        items: { metadata: { name: string }; spec: { clusterServiceVersionNames: string[] } }[];
      }>(sim, ['get', 'installplan']);
      return plans.items.find((p) => p.spec.clusterServiceVersionNames.includes(NEW_CSV));
    });
    await sim.kubectl([
      'patch',
      'installplan',
      plan.metadata.name,
      '--type',
      'merge',
      '-p',
      '{"spec":{"approved":true}}',
    ]);
    await eventually('the operator Deployment at the new release', async () => {
      const deployment = await json<{ spec: { template: { spec: { containers: { image: string }[] } } } }>(
        sim,
        ['get', 'deploy', 'redis-enterprise-operator'],
      );
      return deployment.spec.template.spec.containers[0]?.image.endsWith(`:${NEW_RELEASE}`)
        ? true
        : undefined;
    });
    await sim.kubectl(['rollout', 'status', 'deployment/redis-enterprise-operator', '--timeout=60s']);
    // The OLM install pinned the node image by digest: the new tag goes with the digest the new
    // CSV relates for it (a new tag next to the old digest would keep the old image).
    const csv = await json<{ spec: { relatedImages: { name: string; image: string }[] } }>(sim, [
      'get',
      'csv',
      NEW_CSV,
    ]);
    const node = csv.spec.relatedImages.find((entry) => entry.name === 'redis-enterprise-node')?.image ?? '';
    const digestHash = node.slice(node.indexOf('@') + 1);
    assert.match(digestHash, /^sha256:[0-9a-f]{64}$/);
    await sim.kubectl([
      'patch',
      'rec',
      'rec',
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { redisEnterpriseImageSpec: { versionTag: NEW_TAG, digestHash } } }),
    ]);
    const status = await eventually('the cluster Running on the new RS', async () => {
      const rec = await json<{
        status?: { state?: string; bundledDatabaseVersions?: { version: string }[] };
      }>(sim, ['get', 'rec', 'rec']);
      const versions = rec.status?.bundledDatabaseVersions?.map((entry) => entry.version) ?? [];
      return rec.status?.state === 'Running' && versions.includes('8.8') ? versions : undefined;
    });
    assert.deepEqual(status, ['7.2', '7.4', '8.2', '8.6', '8.8']);
    const nodes = await sim.api('GET', '/v1/nodes');
    assert.match(JSON.stringify(nodes.body), /"software_version":"8\.2\.0-80"/);
  });
});

const VARIANTS = `name: minimal-image
description: "a cluster on the minimal base image, Kubernetes 1.29"
dialect: redis
kubernetesVersion: "1.29"
operator:
  version: 8.0.16-25
cluster:
  versionTag: 8.0.16-33
  nodes: 2
databases:
  - { name: cache, version: "7.4" }
`;

interface Pod {
  metadata: { name: string };
  status?: { containerStatuses?: { image: string; state?: { waiting?: { reason?: string } } }[] };
}

describe('sim: image variants the notes name, and one they do not (Kubernetes 1.29)', () => {
  let sim: SimHarness;
  before(async () => {
    const file = path.join(tempDir('ctl-sim-world-'), 'minimal-image.yaml');
    writeFileSync(file, VARIANTS);
    sim = await startHarness(file);
  });
  after(async () => {
    await sim?.close();
  });

  test('kubectl version shows the scenario’s Kubernetes', async () => {
    const version = await json<{ serverVersion: { gitVersion: string } }>(sim, ['version']);
    assert.equal(version.serverVersion.gitVersion, 'v1.29.0');
  });

  test('a .minimal tag its release never published (8.0.16) stalls the roll at ImagePullBackOff', async () => {
    await sim.kubectl([
      'patch',
      'rec',
      'rec',
      '--type',
      'merge',
      '-p',
      versionTagPatch(sim, '8.0.16-33.minimal'),
    ]);
    const pod = await eventually('a cluster pod in ImagePullBackOff', async () => {
      const pods = await json<{ items: Pod[] }>(sim, ['get', 'pods', '-l', 'app=redis-enterprise']);
      return pods.items.find((p) =>
        p.status?.containerStatuses?.some((c) => c.state?.waiting?.reason === 'ImagePullBackOff'),
      );
    });
    assert.equal(pod.metadata.name, 'rec-1', 'the first pod of the reverse-ordinal roll');
    const table = (await sim.kubectl(['get', 'pod', 'rec-1'])).stdout;
    assert.match(table, /ImagePullBackOff/);
    const rec = await json<{ status?: { state?: string } }>(sim, ['get', 'rec', 'rec']);
    assert.equal(rec.status?.state, 'Upgrade', 'the upgrade waits at that pod');
  });
});
