/**
 * The Role and RoleBinding `redb-role` of the release, re-applied by the operator step in every
 * other namespace the operator watches (multi-namespace.md: "on each upgrade"): the new operator
 * needs them as soon as it starts.
 */

import type { KubeObject } from '../kube/reads.js';
import { loadManifests } from '../kube/bundle.js';
import { readObject } from '../kube/write.js';
import { operatorReleaseFiles } from '../planning/bundle-source.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import { bindingDecision } from './redb-role-binding.js';
import { releaseFileToRead } from './release-files.js';

/** Server-side applies `redb-role` (Role and RoleBinding) of the release in each namespace. */
export async function reapplyRedbRoles(
  ctx: StepContext<UpgradeDeps>,
  namespaces: string[],
): Promise<string[]> {
  if (namespaces.length === 0) return [];
  const { snapshot, kube, resolved } = ctx.deps;
  // The files the plan named for these namespaces (the bundle is the operator step's own).
  const roleFiles = operatorReleaseFiles(snapshot, resolved).filter((use) => !use.bundle);
  const replacements = {
    NAMESPACE_OF_SERVICE_ACCOUNT: snapshot.namespace,
    NAME_OF_REC_SERVICE_ACCOUNT: snapshot.cluster?.serviceAccountName ?? snapshot.cluster?.name ?? '',
  };
  const files = await Promise.all(
    roleFiles.map((use) =>
      loadManifests(releaseFileToRead(ctx.deps, use), { replacements, signal: ctx.signal, io: ctx.io }),
    ),
  );
  for (const namespace of namespaces) {
    ctx.progress(`re-applying Role and RoleBinding redb-role in namespace ${namespace}`);
    const objects: KubeObject[] = [];
    for (const object of files.flat().map((o) => ({ ...o, metadata: { ...o.metadata, namespace } }))) {
      if (object.kind === 'RoleBinding') {
        // roleRef is immutable: a binding to another role (a ClusterRole) is kept (redb-role-binding.ts).
        const live = await readObject(kube, {
          apiVersion: object.apiVersion ?? 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          name: object.metadata?.name ?? 'redb-role',
          namespace,
        });
        const decision = bindingDecision(live, object, namespace);
        if (!decision.apply) {
          ctx.warn(decision.warning, { namespace });
          continue;
        }
      }
      objects.push(object);
    }
    await ctx.deps.kubeWriter.apply(objects);
  }
  return namespaces;
}
