/**
 * Step `admission`: re-apply the release's ValidatingWebhookConfiguration and make the API
 * server trust the operator's admission certificate (DOCS embeds
 * `k8s-642-redb-admission-webhook-name-change.md`, `k8s-admission-webhook-cert.md`).
 *
 * The upstream procedure applies `webhook.yaml` with an empty caBundle and patches the
 * caBundle afterwards; with `failurePolicy: Fail` every database write is refused in between.
 * ctl waits for Secret `admission-tls` first and server-side applies the webhook with its
 * caBundle already set: one absolute write, the same end state, no window.
 *
 * Skipped when the operator has no webhook (admission not enabled) and for helm installs (the
 * chart renders its own webhook, as the plan says). Idempotent: when the live webhook already
 * holds everything the release's webhook.yaml sets, with the current certificate, nothing is
 * written. Skipped without reading webhook.yaml where the plan skipped the step as idle (the
 * operator and the trusted webhook at the target, nothing else to do) and the live webhook still
 * trusts admission-tls: a resumed run does what the plan said.
 */

import { createHash } from 'node:crypto';
import { OperationError } from '../errors.js';
import { loadManifests } from '../kube/bundle.js';
import type { KubeObject } from '../kube/reads.js';
import { waitForObject } from '../kube/watch.js';
import { listObjects, readObject } from '../kube/write.js';
import { webhookNameFor } from '../release/catalog.js';
import { ADMISSION_TLS_SECRET, toWebhook, type WebhookSnapshot } from '../planning/snapshot.js';
import { isOwnWebhook, notEnabledReason, splitWebhooks } from '../planning/own-webhook.js';
import { UpgradeDeps, UpgradeStep } from './deps.js';
import type { ReleaseFileUse } from '../planning/bundle-source.js';
import { releaseFileToRead } from './release-files.js';
import type { StepContext, StepResult } from '../run/step.js';
import {
  type PlanAction,
  type PlanContext,
  type StepPlan,
  action,
  operatorIsCurrent,
  operatorNamespace,
  releaseFile,
} from '../planning/plan.js';
import {
  kubectl,
  kubectlApply,
  printManifest,
  SERVER_SIDE_APPLY_FLAGS,
} from '../planning/equivalent-commands.js';
import { APPLY_VERBS, type StepPermission } from '../planning/permissions.js';
import { stepWaitWarning } from './wait-warnings.js';

/** The Kubernetes permissions this step needs; the plan's `permissions` check reviews them. */
const PERMISSIONS: readonly StepPermission[] = [
  {
    group: 'admissionregistration.k8s.io',
    resource: 'validatingwebhookconfigurations',
    verbs: [...APPLY_VERBS, 'delete'],
    scope: 'cluster',
    when: 'admission',
    why: 'reapply the webhook, set its caBundle, delete the pre-6.4.2 one',
  },
];

export interface AdmissionStepOptions {
  wait?: typeof waitForObject;
}

export function createAdmissionStep(options: AdmissionStepOptions = {}): UpgradeStep<'admission'> {
  const wait = options.wait ?? waitForObject;
  return {
    id: 'admission',
    title: 'Reapply the admission webhook',
    permissions: PERMISSIONS,
    plan: planAdmission,
    // Read whenever the step acts, the operator at the target or not (planAdmission).
    releaseFiles: () => [WEBHOOK_FILE],
    run: (ctx) => reapplyWebhook(ctx, wait),
  };
}

export const admissionStep = createAdmissionStep();

const WEBHOOK_API = 'admissionregistration.k8s.io/v1';
const WEBHOOK_KIND = 'ValidatingWebhookConfiguration';
const LEGACY_WEBHOOK = 'redb-admission';
/** The operator's webhook entries are all named `<something>.admission.redislabs`. */
const ENTRY_SUFFIX = '.admission.redislabs';
/** The release's webhook, in its tree (K8S `admission/webhook.yaml`). */
const WEBHOOK_FILE: ReleaseFileUse = {
  file: 'admission/webhook.yaml',
  why: "the admission step applies the release's webhook (admission/webhook.yaml)",
};

async function reapplyWebhook(
  ctx: StepContext<UpgradeDeps>,
  wait: typeof waitForObject,
): Promise<StepResult> {
  const { deps, io } = ctx;
  const { kube, kubeWriter, snapshot, plan } = deps;
  if (plan.target.method === 'helm') return { skipped: 'the helm chart manages the admission webhook' };

  const namespace = snapshot.operator?.namespace ?? snapshot.namespace;
  const operatorWebhooks = (await listObjects(kube, WEBHOOK_API, WEBHOOK_KIND)).filter(isOperatorWebhook);
  // Only THIS operator's webhooks count (src/planning/own-webhook.ts): another namespace's
  // neither enables admission here nor may be overwritten.
  const others = operatorWebhooks.filter((w) => !isOwnWebhook(toWebhook(w), namespace));
  const live = operatorWebhooks.filter((w) => !others.includes(w));
  if (live.length === 0) return { skipped: notEnabledReason(others.map(toWebhook), namespace) };
  const olmOwned = olmManagedReason(live.map(toWebhook));
  if (plan.target.method === 'olm' && olmOwned) return { skipped: olmOwned };

  const target = plan.target.operator;
  const cert = await admissionCert(ctx, namespace, wait);
  const idle = idleAsPlanned(plan, live, webhookNameFor(target), cert);
  if (idle) return { skipped: idle };

  const location = releaseFileToRead(deps, WEBHOOK_FILE);
  const manifests = await loadManifests(location, {
    replacements: { OPERATOR_NAMESPACE: namespace },
    signal: ctx.signal,
    io,
  });
  const webhook = manifests.find((o) => o.kind === WEBHOOK_KIND);
  if (!webhook) {
    throw new OperationError(`${location} holds no ${WEBHOOK_KIND}`, {
      hint: 'Check that --bundle points at the release tree (admission/webhook.yaml next to bundle.yaml).',
    });
  }
  const name = webhook.metadata?.name ?? webhookNameFor(target);
  const legacy = name !== LEGACY_WEBHOOK ? live.find((w) => w.metadata?.name === LEGACY_WEBHOOK) : undefined;

  // No certificate only in dry-run, before the operator has made the Secret: the release's
  // webhook as it is, never a placeholder the API server would judge (--dry-run=server).
  const desired = cert === undefined ? webhook : withCaBundle(webhook, cert);
  const current = live.find((w) => w.metadata?.name === name);
  if (!legacy && cert !== undefined && current && contains(current, desired)) {
    return { skipped: `${name} is already up to date and trusts ${ADMISSION_TLS_SECRET}` };
  }

  await ctx.recordIntent({
    webhook: name,
    source: location,
    deleteLegacy: legacy ? LEGACY_WEBHOOK : null,
    caBundleFrom: `secret/${ADMISSION_TLS_SECRET} -n ${namespace}`,
  });
  if (legacy) {
    ctx.progress(`deleting the pre-6.4.2 webhook ${LEGACY_WEBHOOK}`);
    await kubeWriter.deleteIfExists({ apiVersion: WEBHOOK_API, kind: WEBHOOK_KIND, name: LEGACY_WEBHOOK });
  }
  ctx.progress(`applying ${name} with the caBundle of Secret ${ADMISSION_TLS_SECRET}`);
  await kubeWriter.apply([desired]);
  // Nothing was applied in dry-run, so there is nothing to verify.
  if (ctx.dryRun) return { outcome: { dryRun: true, webhook: name, legacyDeleted: Boolean(legacy) } };

  const applied = await readObject(kube, { apiVersion: WEBHOOK_API, kind: WEBHOOK_KIND, name });
  const entries = webhooksOf(applied);
  if (!applied || entries.length === 0 || !entries.every((e) => caBundleOf(e) === cert)) {
    throw new OperationError(
      `the caBundle of ${name} does not match Secret ${ADMISSION_TLS_SECRET} after applying it`,
      {
        hint: `Compare ${kubectl(snapshot.kubeTarget, 'get', 'validatingwebhookconfiguration', name)} -o jsonpath='{.webhooks[*].clientConfig.caBundle}' with ${kubectl(snapshot.kubeTarget, 'get', 'secret', ADMISSION_TLS_SECRET, '-n', namespace)} -o jsonpath='{.data.cert}'; something else may be rewriting the webhook. Then run ctl again.`,
      },
    );
  }
  return {
    outcome: {
      webhook: name,
      entries: entries.map((e) => String(e.name ?? '')),
      legacyDeleted: Boolean(legacy),
      // The certificate is public but long; its digest shows which one is trusted.
      caBundleSha256: createHash('sha256')
        .update(cert ?? '')
        .digest('hex')
        .slice(0, 16),
    },
  };
}

/**
 * The plan's reason when it skipped this step as idle (planAdmission's `idleAlone`: the operator at
 * the target, the webhook named for it trusting admission-tls, no pre-6.4.2 one, and no other step
 * with work) and the live webhooks still say so; else undefined. A run that goes on anyway (it
 * resumes an unfinished record, src/commands/run-target-reached.ts) then does what the plan said
 * rather than compare with, and maybe rewrite, a webhook the plan called current.
 */
function idleAsPlanned(
  plan: UpgradeDeps['plan'],
  live: readonly KubeObject[],
  name: string,
  cert: string | undefined,
): string | undefined {
  const reason = idleReason(name);
  // Only the idle skip: the plan's other skips (no webhook, helm, OLM) the run judges live above.
  if (plan.steps.find((s) => s.id === 'admission')?.skip !== reason || cert === undefined) return undefined;
  const current = live.find((w) => w.metadata?.name === name);
  const legacy = name !== LEGACY_WEBHOOK && live.some((w) => w.metadata?.name === LEGACY_WEBHOOK);
  const entries = webhooksOf(current);
  const trusted = entries.length > 0 && entries.every((e) => caBundleOf(e) === cert);
  return trusted && !legacy ? reason : undefined;
}

/** The plan's reason for skipping the step as idle (planAdmission's `idleAlone`). */
function idleReason(webhook: string): string {
  return `${webhook} is current and trusts ${ADMISSION_TLS_SECRET}`;
}

function isOperatorWebhook(object: KubeObject): boolean {
  return webhooksOf(object).some((w) => typeof w.name === 'string' && w.name.endsWith(ENTRY_SUFFIX));
}

/**
 * `data.cert` of Secret admission-tls (base64 PEM, exactly what a caBundle holds). The operator
 * creates the Secret when it starts, so a fresh operator may not have written it yet: wait for
 * it. In dry-run there is nothing to wait for; undefined when it does not exist yet.
 */
async function admissionCert(
  ctx: StepContext<UpgradeDeps>,
  namespace: string,
  wait: typeof waitForObject,
): Promise<string | undefined> {
  const { kube, settings } = ctx.deps;
  const ref = { apiVersion: 'v1', kind: 'Secret', name: ADMISSION_TLS_SECRET, namespace };
  const now = certOf(await readObject(kube, ref));
  if (now !== undefined || ctx.dryRun) return now;
  ctx.progress(`waiting for the operator to create Secret ${ADMISSION_TLS_SECRET}`);
  const secret = await wait<KubeObject>({
    kube,
    path: `/api/v1/namespaces/${namespace}/secrets`,
    name: ADMISSION_TLS_SECRET,
    signal: ctx.signal,
    timeoutMs: settings.timeoutMs,
    stallTimeoutMs: settings.stallTimeoutMs,
    description: `Secret ${ADMISSION_TLS_SECRET} in ${namespace}`,
    hint: `The operator creates it when it starts: check the operator pod (${kubectl(ctx.deps.snapshot.kubeTarget, 'logs', 'deployment/redis-enterprise-operator', '-n', namespace)}), then run ctl again.`,
    check: (object) =>
      certOf(object) !== undefined ||
      (object
        ? `Secret ${ADMISSION_TLS_SECRET} has no key cert yet`
        : `no Secret ${ADMISSION_TLS_SECRET} yet`),
    onProgress: (message) => ctx.progress(message),
    onWarning: stepWaitWarning(ctx),
  });
  return certOf(secret);
}

function certOf(secret: KubeObject | undefined): string | undefined {
  const cert = secret?.data?.cert;
  return typeof cert === 'string' && cert !== '' ? cert : undefined;
}

function webhooksOf(object: KubeObject | undefined): Record<string, unknown>[] {
  const list = object?.webhooks;
  return Array.isArray(list)
    ? list.filter((w): w is Record<string, unknown> => typeof w === 'object' && w !== null)
    : [];
}

function caBundleOf(entry: Record<string, unknown>): unknown {
  const clientConfig = entry.clientConfig as Record<string, unknown> | undefined;
  return clientConfig?.caBundle;
}

/** The webhook with every entry's caBundle set to the certificate. */
export function withCaBundle(webhook: KubeObject, cert: string): KubeObject {
  return {
    ...webhook,
    webhooks: webhooksOf(webhook).map((entry) => ({
      ...entry,
      clientConfig: {
        ...((entry.clientConfig as Record<string, unknown> | undefined) ?? {}),
        caBundle: cert,
      },
    })),
  };
}

/**
 * True when `live` holds every field `desired` sets, with the same value (objects: a subset;
 * lists: the same length, element by element). Fields the API server defaults are ignored.
 */
export function contains(live: unknown, desired: unknown): boolean {
  if (Array.isArray(desired)) {
    return (
      Array.isArray(live) &&
      live.length === desired.length &&
      desired.every((item, i) => contains(live[i], item))
    );
  }
  if (desired !== null && typeof desired === 'object') {
    if (live === null || typeof live !== 'object' || Array.isArray(live)) return false;
    return Object.entries(desired as Record<string, unknown>).every(([key, value]) =>
      contains((live as Record<string, unknown>)[key], value),
    );
  }
  return live === desired;
}

// ---- plan: pure, from the snapshot and the target (the run half re-reads live state)

/**
 * As the step does it: wait for the operator's Secret admission-tls, delete the pre-6.4.2
 * webhook, then apply the release's webhook.yaml once with every caBundle already set (the
 * upstream apply-then-patch leaves a window in which every database write is refused). When
 * the live webhook already trusts admission-tls, the step writes only if the live one differs
 * from the release's, and the plan says that rather than an apply the run may skip; the file
 * is read either way (check target-available asks for it).
 */
function planAdmission({ snapshot, target, resolved }: PlanContext): StepPlan {
  const ns = operatorNamespace(snapshot);
  const { own, others } = splitWebhooks(snapshot.webhooks, ns);
  if (own.length === 0) return { skip: notEnabledReason(others, ns) };
  if (resolved.method === 'helm') return { skip: 'the helm chart manages the admission webhook' };
  const olmOwned = olmManagedReason(own);
  if (resolved.method === 'olm' && olmOwned) return { skip: olmOwned };
  const name = webhookNameFor(target.operator);
  const legacy = own.find((w) => w.name === 'redb-admission' && name !== 'redb-admission');
  const cert = snapshot.admissionTls.cert;
  const current = own.find((w) => w.name === name);
  const trusted = current?.webhooks.every((h) => cert !== undefined && h.caBundle === cert) ?? false;
  // The operator already at the target: the run still reads the release's webhook.yaml and
  // applies it if someone changed the live webhook (reapplyWebhook, `contains`), but only when
  // another step has work; with none the run ends before any step (idleAlone), and a run that
  // goes on anyway, resuming an unfinished record, skips the step as the plan says (idleAsPlanned).
  const atTarget = operatorIsCurrent(resolved);
  const getCert = kubectl(
    snapshot.kubeTarget,
    'get',
    'secret',
    'admission-tls',
    '-n',
    ns,
    '-o',
    'jsonpath={.data.cert}',
  );
  const webhook = releaseFile(resolved, target, WEBHOOK_FILE.file);
  const actions: PlanAction[] = [
    action(
      "Wait for the operator to create Secret admission-tls (its cert is the webhook's CA)",
      `until [ -n "$(${getCert})" ]; do sleep 5; done`,
    ),
  ];
  if (legacy) {
    actions.push(
      action(
        'Delete the pre-6.4.2 webhook redb-admission',
        kubectl(snapshot.kubeTarget, 'delete', 'validatingwebhookconfiguration', 'redb-admission'),
      ),
    );
  }
  const rendered = `${printManifest(webhook)} | sed -e 's/OPERATOR_NAMESPACE/${ns}/g' -e "s|caBundle:.*|caBundle: $CERT|"`;
  const apply = kubectlApply(snapshot.kubeTarget, '-');
  if (!legacy && trusted) {
    // The live webhook trusts admission-tls already: the run writes only when the live one lacks
    // something the release's webhook.yaml sets (reapplyWebhook, `contains`), and the file often
    // does not change between releases. Say so, with the same test as a command: `kubectl diff`
    // exits 0 when applying would change nothing, 1 when it would (kubectl diff --help).
    const diff = kubectl(snapshot.kubeTarget, 'diff', ...SERVER_SIDE_APPLY_FLAGS, '-f', '-');
    const why = atTarget
      ? `the operator already runs ${resolved.operator.current ?? target.operator} and the webhook trusts admission-tls, so only a change made to the live webhook leaves something to write`
      : 'it trusts admission-tls already, so an unchanged webhook.yaml leaves nothing to write';
    actions.push(
      action(
        `Compare the live webhook ${name} with the one of ${target.operator} for namespace ${ns} (caBundle from Secret admission-tls) and apply it only if they differ: ${why}`,
        `CERT=$(${getCert}) && WEBHOOK=$(${rendered}) && { printf '%s\\n' "$WEBHOOK" | ${diff} >/dev/null || printf '%s\\n' "$WEBHOOK" | ${apply}; }`,
      ),
    );
    return atTarget ? { actions, idleAlone: idleReason(name) } : { actions };
  }
  actions.push(
    action(
      `Apply the webhook ${name} of ${target.operator} for namespace ${ns} with its caBundle set from Secret admission-tls`,
      `CERT=$(${getCert}) && ${rendered} | ${apply}`,
    ),
  );
  return { actions };
}

/**
 * OLM installs the webhooks a CSV declares (spec.webhookdefinitions) and labels them with their
 * owner (`olm.owner*`, operator-framework/operator-lifecycle-manager `pkg/lib/ownerutil`); it
 * replaces them with each new CSV, so ctl leaves them alone. The OperatorHub install and upgrade
 * pages have no webhook step (DOCS kubernetes/deployment/openshift/openshift-operatorhub.md,
 * kubernetes/upgrade/upgrade-olm.md), unlike the bundle's (openshift-cli.md). A webhook OLM does
 * not own (applied by hand from the bundle) is kept current as with the bundle.
 */
function olmManagedReason(webhooks: readonly WebhookSnapshot[]): string | undefined {
  const owned = webhooks.filter((w) => w.olmOwner !== undefined);
  if (owned.length === 0 || owned.length !== webhooks.length) return undefined;
  return `OLM manages the admission webhook (${owned.map((w) => `${w.name}: CSV ${w.olmOwner ?? '?'}`).join(', ')}) and replaces it with the target CSV`;
}
