/**
 * Reading, binding and unbinding the OpenShift SCC `redis-enterprise-scc-v2` for one cluster's
 * service account. An SCC can be usable by a service account in two ways (OpenShift docs
 * "Managing security context constraints"):
 *
 * - its `users` list names `system:serviceaccount:<ns>:<sa>` (older installs, or by hand);
 * - RBAC: what `oc adm policy add-scc-to-user <scc> system:serviceaccount:<ns>:<sa>` (the
 *   command Redis documents) really creates: ClusterRole `system:openshift:scc:<scc>` allowing
 *   `use` on the SCC, and a RoleBinding of that name in the namespace; it does not edit `users`
 *   (openshift/oc `pkg/cli/admin/policy/modify_scc.go`, redis-facts.md §12).
 *
 * The SCC is cluster-wide and may serve several clusters: other namespaces' RoleBindings to the
 * same ClusterRole or to any Role or ClusterRole granting `use` of it (OLM turns a CSV's
 * permissions into a Role and RoleBinding with generated names, operator-lifecycle-manager
 * `pkg/controller/registry/resolver/rbac.go`), ClusterRoleBindings, other users and groups all
 * count as other users.
 */

import { OperationError } from '../errors.js';
import type { KubeClients } from '../kube/client.js';
import type { KubeObject } from '../kube/reads.js';
import { type KubeWriter, listObjects, readObject } from '../kube/write.js';
import { SCC_NAME } from './security-context-decision.js';

const RBAC = 'rbac.authorization.k8s.io/v1';
export const SCC_ROLE = `system:openshift:scc:${SCC_NAME}`;
export const SCC_REF = {
  apiVersion: 'security.openshift.io/v1',
  kind: 'SecurityContextConstraints',
  name: SCC_NAME,
} as const;

export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

export interface SccBindings {
  scc: KubeObject | undefined;
  /** `system:serviceaccount:<ns>:<sa>`. */
  user: string;
  /** This service account is in the SCC's users. */
  inUsers: boolean;
  /** The RoleBinding `system:openshift:scc:<scc>` in the namespace, when it names this service account. */
  roleBinding: KubeObject | undefined;
  /** Everyone else who may use the SCC, described for the output (`system:serviceaccount:b:rec`, `rolebinding b/...`). */
  others: string[];
  /** This service account's grants that ctl leaves alone (OLM's Role from the CSV's permissions). */
  kept: string[];
}

export function isBound(bindings: SccBindings): boolean {
  return bindings.inUsers || bindings.roleBinding !== undefined;
}

export function userOf(sa: ServiceAccountRef): string {
  return `system:serviceaccount:${sa.namespace}:${sa.name}`;
}

export async function readSccBindings(kube: KubeClients, sa: ServiceAccountRef): Promise<SccBindings> {
  const user = userOf(sa);
  const [scc, roleBindings, clusterRoleBindings, roles, clusterRoles] = await Promise.all([
    readObject(kube, SCC_REF),
    listObjects(kube, RBAC, 'RoleBinding'),
    listObjects(kube, RBAC, 'ClusterRoleBinding'),
    listObjects(kube, RBAC, 'Role'),
    listObjects(kube, RBAC, 'ClusterRole'),
  ]);
  const grants = useGrants(roles, clusterRoles);
  const users = strings(scc?.users);
  const others = [...users.filter((u) => u !== user), ...strings(scc?.groups).map((g) => `group ${g}`)];
  const kept: string[] = [];
  let roleBinding: KubeObject | undefined;
  for (const binding of roleBindings) {
    const ns = binding.metadata?.namespace ?? '';
    const role = grants(binding, ns);
    if (!role) continue;
    const name = `rolebinding ${ns}/${binding.metadata?.name ?? ''}`;
    for (const subject of subjectsOf(binding)) {
      const mine = isServiceAccount(subject, sa, ns);
      if (mine && binding.metadata?.name === SCC_ROLE && ns === sa.namespace && isSccRole(binding))
        roleBinding = binding;
      // This cluster's own grant by another role (OLM's from the CSV's permissions): not ours to remove.
      else if (mine) kept.push(`${name} (${role})`);
      else others.push(`${name} (${describeSubject(subject, ns)}, ${role})`);
    }
  }
  for (const binding of clusterRoleBindings) {
    const role = grants(binding, undefined);
    if (!role) continue;
    const subjects = subjectsOf(binding).map((subject) => describeSubject(subject, ''));
    others.push(
      `clusterrolebinding ${binding.metadata?.name ?? ''} (${subjects.join(', ') || 'no subjects'}, ${role})`,
    );
  }
  return { scc, user, inUsers: users.includes(user), roleBinding, others, kept };
}

/**
 * Which Role or ClusterRole a binding refers to, when one of its rules grants `use` of the SCC:
 * `securitycontextconstraints` named in resources, group `security.openshift.io` (or `*`), verb
 * `use` (or `*`), and resourceNames naming the SCC (or none). A rule on every resource (`*`, as
 * cluster-admin's) is a cluster admin's, not a grant of this SCC to a cluster's pods, so it does
 * not count. OLM's Role from a CSV's permissions (the certified CSV grants `use` of
 * redis-enterprise-scc-v2 to service account `rec`, certified-operators
 * `operators/redis-enterprise-operator-cert/7.22.2-43.0`, spec.install.spec.permissions) counts.
 */
function useGrants(
  roles: KubeObject[],
  clusterRoles: KubeObject[],
): (binding: KubeObject, namespace: string | undefined) => string | undefined {
  const grantsUse = (role: KubeObject | undefined) =>
    (Array.isArray(role?.rules) ? (role.rules as Record<string, unknown>[]) : []).some((rule) => {
      const has = (field: unknown, value: string, wildcard: boolean) =>
        strings(field).some((v) => v === value || (wildcard && v === '*'));
      const names = strings(rule.resourceNames);
      return (
        has(rule.apiGroups, 'security.openshift.io', true) &&
        has(rule.resources, 'securitycontextconstraints', false) &&
        has(rule.verbs, 'use', true) &&
        (names.length === 0 || names.includes(SCC_NAME))
      );
    });
  const clusterRole = new Map(clusterRoles.map((r) => [r.metadata?.name ?? '', r]));
  const role = new Map(roles.map((r) => [`${r.metadata?.namespace ?? ''}/${r.metadata?.name ?? ''}`, r]));
  return (binding, namespace) => {
    const ref = binding.roleRef as { kind?: unknown; name?: unknown } | undefined;
    const name = String(ref?.name ?? '');
    // oc adm policy's own ClusterRole counts even when it cannot be read.
    if (isSccRole(binding)) return `ClusterRole ${name}`;
    if (ref?.kind === 'ClusterRole' && grantsUse(clusterRole.get(name))) return `ClusterRole ${name}`;
    if (ref?.kind === 'Role' && namespace !== undefined && grantsUse(role.get(`${namespace}/${name}`)))
      return `Role ${namespace}/${name}`;
    return undefined;
  };
}

/** `oc apply -f openshift/scc.yaml`: the SCC objects of a release tree, applied server-side. */
export async function applyScc(writer: KubeWriter, manifests: KubeObject[], location: string): Promise<void> {
  // Without users and groups: bindings are managed on their own, and a release file's empty
  // `users: []` applied with force would unbind every cluster that shares the SCC.
  const objects = manifests
    .filter((o) => o.kind === SCC_REF.kind && o.metadata?.name === SCC_NAME)
    .map(({ users: _users, groups: _groups, ...rest }) => rest as KubeObject);
  if (objects.length === 0) {
    throw new OperationError(`${location} holds no ${SCC_REF.kind} ${SCC_NAME}`, {
      hint: 'Check that --bundle points at the release tree (openshift/scc.yaml next to the bundle).',
    });
  }
  await writer.apply(objects);
}

/** `oc adm policy add-scc-to-user <scc> -z <sa> -n <ns>`: the ClusterRole and the RoleBinding. */
export async function bindByRbac(
  kube: KubeClients,
  writer: KubeWriter,
  sa: ServiceAccountRef,
): Promise<void> {
  const existing = await readObject(kube, {
    apiVersion: RBAC,
    kind: 'RoleBinding',
    name: SCC_ROLE,
    namespace: sa.namespace,
  });
  const subjects = existing ? subjectsOf(existing) : [];
  const subject = { kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace };
  await writer.apply([
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: SCC_ROLE },
      rules: [
        {
          apiGroups: ['security.openshift.io'],
          resources: ['securitycontextconstraints'],
          resourceNames: [SCC_NAME],
          verbs: ['use'],
        },
      ],
    },
    {
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name: SCC_ROLE, namespace: sa.namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: SCC_ROLE },
      subjects: [...subjects.filter((s) => !isServiceAccount(s, sa, sa.namespace)), subject],
    },
  ]);
}

/**
 * `oc adm policy remove-scc-from-user <scc> -z <sa> -n <ns>`: this service account leaves the
 * SCC's users and the namespace's RoleBinding (deleted when no subject is left). Lists are
 * written whole, conditional on the resourceVersion they were computed from (409 on a race).
 */
export async function unbind(
  writer: KubeWriter,
  bindings: SccBindings,
  sa: ServiceAccountRef,
): Promise<void> {
  const { scc, roleBinding } = bindings;
  if (scc && bindings.inUsers) {
    const users = strings(scc.users).filter((u) => u !== bindings.user);
    await writer.mergePatch(SCC_REF, conditional(scc, { users }));
  }
  if (roleBinding) {
    const ref = { apiVersion: RBAC, kind: 'RoleBinding', name: SCC_ROLE, namespace: sa.namespace };
    const rest = subjectsOf(roleBinding).filter((s) => !isServiceAccount(s, sa, sa.namespace));
    if (rest.length === 0) await writer.deleteIfExists(ref);
    else await writer.mergePatch(ref, conditional(roleBinding, { subjects: rest }));
  }
}

export async function deleteScc(writer: KubeWriter): Promise<boolean> {
  return writer.deleteIfExists(SCC_REF);
}

// ---- helpers -------------------------------------------------------------------------------

type Subject = { kind?: unknown; name?: unknown; namespace?: unknown };

function isSccRole(binding: KubeObject): boolean {
  const ref = binding.roleRef as { kind?: unknown; name?: unknown } | undefined;
  return ref?.kind === 'ClusterRole' && ref.name === SCC_ROLE;
}

function subjectsOf(binding: KubeObject): Subject[] {
  return Array.isArray(binding.subjects) ? (binding.subjects as Subject[]) : [];
}

function isServiceAccount(subject: Subject, sa: ServiceAccountRef, bindingNamespace: string): boolean {
  return (
    subject.kind === 'ServiceAccount' &&
    subject.name === sa.name &&
    (typeof subject.namespace === 'string' ? subject.namespace : bindingNamespace) === sa.namespace
  );
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    const ns = typeof subject.namespace === 'string' ? subject.namespace : bindingNamespace;
    return `system:serviceaccount:${ns}:${String(subject.name)}`;
  }
  return `${String(subject.kind)} ${String(subject.name)}`;
}

function conditional(object: KubeObject, patch: Record<string, unknown>): Record<string, unknown> {
  const resourceVersion = object.metadata?.resourceVersion;
  return { ...(resourceVersion ? { metadata: { resourceVersion } } : {}), ...patch };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
