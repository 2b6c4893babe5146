import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { assertExit, assertNoChanges, assertUpgraded, getPath, withUpgradeSim } from './upgrade-support.js';

/**
 * An OperatorHub install whose cluster runs the minimal base image (`<tag>.minimal`, redis.io
 * kubernetes/security/minimal-base-image.md) with its node image pinned by digest, as an OLM
 * install pins it. The certified CSV relates the minimal node image under its own name,
 * `redis-enterprise-node-minimal`, in the same repository as the full image's
 * `redis-enterprise-node` (certified-operators redis-enterprise-operator-cert 8.0.18-11.0 on,
 * spec.relatedImages): the digest that goes next to the `.minimal` tag is that entry's, or the
 * nodes would pull the full image ("pulled according to the digest hash instead of the image tag",
 * the REC CRD's digestHash). Names and namespace are used nowhere else.
 */

const NAMESPACE = 'payments';
const CLUSTER = 'ledger';
const TARGET = '8.2.0-18';
const TARGET_CSV = `redis-enterprise-operator.v${TARGET}`;
const TARGET_TAG = '8.2.0-78.18.minimal';

function minimalWorld(): string {
  const file = path.join(tempDir('ctl-olm-minimal-'), 'olm-minimal-payments.yaml');
  writeFileSync(
    file,
    `name: olm-minimal-payments
description: "OperatorHub install on the minimal base image, written by test/e2e/upgrade-olm-minimal.test.ts"
dialect: redis
platform: openshift
kubernetesVersion: "1.33"
openshiftVersion: "4.20"
namespace: ${NAMESPACE}
operator:
  version: 8.0.18-14
  installedBy: olm
  olm:
    channel: "8.0.18"
    approval: Automatic
cluster:
  name: ${CLUSTER}
  versionTag: 8.0.18-36.14.minimal
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: 8.0.18-36
databases:
  - { name: ledger-cache, version: "8.2" }
`,
  );
  return file;
}

interface PlanJson {
  blocked: boolean;
  target: { clusterVersion: string | null };
  checks: { id: string; status: string; message: string }[];
  steps: { id: string; actions: { command: string }[] }[];
}

describe('OLM, a cluster on the minimal base image (e2e)', () => {
  it('plan and run take the digest of redis-enterprise-node-minimal from the target CSV', async () => {
    await withUpgradeSim(minimalWorld(), async (sim) => {
      const recOf = () => sim.get(['rec', CLUSTER, '-n', NAMESPACE]);
      const oldDigest = getPath(await recOf(), ['spec', 'redisEnterpriseImageSpec', 'digestHash']);
      assert.match(String(oldDigest), /^sha256:/, 'OLM pinned the node image by digest');

      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-n', NAMESPACE, '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const doc = JSON.parse(plan.stdout) as PlanJson;
      assert.equal(doc.blocked, false);
      assert.equal(doc.target.clusterVersion, TARGET_TAG);
      assert.equal(doc.checks.find((c) => c.id === 'auto-upgrade-digest')?.status, 'pass');
      const line = doc.steps.find((s) => s.id === 'cluster')?.actions[0]?.command ?? '';
      assert.match(
        line,
        new RegExp(
          `REDIS_ENTERPRISE_DIGEST=\\$\\(kubectl --kubeconfig \\S+ get csv ${TARGET_CSV.replaceAll('.', '\\.')} -n ${NAMESPACE} -o '[^']+' \\| RELATED_NAME=redis-enterprise-node-minimal awk '`,
        ),
        line,
      );
      // By name only: the full image shares the repository, and comes first in the CSV.
      assert.doesNotMatch(line, /RELATED_REPOSITORY=/);

      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '-n', NAMESPACE, '--yes', '-o', 'json']);
      assertExit(run, 0, 'run');
      // The run upgrades the databases to the target's default version (8.6 for 8.2.0-18).
      await assertUpgraded(sim, { operator: TARGET, tag: TARGET_TAG, dbVersion: '8.6' });

      const csv = await sim.get(['csv', TARGET_CSV, '-n', NAMESPACE]);
      const related = getPath(csv, ['spec', 'relatedImages']) as { name: string; image: string }[];
      const digestOf = (name: string) => related.find((r) => r.name === name)?.image.split('@')[1];
      const minimal = digestOf('redis-enterprise-node-minimal');
      assert.ok(minimal, `the target CSV relates the minimal node image: ${JSON.stringify(related)}`);
      assert.notEqual(minimal, digestOf('redis-enterprise-node'));
      const digest = getPath(await recOf(), ['spec', 'redisEnterpriseImageSpec', 'digestHash']);
      assert.equal(digest, minimal, 'the .minimal tag gets the minimal image digest, not the full one');
      assert.notEqual(digest, oldDigest);
    });
  });

  it('--cluster-version of the standard image under the digest: refused, saying the variant is why (exit 3, nothing changed)', async () => {
    await withUpgradeSim(minimalWorld(), async (sim) => {
      const standard = TARGET_TAG.replace(/\.minimal$/, '');
      const plan = await sim.ctl([
        'upgrade',
        'plan',
        '--to',
        TARGET,
        '-n',
        NAMESPACE,
        '--cluster-version',
        standard,
      ]);
      assertExit(plan, 3, 'plan --cluster-version <the standard image>');
      // Exact: the target CSV relates both node images of its release (the standard one as
      // redis-enterprise-node); what ctl takes is the digest of the variant the cluster runs.
      assert.match(
        plan.stdout,
        new RegExp(
          `FAIL auto-upgrade-digest .*\\(ctl takes the node image's digest from ${TARGET_CSV.replaceAll('.', '\\.')} for the minimal base image the cluster runs \\(${TARGET_TAG.replaceAll('.', '\\.')}\\) only, and --cluster-version ${standard.replaceAll('.', '\\.')} is the standard image of that release; leave --cluster-version out to stay on the minimal base image, or remove the digest\\)`,
        ),
      );
      assert.doesNotMatch(plan.stdout, /relates the node image of \S+ only/);
      const run = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        TARGET,
        '-n',
        NAMESPACE,
        '--cluster-version',
        standard,
        '--yes',
      ]);
      assertExit(run, 3, 'run --cluster-version <the standard image>');
      assert.match(run.stderr, /is the standard image of that release; leave --cluster-version out/);
      assertNoChanges(sim, 0, 'the refused plan and run');
    });
  });
});
