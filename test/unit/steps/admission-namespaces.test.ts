import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/reads.js';
import { isOwnWebhook } from '../../../src/planning/own-webhook.js';
import { createAdmissionStep } from '../../../src/steps/admission.js';
import { planUpgrade } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';
import { harness } from './fakes.js';
import { removeReleaseTree, writeReleaseTree } from './release-tree.js';

const TARGET = '7.8.2-6';
const VWC = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };

/** The webhook another namespace's operator (in `team-b`) applied from the same bundle. */
function othersWebhook(): KubeObject {
  return {
    ...VWC,
    metadata: { name: 'redis-enterprise-admission' },
    webhooks: [
      {
        name: 'redisenterprise.admission.redislabs',
        clientConfig: {
          service: { name: 'admission', namespace: 'team-b', path: '/admission' },
          caBundle: 'b3RoZXI=',
        },
      },
    ],
  };
}

describe("admission: only this operator's webhook counts", () => {
  it("ownership comes from the service namespace, the namespace selector, or helm's per-namespace name", () => {
    const entry = (extra: Record<string, string | undefined>) => ({
      name: 'redisenterprise.admission.redislabs',
      ...extra,
    });
    assert.equal(
      isOwnWebhook(
        { name: 'redis-enterprise-admission', webhooks: [entry({ serviceNamespace: 'redis' })] },
        'redis',
      ),
      true,
    );
    assert.equal(
      isOwnWebhook(
        { name: 'redis-enterprise-admission', webhooks: [entry({ serviceNamespace: 'team-b' })] },
        'redis',
      ),
      false,
    );
    assert.equal(
      isOwnWebhook({ name: 'x', webhooks: [entry({ selectorNamespace: 'redis' })] }, 'redis'),
      true,
    );
    assert.equal(
      isOwnWebhook({ name: 'redis-enterprise-admission-redis', webhooks: [entry({})] }, 'redis'),
      true,
    );
    assert.equal(
      isOwnWebhook({ name: 'redis-enterprise-admission-team-b', webhooks: [entry({})] }, 'redis'),
      false,
    );
  });

  it("plan: another namespace's webhook does not enable admission here", () => {
    const snapshot = makeSnapshot((s) => {
      s.webhooks = [
        {
          name: 'redis-enterprise-admission',
          webhooks: [
            { name: 'redisenterprise.admission.redislabs', caBundle: 'b3RoZXI=', serviceNamespace: 'team-b' },
          ],
        },
      ];
    });
    const plan = planUpgrade(snapshot, makeTarget());
    const step = plan.steps.find((s) => s.id === 'admission')!;
    assert.match(
      step.skip ?? '',
      /not enabled for the operator in redis \(left alone: redis-enterprise-admission/,
    );
    assert.equal(plan.checks.find((c) => c.id === 'admission-tls')!.status, 'pass');
  });

  it("run: the other namespace's webhook is neither taken as enabled nor overwritten", async (t) => {
    const bundle = writeReleaseTree([TARGET]);
    t.after(() => removeReleaseTree(bundle));
    const h = harness({ target: { bundle } });
    h.cluster.put(othersWebhook());
    const result = await h.run(createAdmissionStep({ wait: h.cluster.wait() }));
    assert.match(String(result.skipped), /not enabled for the operator in redis/);
    assert.deepEqual(h.cluster.writes(), []);
    const still = h.cluster.get(VWC.apiVersion, VWC.kind, 'redis-enterprise-admission');
    assert.equal(
      (still?.webhooks as { clientConfig: { caBundle: string } }[])[0]?.clientConfig.caBundle,
      'b3RoZXI=',
    );
  });
});
