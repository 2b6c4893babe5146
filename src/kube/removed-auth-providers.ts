/**
 * The `gcp` and `azure` auth providers of a kubeconfig, refused with kubectl's own message.
 *
 * kubectl no longer has them: since client-go 1.26 each is a stub whose constructor fails
 * (kubernetes/kubernetes, staging/src/k8s.io/client-go/plugin/pkg/client/auth/gcp/gcp_stub.go and
 * azure/azure_stub.go; auth/plugins.go registers gcp and oidc only, gcp being that stub), and a
 * kubeconfig whose user names one fails there with the messages below. client-node 1.4 still
 * has both: its gcp provider runs the kubeconfig's `cmd-path` with `cmd-args` through a shell
 * (gcp_auth.js, child_process.execSync), and its azure provider the same (azure_auth.js),
 * synchronously, with no time or output bound: such a command held ctl's whole process, however
 * long it took, and ran a command kubectl would not run for the same kubeconfig. ctl runs what
 * kubectl runs: the credential plugin that replaced each (an `exec` user, bounded by
 * ./exec-plugin.ts). The `oidc` provider, which kubectl kept, is untouched.
 */

import { UsageError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';

interface Removed {
  /** client-go's error, word for word (its lines joined with a space in ctl's one-line message). */
  kubectl: string;
  /** What replaces it. */
  hint: string;
}

const REMOVED: Readonly<Record<string, Removed>> = {
  gcp: {
    kubectl:
      'The gcp auth plugin has been removed.\nPlease use the "gke-gcloud-auth-plugin" kubectl/client-go credential plugin instead.\nSee https://cloud.google.com/blog/products/containers-kubernetes/kubectl-auth-changes-in-gke for further details',
    hint:
      'Install the credential plugin (gcloud components install gke-gcloud-auth-plugin) and write the user again ' +
      '(gcloud container clusters get-credentials CLUSTER_NAME): it becomes an exec user, which kubectl and ctl run.',
  },
  azure: {
    kubectl:
      'The azure auth plugin has been removed.\nPlease use the https://github.com/Azure/kubelogin kubectl/client-go credential plugin instead.\nSee https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins for further details',
    hint:
      'Install kubelogin (https://github.com/Azure/kubelogin) and convert the kubeconfig (kubelogin convert-kubeconfig): ' +
      'its user becomes an exec user, which kubectl and ctl run.',
  },
};

function removedProvider(user: unknown): { name: string; removed: Removed } | undefined {
  const name = (user as { authProvider?: { name?: unknown } } | null | undefined)?.authProvider?.name;
  if (typeof name !== 'string' || !Object.hasOwn(REMOVED, name)) return undefined;
  const removed = REMOVED[name];
  return removed ? { name, removed } : undefined;
}

/** kubectl's refusal of `user`'s auth provider, or undefined when kubectl has that provider (or none is named). */
export function removedAuthProviderError(user: unknown): UsageError | undefined {
  const found = removedProvider(user);
  if (!found) return undefined;
  const userName = oneLine(String((user as { name?: unknown }).name ?? ''));
  return new UsageError(
    `the kubeconfig's user ${userName} uses the ${found.name} auth provider, which kubectl no longer has; kubectl says: ${found.removed.kubectl.replaceAll('\n', ' ')}`,
    { hint: found.removed.hint },
  );
}

/**
 * Puts a refusal first among `config`'s authenticators (client-node uses the first whose
 * isAuthProvider answers): whichever user a request is made for, client-node's gcp and azure
 * providers never run. ctl refuses the user in use before any request too (./client.ts).
 */
export function refuseRemovedAuthProviders(config: object): void {
  const authenticators = (config as { authenticators?: unknown }).authenticators;
  if (!Array.isArray(authenticators)) return;
  authenticators.unshift({
    isAuthProvider: (user: unknown) => removedProvider(user) !== undefined,
    applyAuthentication: (user: unknown) => {
      throw removedAuthProviderError(user);
    },
  });
}
