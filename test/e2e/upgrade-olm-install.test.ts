// @peculiar/x509 (behind src/sim/tls.ts) needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { assertExit, getPath, withUpgradeSim } from './upgrade-support.js';

/**
 * ctl on an OperatorHub install as a real OLM install behaves (issue 27): OLM signs the webhook
 * it makes from the CSV's webhookdefinitions with its own CA. Scenarios are written here, with
 * namespaces and names of their own.
 */

interface PlanJson {
  checks: { id: string; status: string; message: string; fix: string }[];
  blocked: boolean;
}

/** An OperatorHub scenario file in a temporary folder removed on exit. */
export function olmScenarioFile(options: {
  name: string;
  namespace: string;
  cluster: string;
  operator?: string;
  versionTag?: string;
  apiVersion?: string;
  olm?: string;
  extra?: string;
}): string {
  const file = path.join(tempDir('ctl-olm-install-'), `${options.name}.yaml`);
  writeFileSync(
    file,
    `name: ${options.name}
description: "OperatorHub install written by test/e2e/upgrade-olm-install.test.ts"
dialect: redis
platform: openshift
kubernetesVersion: "1.29"
namespace: ${options.namespace}
operator:
  version: ${options.operator ?? '7.4.6-2'}
  installedBy: olm
  olm:
    channel: production
    approval: Manual
${options.olm ?? ''}
cluster:
  name: ${options.cluster}
  versionTag: ${options.versionTag ?? '7.4.6-22.rhel8-openshift'}
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: ${options.apiVersion ?? '7.4.6-22'}
databases:
  - { name: sessions, version: "7.2" }
${options.extra ?? ''}
`,
  );
  return file;
}

const check = (plan: PlanJson, id: string) => plan.checks.find((c) => c.id === id);

describe('admission-tls when OLM manages the webhook certificate (e2e)', () => {
  it("webhookCa olm: the webhook trusts OLM's CA; admission-tls passes and says so, with or without the Secret", async () => {
    const file = olmScenarioFile({ name: 'olm-own-ca', namespace: 'payments', cluster: 'ledger' });
    await withUpgradeSim(file, async (sim) => {
      const [webhook] = await sim.list(['validatingwebhookconfigurations']);
      const olmSecret = await sim.get(['secret', 'redis-enterprise-operator-service-cert', '-n', 'payments']);
      const caBundle = getPath(webhook, ['webhooks', '0', 'clientConfig', 'caBundle']);
      assert.equal(caBundle, getPath(olmSecret, ['data', 'olmCAKey']), "the caBundle is OLM's CA");

      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.8.6-19', '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const tls = check(JSON.parse(plan.stdout) as PlanJson, 'admission-tls');
      assert.equal(tls?.status, 'pass', JSON.stringify(tls));
      assert.match(
        tls?.message ?? '',
        /OLM manages the certificate of .*CSV redis-enterprise-operator\.v7\.4\.6-2/,
      );

      await sim.kubectl(['delete', 'secret', 'admission-tls', '-n', 'payments']);
      const without = await sim.ctl(['upgrade', 'plan', '--to', '7.8.6-19', '-o', 'json']);
      assertExit(without, 0, 'plan without admission-tls');
      const after = check(JSON.parse(without.stdout) as PlanJson, 'admission-tls');
      assert.equal(after?.status, 'pass', JSON.stringify(after));
      assert.match(after?.message ?? '', /OLM manages the certificate/);
    });
  });

  it("webhookCa operator: the operator's admission-tls signs it, and the check still says so", async () => {
    const file = olmScenarioFile({
      name: 'olm-operator-ca',
      namespace: 'billing',
      cluster: 'main',
      olm: '    webhookCa: operator',
    });
    await withUpgradeSim(file, async (sim) => {
      const [webhook] = await sim.list(['validatingwebhookconfigurations']);
      const secret = await sim.get(['secret', 'admission-tls', '-n', 'billing']);
      assert.equal(
        getPath(webhook, ['webhooks', '0', 'clientConfig', 'caBundle']),
        getPath(secret, ['data', 'cert']),
      );
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.8.6-19', '-o', 'json']);
      assertExit(plan, 0, 'plan');
      assert.equal(check(JSON.parse(plan.stdout) as PlanJson, 'admission-tls')?.status, 'pass');
    });
  });
});
