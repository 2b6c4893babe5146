import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { imageDigest } from '../helpers/simulator.js';
import { tempDir } from '../helpers/temp.js';
import { assertExit, assertUpgraded, getPath, withUpgradeSim } from './upgrade-support.js';

/**
 * Images a real cluster cannot pull, where a user looks for them (`kubectl get pods`) and as
 * ctl's run tells them. The world: an OperatorHub install on OpenShift whose cluster resource
 * pins the bootstrapper by digest in Docker Hub's repository (`redislabs/operator`, as a REC
 * copied from a cluster off OpenShift would), while the certified CSV relates Red Hat's
 * (registry.connect.redhat.com/redislabs/redis-enterprise-operator). ctl takes the target's
 * digest from the CSV by its relatedImages name, `bootstrapper`: a digest Docker Hub's
 * repository does not hold, so the first new node pod waits in ImagePullBackOff and the roll
 * stalls there. The run must name the pod, the image and the way out; following it finishes the
 * upgrade. The services rigger's Deployment shows an image it cannot pull the same way. Names
 * and namespace are used nowhere else.
 */

const NAMESPACE = 'ledgers';
const CLUSTER = 'books';
const FROM = '8.0.18-14';
const TARGET = '8.2.0-18';
const TARGET_TAG = '8.2.0-78.18';

function world(): string {
  const file = path.join(tempDir('ctl-image-pulls-'), 'bootstrapper-from-docker-hub.yaml');
  writeFileSync(
    file,
    `name: bootstrapper-from-docker-hub
description: "OperatorHub install whose REC pins the bootstrapper in Docker Hub's repository, written by test/e2e/upgrade-image-pulls.test.ts"
dialect: redis
platform: openshift
kubernetesVersion: "1.33"
openshiftVersion: "4.20"
namespace: ${NAMESPACE}
operator:
  version: ${FROM}
  installedBy: olm
  olm:
    channel: "8.0.18"
    approval: Automatic
cluster:
  name: ${CLUSTER}
  versionTag: 8.0.18-36.14
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: 8.0.18-36
  imageSpecs:
    bootstrapper:
      repository: redislabs/operator
      versionTag: ${FROM}
      digestHash: "${imageDigest(`redislabs/operator:${FROM}`)}"
databases:
  - { name: journal, version: "8.2" }
`,
  );
  return file;
}

/** `kubectl get pods` as a user reads it: NAME and STATUS of each line. */
function statusColumn(table: string): Map<string, string> {
  return new Map(
    table
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/))
      .map((columns) => [columns[0] ?? '', columns[2] ?? '']),
  );
}

describe('images a cluster cannot pull (e2e, real kubectl)', () => {
  it('a run whose bootstrapper digest the registry lacks stalls naming the pod, the image and the fix; following it finishes', async () => {
    await withUpgradeSim(world(), async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-n', NAMESPACE]);
      assertExit(plan, 0, 'plan');

      const run = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        TARGET,
        '-n',
        NAMESPACE,
        '--yes',
        '--stall-timeout',
        '4s',
      ]);
      assertExit(run, 6, 'run that stalls on the image');
      const said = `${run.stdout}\n${run.stderr}`;
      const csv = await sim.get(['csv', `redis-enterprise-operator.v${TARGET}`, '-n', NAMESPACE]);
      const related = getPath(csv, ['spec', 'relatedImages']) as { name: string; image: string }[];
      const digest = related.find((r) => r.name === 'bootstrapper')?.image.split('@')[1];
      assert.ok(digest, `the target CSV relates the bootstrapper by digest: ${JSON.stringify(related)}`);
      const image = `redislabs/operator:${TARGET}@${digest}`;
      assert.ok(
        said.includes(
          `pod ${CLUSTER}-2 cannot pull the image "${image}" of its container bootstrapper (ImagePullBackOff)`,
        ),
        said,
      );
      assert.ok(said.includes('bootstrapperImageSpec.digestHash names no image of redislabs/operator'), said);
      // Said before the patch, by the cluster step: the digest is another repository's.
      assert.ok(
        said.includes(
          `bootstrapperImageSpec.digestHash gets the digest of registry.connect.redhat.com/redislabs/redis-enterprise-operator:${TARGET} (redis-enterprise-operator.v${TARGET} spec.relatedImages), but bootstrapperImageSpec.repository is redislabs/operator`,
        ),
        said,
      );
      assert.ok(said.includes(`describe pod ${CLUSTER}-2 -n ${NAMESPACE}`), said);
      const removeDigest = `patch rec ${CLUSTER} -n ${NAMESPACE} --type merge -p '{"spec":{"bootstrapperImageSpec":{"digestHash":null}}}'`;
      assert.ok(said.includes(removeDigest), said);

      // Where a user looks: the pod's STATUS column, the roll at that pod.
      const pods = statusColumn(await sim.kubectl(['get', 'pods', '-n', NAMESPACE]));
      assert.equal(pods.get(`${CLUSTER}-2`), 'ImagePullBackOff', [...pods].join('\n'));
      assert.equal(pods.get(`${CLUSTER}-1`), 'Running');
      const rec = await sim.get(['rec', CLUSTER, '-n', NAMESPACE]);
      assert.equal(getPath(rec, ['status', 'state']), 'Upgrade');

      // The way out the hint gives (the digest removed, the tag kept), then the resume.
      await sim.kubectl(removeDigest.split(' ').map((word) => word.replace(/^'|'$/g, '')));
      const resumed = await sim.ctl(['upgrade', 'run', '--to', TARGET, '-n', NAMESPACE, '--yes']);
      assertExit(resumed, 0, 'run again after the fix');
      await assertUpgraded(sim, { operator: TARGET, tag: TARGET_TAG, dbVersion: '8.6' });
      const after = statusColumn(await sim.kubectl(['get', 'pods', '-n', NAMESPACE]));
      for (const ordinal of [0, 1, 2]) assert.equal(after.get(`${CLUSTER}-${ordinal}`), 'Running');
    });
  });

  it('kubectl get pods shows the services rigger pod that cannot pull its pinned digest, the old one still running', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const ns = sim.cluster.scenario.namespace;
      const before = statusColumn(await sim.kubectl(['get', 'pods', '-n', ns]));
      const seeded = [...before].filter(([name]) => name.startsWith('rec-services-rigger-'));
      assert.equal(seeded.length, 1, [...before].join('\n'));
      assert.equal(seeded[0]?.[1], 'Running');

      await sim.kubectl([
        'patch',
        'rec',
        'rec',
        '-n',
        ns,
        '--type',
        'merge',
        '-p',
        JSON.stringify({
          spec: {
            redisEnterpriseServicesRiggerImageSpec: {
              versionTag: '7.4.6-2',
              digestHash: `sha256:${'0'.repeat(64)}`,
            },
          },
        }),
      ]);
      await sim.kubectl([
        'wait',
        '--for=jsonpath={.status.replicas}=2',
        'deployment/rec-services-rigger',
        '-n',
        ns,
        '--timeout=30s',
      ]);
      const pods = [...statusColumn(await sim.kubectl(['get', 'pods', '-n', ns]))].filter(([name]) =>
        name.startsWith('rec-services-rigger-'),
      );
      assert.deepEqual(
        pods.map(([, status]) => status).sort(),
        ['ImagePullBackOff', 'Running'],
        pods.join('\n'),
      );
      assert.ok(
        pods.some(([name, status]) => name === seeded[0]?.[0] && status === 'Running'),
        'the old pod stays',
      );
    });
  });
});
