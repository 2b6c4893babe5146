import { isRecord, type KubeObject } from './types.js';

/**
 * Server-side defaulting of the built-in kinds, limited to what clients were seen to rely on
 * (feasibility §2): kubectl rollout status fails on a StatefulSet without updateStrategy.
 */

function spec(object: KubeObject): Record<string, unknown> {
  if (!isRecord(object.spec)) object.spec = {};
  return object.spec as Record<string, unknown>;
}

function status(object: KubeObject): Record<string, unknown> {
  if (!isRecord(object.status)) object.status = {};
  return object.status as Record<string, unknown>;
}

function defaultPodSpec(podSpec: unknown): void {
  if (!isRecord(podSpec)) return;
  podSpec.restartPolicy ??= 'Always';
  podSpec.dnsPolicy ??= 'ClusterFirst';
  podSpec.schedulerName ??= 'default-scheduler';
  podSpec.terminationGracePeriodSeconds ??= 30;
  podSpec.securityContext ??= {};
  if (Array.isArray(podSpec.containers)) {
    for (const container of podSpec.containers) {
      if (!isRecord(container)) continue;
      container.terminationMessagePath ??= '/dev/termination-log';
      container.terminationMessagePolicy ??= 'File';
      container.imagePullPolicy ??= String(container.image ?? '').endsWith(':latest')
        ? 'Always'
        : 'IfNotPresent';
      if (Array.isArray(container.ports)) {
        for (const port of container.ports) if (isRecord(port)) port.protocol ??= 'TCP';
      }
    }
  }
}

function defaultTemplate(s: Record<string, unknown>): void {
  if (isRecord(s.template)) defaultPodSpec(s.template.spec);
}

export function defaultDeployment(object: KubeObject): void {
  const s = spec(object);
  s.replicas ??= 1;
  s.revisionHistoryLimit ??= 10;
  s.progressDeadlineSeconds ??= 600;
  if (!isRecord(s.strategy)) s.strategy = {};
  const strategy = s.strategy as Record<string, unknown>;
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    if (!isRecord(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    const rolling = strategy.rollingUpdate as Record<string, unknown>;
    rolling.maxUnavailable ??= '25%';
    rolling.maxSurge ??= '25%';
  }
  defaultTemplate(s);
}

export function defaultStatefulSet(object: KubeObject): void {
  const s = spec(object);
  s.replicas ??= 1;
  s.podManagementPolicy ??= 'OrderedReady';
  s.revisionHistoryLimit ??= 10;
  if (!isRecord(s.updateStrategy)) s.updateStrategy = {};
  const strategy = s.updateStrategy as Record<string, unknown>;
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    if (!isRecord(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    (strategy.rollingUpdate as Record<string, unknown>).partition ??= 0;
  }
  s.persistentVolumeClaimRetentionPolicy ??= { whenDeleted: 'Retain', whenScaled: 'Retain' };
  defaultTemplate(s);
}

export function defaultReplicaSet(object: KubeObject): void {
  const s = spec(object);
  s.replicas ??= 1;
  defaultTemplate(s);
}

export function defaultPod(object: KubeObject): void {
  defaultPodSpec(spec(object));
  const st = status(object);
  st.phase ??= 'Pending';
}

export function defaultSecret(object: KubeObject): void {
  object.type ??= 'Opaque';
  if (isRecord(object.stringData)) {
    const data = isRecord(object.data) ? (object.data as Record<string, unknown>) : {};
    for (const [key, value] of Object.entries(object.stringData)) {
      data[key] = Buffer.from(String(value), 'utf8').toString('base64');
    }
    object.data = data;
  }
  delete object.stringData;
}

export function defaultNamespace(object: KubeObject): void {
  const name = object.metadata.name;
  if (name) object.metadata.labels = { ...object.metadata.labels, 'kubernetes.io/metadata.name': name };
  const s = spec(object);
  s.finalizers ??= ['kubernetes'];
  const st = status(object);
  st.phase ??= 'Active';
}

export function defaultService(object: KubeObject): void {
  const s = spec(object);
  s.type ??= 'ClusterIP';
  s.sessionAffinity ??= 'None';
  if (s.type !== 'ExternalName' && s.clusterIP === undefined) {
    const ip = fakeClusterIp(`${object.metadata.namespace}/${object.metadata.name}`);
    s.clusterIP = ip;
    s.clusterIPs = [ip];
  }
  s.ipFamilies ??= ['IPv4'];
  s.ipFamilyPolicy ??= 'SingleStack';
  s.internalTrafficPolicy ??= 'Cluster';
  if (Array.isArray(s.ports)) {
    for (const port of s.ports) {
      if (!isRecord(port)) continue;
      port.protocol ??= 'TCP';
      port.targetPort ??= port.port;
    }
  }
}

/** A stable address in 10.96.0.0/16 derived from the name, so repeated runs print the same. */
function fakeClusterIp(seed: string): string {
  let hash = 0;
  for (const char of seed) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return `10.96.${(hash >>> 8) % 256}.${(hash % 254) + 1}`;
}

export function defaultCustomResourceDefinition(object: KubeObject): void {
  const s = spec(object);
  if (!isRecord(s.conversion)) s.conversion = { strategy: 'None' };
  const names = isRecord(s.names) ? s.names : {};
  names.singular ??= String(names.kind ?? '').toLowerCase();
  names.listKind ??= `${String(names.kind ?? '')}List`;
  s.names = names;
}

/** The CRD controller's work, done at write time: names accepted, established at once. */
export function establishCustomResourceDefinition(object: KubeObject): void {
  const s = spec(object);
  const st = status(object);
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const versions = Array.isArray(s.versions) ? s.versions.filter(isRecord) : [];
  const storage = versions.find((v) => v.storage === true)?.name;
  const stored = Array.isArray(st.storedVersions) ? (st.storedVersions as string[]) : [];
  // A copy: a shared reference would survive structuredClone and tie the two fields together.
  st.acceptedNames = structuredClone(s.names);
  st.storedVersions = storage && !stored.includes(String(storage)) ? [...stored, String(storage)] : stored;
  st.conditions = [
    condition('NamesAccepted', 'NoConflicts', 'no conflicts found', now),
    condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted', now),
  ];
}

function condition(type: string, reason: string, message: string, now: string): Record<string, unknown> {
  return { type, status: 'True', lastTransitionTime: now, reason, message };
}

/**
 * batch/v1 Job, as the API server defaults it (kubernetes pkg/apis/batch/v1/defaults.go
 * SetDefaults_Job: completions and parallelism 1 when neither is set, backoffLimit 6,
 * completionMode NonIndexed, suspend false, podReplacementPolicy Failed with a
 * podFailurePolicy, else TerminatingOrFailed) and its pod template. The selector the job
 * strategy generates from the Job's uid is left out: the store gives the uid after defaulting.
 */
export function defaultJob(object: KubeObject): void {
  const s = spec(object);
  if (s.completions === undefined && s.parallelism === undefined) {
    s.completions = 1;
    s.parallelism = 1;
  }
  s.parallelism ??= 1;
  s.backoffLimit ??= 6;
  s.completionMode ??= 'NonIndexed';
  s.suspend ??= false;
  s.manualSelector ??= false;
  s.podReplacementPolicy ??= isRecord(s.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  defaultTemplate(s);
}

/**
 * A Job's pods must not restart in place (kubernetes pkg/apis/batch/validation
 * ValidateJobSpec: `Required value: valid values: "OnFailure", "Never"`).
 */
export function validateJob(object: KubeObject): { field: string; message: string; reason: string }[] {
  const template = spec(object).template;
  const podSpec = isRecord(template) && isRecord(template.spec) ? template.spec : {};
  const policy = podSpec.restartPolicy;
  if (policy === 'OnFailure' || policy === 'Never') return [];
  return [
    {
      field: 'spec.template.spec.restartPolicy',
      reason: policy === undefined ? 'FieldValueRequired' : 'FieldValueNotSupported',
      message:
        policy === undefined
          ? 'Required value: valid values: "OnFailure", "Never"'
          : `Unsupported value: "${String(policy)}": supported values: "OnFailure", "Never"`,
    },
  ];
}
