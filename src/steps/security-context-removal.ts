/**
 * The SCC removal of 7.22.0-6 and later targets, run at the end of the monitor step: only
 * once the cluster has rolled do its pods stop needing `redis-enterprise-scc-v2` ("After
 * upgrading, remove ...", DOCS `kubernetes/upgrade/openshift-cli.md`; "remove ... after you
 * complete the upgrade", DOCS `kubernetes/security/allow-resource-adjustment.md`).
 *
 *   oc adm policy remove-scc-from-user redis-enterprise-scc-v2 -z <service-account> -n <ns>
 *   oc delete scc redis-enterprise-scc-v2
 *
 * Only this cluster's binding goes (its service account from `users`, or from its namespace's
 * RoleBinding). The SCC itself is deleted only when nobody else may use it: another namespace's
 * cluster bound by RoleBinding (to `system:openshift:scc:<scc>` or to any Role or ClusterRole
 * whose rules grant `use` of it, such as OLM's Role from a CSV's permissions), a
 * ClusterRoleBinding, other users or groups keep it, and the output says who. The step order of CLI.md stays as it is; `ctl upgrade steps` says that the
 * monitor step does this. Re-running it is harmless: it re-reads the bindings first.
 */

import { OperationError } from '../errors.js';
import { readObject } from '../kube/write.js';
import type { UpgradeDeps } from './deps.js';
import { sccDecisionFor } from './security-context.js';
import { SCC_NAME } from './security-context-decision.js';
import { deleteScc, isBound, readSccBindings, SCC_ROLE, SCC_REF, unbind } from './security-context-scc.js';
import type { Step, StepContext } from '../run/step.js';
import { oc } from '../planning/equivalent-commands.js';

/** What the monitor step says first off OpenShift: its title's SCC removal does not happen there. */
export const NOT_OPENSHIFT = 'not OpenShift: no SCC to remove after the roll';

/** The monitor step, followed by the SCC removal once the roll it waited for is over. */
export function withSccRemovalAfterRoll<S extends Step<UpgradeDeps>>(monitor: S): S {
  return {
    ...monitor,
    run: async (ctx) => {
      // The step's title names the SCC removal on every platform (the title is the events', CLI.md):
      // elsewhere than on OpenShift the run says at once that it only waits.
      if (ctx.deps.snapshot.platform !== 'openshift') ctx.progress(NOT_OPENSHIFT);
      const result = await monitor.run(ctx);
      // Skipped without a dry run: there was no roll to wait for (no target version).
      if (result.skipped !== undefined && !ctx.dryRun) return result;
      const removal = await removeSccAfterRoll(ctx);
      if (!removal || result.skipped !== undefined) return result;
      return { ...result, outcome: { ...result.outcome, scc: removal } };
    },
  };
}

export async function removeSccAfterRoll(
  ctx: StepContext<UpgradeDeps>,
): Promise<Record<string, unknown> | undefined> {
  const { decision, cluster } = await sccDecisionFor(ctx);
  if (decision.kind !== 'remove-after-roll' || !cluster) return undefined;
  const sa = { namespace: cluster.namespace, name: cluster.serviceAccountName };
  const { kube, kubeWriter } = ctx.deps;
  const bindings = await readSccBindings(kube, sa);
  if (!bindings.scc && !isBound(bindings)) return { scc: SCC_NAME, removed: 'already' };
  const deleting = bindings.others.length === 0;
  await ctx.recordIntent({
    scc: SCC_NAME,
    unbind: bindings.user,
    delete: deleting,
    keptFor: bindings.others,
  });
  if (isBound(bindings)) {
    ctx.progress(`the cluster has rolled: unbinding ${SCC_NAME} from ${bindings.user}`);
    await unbind(kubeWriter, bindings, sa);
  }
  if (bindings.kept.length > 0) {
    ctx.progress(
      `${bindings.user} may also use ${SCC_NAME} through ${bindings.kept.join('; ')}: not ctl's grant (OLM makes it from the CSV's permissions), left as it is`,
    );
  }
  if (deleting) {
    ctx.progress(`deleting ${SCC_NAME}: no other service account may use it`);
    await deleteScc(kubeWriter);
    // Only this SCC's ClusterRole: it grants `use` of an SCC that no longer exists.
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: SCC_ROLE };
    if (await readObject(kube, role)) await kubeWriter.deleteIfExists(role);
  } else {
    ctx.warn(
      `${SCC_NAME} is kept: other service accounts may still use it (${bindings.others.join('; ')}); only this cluster's own grant was removed`,
      { keptFor: bindings.others },
    );
  }
  // Nothing was changed in dry-run, so there is nothing to verify.
  if (ctx.dryRun) return { dryRun: true, scc: SCC_NAME, unbound: bindings.user, deleted: deleting };

  const after = await readSccBindings(kube, sa);
  if (isBound(after)) {
    throw new OperationError(`${SCC_NAME} is still bound to ${after.user}`, {
      hint: `Unbind it by hand (${oc(ctx.deps.snapshot.kubeTarget, 'adm', 'policy', 'remove-scc-from-user', SCC_NAME, '-z', sa.name, '-n', sa.namespace)}), then run ctl again.`,
    });
  }
  const left = await readObject(kube, SCC_REF);
  if (
    deleting &&
    left &&
    !(left.metadata as { deletionTimestamp?: unknown } | undefined)?.deletionTimestamp
  ) {
    throw new OperationError(`${SCC_NAME} still exists after deleting it`, {
      hint: `Delete it by hand (${oc(ctx.deps.snapshot.kubeTarget, 'delete', 'scc', SCC_NAME)}), then run ctl again.`,
    });
  }
  return { scc: SCC_NAME, unbound: bindings.user, deleted: deleting, keptFor: bindings.others };
}
