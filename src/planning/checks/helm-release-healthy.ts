/**
 * `helm-release-healthy`: under helm, the operator's release can be upgraded: reads the helm
 * release record the operator Deployment points at (its status and revisions). A pending release
 * fails (helm refuses another upgrade), with the rollback; a bundle over a helm release warns.
 */

import { type Check, type CheckInput, fail, failFirm, type Outcome, pass, warn } from './check.js';
import { helmReleaseLocationProblem } from '../../exec/helm-release-name.js';
import { helmCommand } from '../equivalent-commands.js';

function checkHelmRelease({ snapshot, resolved }: CheckInput): Outcome {
  const release = snapshot.helmRelease;
  const ns = resolved.helm.namespace;
  if (resolved.method === 'olm') return pass('the operator is installed by OLM, not helm');
  if (resolved.method === 'bundle') {
    if (release) {
      return warn(
        `the operator belongs to helm release ${release.name}, but the method is bundle: helm's record would go stale`,
        'Drop --method bundle (or pass --method helm).',
      );
    }
    return pass('the operator is not installed by helm');
  }
  // The release's name and namespace come from the operator Deployment's annotations, which
  // say whatever the cluster holds: helm is never given one it would not accept itself.
  const location = helmReleaseLocationProblem(resolved.helm.release, ns);
  if (location) {
    return failFirm(
      `the operator's helm release "${resolved.helm.release}" in namespace "${ns}" cannot be given to helm: ${location.problem}`,
      location.part === 'name'
        ? `Find the release with ${helmCommand(snapshot.kubeTarget, 'list', '--all-namespaces')}, then pass it with --helm-release RELEASE_NAME.`
        : "Correct the operator Deployment's meta.helm.sh/release-namespace annotation to the release's namespace.",
      'helm would be given a release it cannot hold',
    );
  }
  if (!release) {
    return fail(
      'method helm, but the operator Deployment carries no helm release labels',
      `Use --method bundle, or adopt the operator: ${helmCommand(snapshot.kubeTarget, 'install', resolved.helm.release, resolved.helm.chart, ...(resolved.helm.repo ? ['--repo', resolved.helm.repo] : []), '-n', ns, '--take-ownership')}`,
    );
  }
  const status = release.status;
  if (status === 'deployed')
    return pass(`helm release ${release.name} revision ${release.revision} deployed`);
  if (status.startsWith('pending-')) {
    return fail(
      `helm release ${release.name} revision ${release.revision} is ${status}: helm refuses another upgrade`,
      release.lastDeployedRevision
        ? `Roll back to the last deployed revision: ${helmCommand(snapshot.kubeTarget, 'rollback', release.name, String(release.lastDeployedRevision), '-n', release.namespace)}`
        : `Inspect it: ${helmCommand(snapshot.kubeTarget, 'history', release.name, '-n', release.namespace)}`,
    );
  }
  if (status === 'failed') {
    return warn(
      `helm release ${release.name} revision ${release.revision} failed; the upgrade will retry it`,
      `Inspect it: ${helmCommand(snapshot.kubeTarget, 'history', release.name, '-n', release.namespace)}`,
    );
  }
  return fail(
    `helm release ${release.name}: ${status === 'not-found' ? 'no release record found' : `status ${status}`}`,
    `Inspect it: ${helmCommand(snapshot.kubeTarget, 'status', release.name, '-n', release.namespace)}`,
  );
}

export const helmReleaseHealthyCheck = {
  id: 'helm-release-healthy',
  run: checkHelmRelease,
} as const satisfies Check;
