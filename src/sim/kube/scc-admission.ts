import type { KubeStore } from './store.js';
import { KubeApiError } from './status.js';
import { isRecord, type KubeObject } from './types.js';

/**
 * OpenShift's SecurityContextConstraints admission for pods, as the emulator enforces it on
 * `platform: openshift`. A pod is admitted when one SCC its service account may use allows its
 * security context; the admitted pod is annotated `openshift.io/scc: <name>`. Otherwise the
 * create answers 403 with the real message shape:
 *
 *   pods "rec-0" is forbidden: unable to validate against any security context constraint:
 *   [provider "anyuid": Forbidden: not usable by user or serviceaccount, provider restricted-v2:
 *   .containers[0].capabilities.add: Invalid value: "SYS_RESOURCE": capability may not be added, ...]
 *
 * Who may use an SCC (OpenShift docs "Managing security context constraints", and openshift/oc
 * `pkg/cli/admin/policy/modify_scc.go`): a user or group in the SCC's `users`/`groups`, or RBAC
 * allowing the verb `use` on `securitycontextconstraints` (optionally limited by resourceNames)
 * through a RoleBinding in the pod's namespace or a ClusterRoleBinding. Only the pod's service
 * account is checked: the StatefulSet controller that creates the pods itself may use
 * restricted-v2 only, like every authenticated user.
 *
 * What is checked of a pod is the part that decides Redis Enterprise pods: privileged,
 * allowPrivilegeEscalation, added capabilities, runAsUser and fsGroup. Volumes, SELinux, seccomp
 * and supplemental groups are not modelled (docs/simulator-internals.md).
 */

const SCC_API = 'security.openshift.io/v1';
const SCC_KIND = 'SecurityContextConstraints';
const RBAC_API = 'rbac.authorization.k8s.io/v1';

/** `openshift.io/sa.scc.uid-range` when the namespace has none (the real one is assigned per namespace). */
const DEFAULT_UID_RANGE = '1000680000/10000';

/** Makes Pod creates on this store go through SCC admission (OpenShift only). */
export function installSccAdmission(store: KubeStore): void {
  const pods = store.resolve('v1', 'Pod');
  pods.admit = (pod) => admitPod(store, pod);
}

export function admitPod(store: KubeStore, pod: KubeObject): void {
  const namespace = pod.metadata.namespace ?? 'default';
  const serviceAccount = serviceAccountOf(pod);
  const range = uidRange(store, namespace);
  const reasons: string[] = [];
  for (const scc of sortedSccs(store)) {
    const name = scc.metadata.name ?? '';
    if (!mayUse(store, scc, namespace, serviceAccount)) {
      reasons.push(`provider "${name}": Forbidden: not usable by user or serviceaccount`);
      continue;
    }
    const problems = violations(scc, pod, range);
    if (problems.length === 0) {
      pod.metadata.annotations = { ...pod.metadata.annotations, 'openshift.io/scc': name };
      return;
    }
    reasons.push(...problems.map((problem) => `provider ${name}: ${problem}`));
  }
  throw new KubeApiError(
    403,
    'Forbidden',
    `pods "${pod.metadata.name ?? ''}" is forbidden: unable to validate against any security context constraint: [${reasons.join(', ')}]`,
    { name: pod.metadata.name, kind: 'pods' },
  );
}

export function serviceAccountOf(pod: KubeObject): string {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  return typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : 'default';
}

// ---- who may use an SCC ------------------------------------------------------------------------

/** True when the service account may use the SCC through its users, groups or RBAC. */
export function mayUse(
  store: KubeStore,
  scc: KubeObject,
  namespace: string,
  serviceAccount: string,
): boolean {
  const user = `system:serviceaccount:${namespace}:${serviceAccount}`;
  const groups = ['system:authenticated', 'system:serviceaccounts', `system:serviceaccounts:${namespace}`];
  if (strings(scc.users).includes(user)) return true;
  if (strings(scc.groups).some((group) => groups.includes(group))) return true;
  const name = scc.metadata.name ?? '';
  const bindings = [
    ...list(store, RBAC_API, 'RoleBinding', namespace),
    ...list(store, RBAC_API, 'ClusterRoleBinding'),
  ];
  return bindings.some(
    (binding) =>
      subjectsOf(binding).some((subject) => {
        if (subject.kind === 'ServiceAccount')
          return (
            subject.name === serviceAccount && (subject.namespace ?? binding.metadata.namespace) === namespace
          );
        if (subject.kind === 'Group') return groups.includes(String(subject.name));
        return subject.kind === 'User' && subject.name === user;
      }) && roleAllowsUse(store, binding, name),
  );
}

function roleAllowsUse(store: KubeStore, binding: KubeObject, sccName: string): boolean {
  const ref = isRecord(binding.roleRef) ? binding.roleRef : {};
  const role =
    ref.kind === 'Role'
      ? get(store, RBAC_API, 'Role', binding.metadata.namespace, String(ref.name))
      : get(store, RBAC_API, 'ClusterRole', undefined, String(ref.name));
  const rules = Array.isArray(role?.rules) ? role.rules.filter(isRecord) : [];
  return rules.some((rule) => {
    const any = (field: unknown, value: string) => strings(field).some((v) => v === '*' || v === value);
    const names = strings(rule.resourceNames);
    return (
      any(rule.apiGroups, 'security.openshift.io') &&
      any(rule.resources, 'securitycontextconstraints') &&
      any(rule.verbs, 'use') &&
      (names.length === 0 || names.includes(sccName))
    );
  });
}

function subjectsOf(binding: KubeObject): { kind?: unknown; name?: unknown; namespace?: unknown }[] {
  return Array.isArray(binding.subjects) ? binding.subjects.filter(isRecord) : [];
}

// ---- what an SCC allows ----------------------------------------------------------------------

interface UidRange {
  min: number;
  max: number;
}

/** The problems an SCC finds with a pod, in the real admission's wording; empty = admitted. */
export function violations(scc: KubeObject, pod: KubeObject, namespaceRange: UidRange): string[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const podContext = isRecord(spec.securityContext) ? spec.securityContext : {};
  const problems: string[] = [];
  const fsGroup = podContext.fsGroup;
  if (typeof fsGroup === 'number' && !fsGroupAllowed(scc, fsGroup, namespaceRange)) {
    problems.push(
      `.spec.securityContext.fsGroup: Invalid value: []int64{${fsGroup}}: ${fsGroup} is not an allowed group`,
    );
  }
  const allowed = [...strings(scc.allowedCapabilities), ...strings(scc.defaultAddCapabilities)];
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isRecord) : [];
  containers.forEach((container, index) => {
    const context = isRecord(container.securityContext) ? container.securityContext : {};
    const at = `.containers[${index}]`;
    if (context.privileged === true && scc.allowPrivilegedContainer !== true) {
      problems.push(`${at}.privileged: Invalid value: true: Privileged containers are not allowed`);
    }
    // An SCC without the field allows escalation (its API default is true).
    if (context.allowPrivilegeEscalation === true && scc.allowPrivilegeEscalation === false) {
      problems.push(
        `${at}.allowPrivilegeEscalation: Invalid value: true: Allowing privilege escalation for containers is not allowed`,
      );
    }
    const capabilities = isRecord(context.capabilities) ? context.capabilities : {};
    for (const capability of strings(capabilities.add)) {
      if (!allowed.includes('*') && !allowed.includes(capability)) {
        problems.push(`${at}.capabilities.add: Invalid value: "${capability}": capability may not be added`);
      }
    }
    const uid = typeof context.runAsUser === 'number' ? context.runAsUser : podContext.runAsUser;
    const uidProblem = typeof uid === 'number' ? runAsUserProblem(scc, uid, namespaceRange) : undefined;
    if (uidProblem) problems.push(`${at}.runAsUser: Invalid value: ${uid}: ${uidProblem}`);
  });
  return problems;
}

function runAsUserProblem(scc: KubeObject, uid: number, namespaceRange: UidRange): string | undefined {
  const strategy = isRecord(scc.runAsUser) ? scc.runAsUser : {};
  switch (strategy.type) {
    case 'MustRunAs':
      return uid === strategy.uid ? undefined : `must be: ${String(strategy.uid)}`;
    case 'MustRunAsRange': {
      const min = typeof strategy.uidRangeMin === 'number' ? strategy.uidRangeMin : namespaceRange.min;
      const max = typeof strategy.uidRangeMax === 'number' ? strategy.uidRangeMax : namespaceRange.max;
      return uid >= min && uid <= max ? undefined : `must be in the ranges: [${min}, ${max}]`;
    }
    case 'MustRunAsNonRoot':
      return uid === 0 ? 'running with the root UID is forbidden' : undefined;
    default:
      return undefined;
  }
}

function fsGroupAllowed(scc: KubeObject, group: number, namespaceRange: UidRange): boolean {
  const strategy = isRecord(scc.fsGroup) ? scc.fsGroup : {};
  if (strategy.type !== 'MustRunAs') return true;
  const ranges = Array.isArray(strategy.ranges) ? strategy.ranges.filter(isRecord) : [];
  const effective = ranges.length > 0 ? ranges : [namespaceRange];
  return effective.some((r) => group >= Number(r.min) && group <= Number(r.max));
}

/** The namespace's `openshift.io/sa.scc.uid-range` (`<first>/<size>`). */
function uidRange(store: KubeStore, namespace: string): UidRange {
  const annotation =
    get(store, 'v1', 'Namespace', undefined, namespace)?.metadata.annotations?.[
      'openshift.io/sa.scc.uid-range'
    ] ?? DEFAULT_UID_RANGE;
  const [first, size] = annotation.split('/').map(Number);
  const min = Number.isFinite(first) ? (first as number) : 1000680000;
  return { min, max: min + (Number.isFinite(size) ? (size as number) : 10000) - 1 };
}

/**
 * By priority (higher first), then the most restrictive first, then name, as the admission
 * orders them (OpenShift docs "SCC prioritization"). Restrictiveness is reduced to what this
 * module checks: privileged containers, privilege escalation, extra capabilities.
 */
function sortedSccs(store: KubeStore): KubeObject[] {
  const priority = (scc: KubeObject) => (typeof scc.priority === 'number' ? scc.priority : 0);
  const latitude = (scc: KubeObject) =>
    (scc.allowPrivilegedContainer === true ? 10 : 0) +
    (scc.allowPrivilegeEscalation === false ? 0 : 1) +
    strings(scc.allowedCapabilities).filter((c) => c !== 'NET_BIND_SERVICE').length;
  return list(store, SCC_API, SCC_KIND).sort(
    (a, b) =>
      priority(b) - priority(a) ||
      latitude(a) - latitude(b) ||
      (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
}

// ---- store helpers -----------------------------------------------------------------------------

function list(store: KubeStore, apiVersion: string, kind: string, namespace?: string): KubeObject[] {
  const rt = store.registry.byKind(apiVersion, kind);
  return rt ? store.all(rt, namespace) : [];
}

function get(
  store: KubeStore,
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
): KubeObject | undefined {
  const rt = store.registry.byKind(apiVersion, kind);
  return rt ? store.get(rt, namespace, name) : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
