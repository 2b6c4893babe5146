/**
 * `license-valid`: the licence is valid (an invalid licence makes the upgrade fail): reads the
 * cluster resource's status.licenseStatus and where the licence lives (spec.license or a Secret),
 * which decides the fix.
 */

import { kubectl, kubectlMergePatch, type KubeTarget } from '../equivalent-commands.js';
import type { ClusterSnapshot } from '../snapshot.js';
import { type Check, type CheckInput, clusterOf, fail, type Outcome, pass, warn } from './check.js';

function checkLicense(input: CheckInput): Outcome {
  const rec = clusterOf(input);
  const state = rec.license?.state;
  const expires = rec.license?.expirationDate ? `, expires ${rec.license.expirationDate}` : '';
  if (state === 'Valid') return pass(`licence Valid${expires}`);
  const fix = licenseFix(input.snapshot.kubeTarget, rec);
  if (state === undefined)
    return warn('the cluster reports no licence state: an invalid licence makes the upgrade fail', fix);
  return fail(`licence ${state}${expires}: an invalid licence makes the upgrade fail`, fix);
}

/**
 * Where the licence lives decides the fix. `spec.license` and `spec.licenseSecretName` cannot
 * both be set (DOCS kubernetes/reference/redis_enterprise_cluster_api.md), so an inline licence
 * is replaced inline (or moved to a Secret in the same patch that empties spec.license), and a
 * Secret's content is replaced in the Secret. The key never appears in the command line: the
 * patch is read from a file. The monitor step gives the same fix when the licence stops an upgrade
 * under way (src/steps/monitor-failures.ts licenceStopError).
 */
export function licenseFix(kube: KubeTarget, rec: ClusterSnapshot): string {
  const secret = rec.licenseSecretName ?? `${rec.name}-license`;
  const createSecret = kubectl(
    kube,
    'create',
    'secret',
    'generic',
    secret,
    '-n',
    rec.namespace,
    '--from-file=license=LICENSE_FILE',
  );
  if (rec.licenseSecretName) {
    return `Put a valid licence in Secret ${secret} (${createSecret}, with --dry-run=client -o yaml | ${kubectl(kube, 'apply', '-f', '-')} to replace it)`;
  }
  if (rec.licenseInline) {
    const patchFile = `jq -n --rawfile license LICENSE_FILE '{spec: {license: $license}}' > license-patch.json && ${kubectl(kube, 'patch', 'rec', rec.name, '-n', rec.namespace, '--type', 'merge', '--patch-file', 'license-patch.json')}`;
    const move = kubectlMergePatch(kube, 'rec', rec.name, rec.namespace, {
      spec: { license: null, licenseSecretName: secret },
    });
    return `Replace the inline licence in spec.license: ${patchFile} — or move it to a Secret: ${createSecret}, then ${move}`;
  }
  return `Put a valid licence in Secret ${secret} (${createSecret}) and point the cluster at it: ${kubectlMergePatch(kube, 'rec', rec.name, rec.namespace, { spec: { licenseSecretName: secret } })}`;
}

export const licenseValidCheck = {
  id: 'license-valid',
  needsCluster: true,
  run: checkLicense,
} as const satisfies Check;
