import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import type { KubeObject } from '../../../src/kube/reads.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { contains, createAdmissionStep } from '../../../src/steps/admission.js';
import { harness, stderrLines } from './fakes.js';
import { writeReleaseTree } from './release-tree.js';

const TARGET = '7.8.2-6';
const CERT = Buffer.from('-----BEGIN CERTIFICATE-----\nnew\n-----END CERTIFICATE-----\n').toString('base64');
const VWC = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };

function webhook(name: string, entry: string, caBundle: string, namespace = 'redis'): KubeObject {
  return {
    ...VWC,
    metadata: { name },
    webhooks: [
      {
        name: entry,
        clientConfig: { service: { name: 'admission', namespace, path: '/admission' }, caBundle },
      },
    ],
  };
}

function secret(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'admission-tls', namespace: 'redis' },
    data: { cert: CERT, key: 'a2V5' },
  };
}

function setup(options: Parameters<typeof harness>[0] = {}) {
  const h = harness({ ...options, target: { bundle: writeReleaseTree([TARGET]), ...options.target } });
  return { h, step: createAdmissionStep({ wait: h.cluster.wait() }) };
}

describe('admission step', () => {
  it('is skipped when the operator has no webhook', async () => {
    const { h, step } = setup();
    h.cluster.put(webhook('other', 'validate.example.com', ''));
    assert.deepEqual(await h.run(step), {
      skipped: 'admission controller not enabled for the operator in redis',
    });
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('is skipped for helm installs: the chart renders the webhook', async () => {
    const { h, step } = setup({
      target: { method: 'helm' },
    });
    h.cluster.put(webhook('redis-enterprise-admission-redis', 'redisenterprise.admission.redislabs', CERT));
    assert.deepEqual(await h.run(step), { skipped: 'the helm chart manages the admission webhook' });
  });

  it('deletes the pre-6.4.2 redb-admission and applies the release webhook with the caBundle set', async () => {
    const { h, step } = setup();
    h.cluster.put(webhook('redb-admission', 'redb.admission.redislabs', 'b2xk'));
    h.cluster.put(secret());
    const result = await h.run(step);
    assert.deepEqual(h.cluster.writes(), [
      'delete ValidatingWebhookConfiguration/redb-admission',
      'apply ValidatingWebhookConfiguration/redis-enterprise-admission',
    ]);
    assert.equal(
      h.log.findIndex((e) => e.type === 'intent'),
      0,
      'the intent comes first',
    );
    const applied = h.cluster.get(VWC.apiVersion, VWC.kind, 'redis-enterprise-admission');
    const entry = (
      applied?.webhooks as {
        name: string;
        clientConfig: { caBundle: string; service: { namespace: string } };
      }[]
    )[0];
    assert.equal(entry?.name, 'redisenterprise.admission.redislabs');
    assert.equal(entry?.clientConfig.caBundle, CERT);
    assert.equal(entry?.clientConfig.service.namespace, 'redis', 'OPERATOR_NAMESPACE is replaced');
    assert.equal(result.outcome?.webhook, 'redis-enterprise-admission');
    assert.equal(result.outcome?.legacyDeleted, true);
    assert.deepEqual(result.outcome?.entries, ['redisenterprise.admission.redislabs']);
  });

  it("the plan's commands make the webhook the step applies (run through sh)", async () => {
    const bundle = writeReleaseTree([TARGET]);
    const { h, step } = setup({
      target: { bundle },
      snapshot: (s) => {
        if (s.operator) s.operator.namespace = 'ops';
        // The operator in ops: its webhooks call its service there.
        for (const entry of s.webhooks[0]?.webhooks ?? []) entry.serviceNamespace = 'ops';
        s.webhooks.push({ name: 'redb-admission', webhooks: [{ name: 'redb.admission.redislabs' }] });
      },
    });
    h.cluster.put(webhook('redb-admission', 'redb.admission.redislabs', 'b2xk', 'ops'));
    h.cluster.put({ ...secret(), metadata: { name: 'admission-tls', namespace: 'ops' } });
    await h.run(step);
    const commands = h.deps.plan.steps.find((s) => s.id === 'admission')?.actions.map((a) => a.command);
    assert.equal(commands?.length, 3);
    const [wait, remove, apply] = commands as [string, string, string];
    assert.match(wait, /kubectl get secret admission-tls -n ops /);
    assert.equal(remove, 'kubectl delete validatingwebhookconfiguration redb-admission');
    assert.deepEqual(h.cluster.writes(), [
      'delete ValidatingWebhookConfiguration/redb-admission',
      'apply ValidatingWebhookConfiguration/redis-enterprise-admission',
    ]);
    // `CERT=$(kubectl get secret ...) && <print webhook.yaml> | sed ... | kubectl apply ...`:
    // run the middle with CERT set, and compare with what the step applied.
    const prefix = /^CERT=\$\(kubectl get secret admission-tls -n ops -o 'jsonpath=\{\.data\.cert\}'\) && /;
    const suffix = ' | kubectl apply --server-side --force-conflicts --field-manager=ctl -f -';
    assert.match(apply, prefix);
    assert.ok(apply.endsWith(suffix), apply);
    const pipeline = apply.replace(prefix, '').slice(0, -suffix.length);
    assert.ok(pipeline.includes(bundle.replace('{version}/bundle.yaml', `${TARGET}/admission/webhook.yaml`)));
    const rendered = parse(
      execFileSync('sh', ['-c', pipeline], { env: { PATH: process.env.PATH, CERT }, encoding: 'utf8' }),
    ) as KubeObject;
    const applied = h.cluster.get(VWC.apiVersion, VWC.kind, 'redis-enterprise-admission');
    assert.ok(applied);
    assert.ok(contains(applied, rendered), JSON.stringify({ rendered, applied }));
    assert.ok(
      contains(rendered, { webhooks: [{ clientConfig: { caBundle: CERT, service: { namespace: 'ops' } } }] }),
    );
  });

  it('is idempotent: a second run finds the webhook up to date and writes nothing', async () => {
    const { h, step } = setup();
    h.cluster.put(webhook('redis-enterprise-admission', 'redisenterprise.admission.redislabs', 'b2xk'));
    h.cluster.put(secret());
    await h.run(step);
    const writes = h.cluster.writes().length;
    const again = await h.run(step);
    assert.deepEqual(again, {
      skipped: 'redis-enterprise-admission is already up to date and trusts admission-tls',
    });
    assert.equal(h.cluster.writes().length, writes);
  });

  it('waits for the operator to create Secret admission-tls', async () => {
    const { h, step } = setup();
    h.cluster.put(webhook('redis-enterprise-admission', 'redisenterprise.admission.redislabs', ''));
    let ticks = 0;
    h.cluster.onTick = (cluster) => {
      if (++ticks === 2) cluster.put(secret());
    };
    const result = await h.run(step);
    assert.ok(h.log.some((e) => e.type === 'progress' && e.text === 'no Secret admission-tls yet'));
    assert.equal(result.outcome?.webhook, 'redis-enterprise-admission');
  });

  it('dry-run: only "would" lines, nothing written', async () => {
    const { h } = setup();
    const step = createAdmissionStep({
      wait: () => Promise.reject(new Error('no wait in dry-run')),
    });
    h.cluster.put(webhook('redb-admission', 'redb.admission.redislabs', ''));
    await h.run(step, { dryRun: true });
    assert.deepEqual(h.cluster.writes(), []);
    assert.deepEqual(stderrLines(h.test), [
      'would delete validatingwebhookconfiguration/redb-admission',
      'would apply validatingwebhookconfiguration/redis-enterprise-admission',
    ]);
  });
});

describe('admission step, dry-run before the operator made Secret admission-tls', () => {
  it('hands the API server the release webhook as it is, never a placeholder caBundle', async () => {
    const { h } = setup();
    const step = createAdmissionStep({
      wait: () => Promise.reject(new Error('no wait in dry-run')),
    });
    h.cluster.put(webhook('redis-enterprise-admission', 'redisenterprise.admission.redislabs', 'b2xk'));
    // What --dry-run=server sends to be judged: the objects given to apply.
    const sent: KubeObject[] = [];
    h.deps.kubeWriter.apply = async (objects) => {
      sent.push(...objects);
      return [];
    };
    await h.run(step, { dryRun: true });
    assert.equal(sent.length, 1);
    const entries = sent[0]?.webhooks as { clientConfig: { caBundle?: string } }[];
    assert.deepEqual(
      entries.map((e) => e.clientConfig.caBundle),
      [''],
      'the caBundle of the release webhook.yaml',
    );
    assert.doesNotMatch(JSON.stringify(sent), /</);
  });
});

/**
 * The plan skips the step as idle when the operator and the trusted webhook are at the target and
 * nothing else has work (planAdmission's idleAlone). A run that goes on anyway (it resumes an
 * unfinished record) does what the plan said: it neither reads webhook.yaml nor rewrites the
 * webhook, as long as the live webhook still trusts admission-tls.
 */
describe('admission step, the plan idle', () => {
  /** Operator, cluster and database at TARGET; the webhook trusts the snapshot's certificate. */
  const atTarget = (s: Snapshot) => {
    s.operator!.version = TARGET;
    s.operator!.image = `redislabs/operator:${TARGET}`;
    s.cluster!.image.versionTag = '7.8.2-60';
    for (const node of s.api.nodes) node.software_version = '7.8.2-60';
    s.databases[0]!.statusVersion = '7.4.2';
  };
  /** A release tree that is not there: reading webhook.yaml would fail the step. */
  const nowhere = { bundle: '/nonexistent/ctl-release/{version}/bundle.yaml' };
  const REASON = 'redis-enterprise-admission is current and trusts admission-tls';

  it('skips with the plan reason, reads no file and writes nothing, even where the live webhook differs', async () => {
    const h = harness({ snapshot: atTarget, target: nowhere });
    const step = createAdmissionStep({ wait: h.cluster.wait() });
    assert.equal(h.deps.plan.steps.find((s) => s.id === 'admission')?.skip, REASON);
    // Trusted, but lacking what the release's webhook.yaml sets: a compare would apply it.
    h.cluster.put(webhook('redis-enterprise-admission', 'redisenterprise.admission.redislabs', CERT));
    h.cluster.put(secret());
    assert.deepEqual(await h.run(step), { skipped: REASON });
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('a live webhook that no longer trusts admission-tls is not what the plan saw: the step reapplies it', async () => {
    const h = harness({ snapshot: atTarget, target: { bundle: writeReleaseTree([TARGET]) } });
    const step = createAdmissionStep({ wait: h.cluster.wait() });
    h.cluster.put(webhook('redis-enterprise-admission', 'redisenterprise.admission.redislabs', 'c3RhbGU='));
    h.cluster.put(secret());
    const result = await h.run(step);
    assert.equal(result.outcome?.webhook, 'redis-enterprise-admission');
    assert.deepEqual(h.cluster.writes(), ['apply ValidatingWebhookConfiguration/redis-enterprise-admission']);
  });

  it('a pre-6.4.2 webhook still there is not what the plan saw either: deleted, the new one applied', async () => {
    const h = harness({ snapshot: atTarget, target: { bundle: writeReleaseTree([TARGET]) } });
    const step = createAdmissionStep({ wait: h.cluster.wait() });
    h.cluster.put(webhook('redis-enterprise-admission', 'redisenterprise.admission.redislabs', CERT));
    h.cluster.put(webhook('redb-admission', 'redb.admission.redislabs', CERT));
    h.cluster.put(secret());
    await h.run(step);
    assert.deepEqual(h.cluster.writes(), [
      'delete ValidatingWebhookConfiguration/redb-admission',
      'apply ValidatingWebhookConfiguration/redis-enterprise-admission',
    ]);
  });
});

describe('contains', () => {
  it('accepts server defaults and rejects a changed value', () => {
    const desired = { a: 1, list: [{ name: 'x', v: 'y' }] };
    assert.equal(contains({ a: 1, b: 2, list: [{ name: 'x', v: 'y', extra: true }] }, desired), true);
    assert.equal(contains({ a: 1, list: [{ name: 'x', v: 'z' }] }, desired), false);
    assert.equal(contains({ a: 1, list: [] }, desired), false);
    assert.equal(contains(undefined, desired), false);
  });
});
