/**
 * The kubeconfig users that ctl refuses because of their `auth-provider`, before any request: the
 * ones kubectl refuses, and the ones client-node would serve differently from kubectl. Each
 * refusal quotes kubectl's own message where kubectl has one, and says what to use instead.
 *
 * What kubectl does with a user's auth-provider (kubernetes/client-go, read at its commit 32ce75a7d
 * of 2026-07-24):
 * - tools/clientcmd/validation.go validateAuthInfo, run for the context in use before any request
 *   (client_config.go ConfirmUsable): a user with both an `exec` plugin and an `auth-provider` is
 *   invalid ("authProvider cannot be provided in combination with an exec plugin for U");
 * - rest/transport.go looks the auth-provider up by its name, rest/plugin.go GetAuthProvider: a
 *   name that no plugin registered fails with `no Auth Provider found for name "X"`. kubectl
 *   (kubernetes/kubernetes cmd/kubectl/kubectl.go) imports plugin/pkg/client/auth, whose
 *   plugins.go registers `oidc` and whose plugins_providers.go (every build but `providerless`)
 *   registers `azure` and `gcp`, both stubs since client-go 1.26 whose constructor fails with the
 *   messages below (azure/azure_stub.go, gcp/gcp_stub.go);
 * - the provider gets the auth-provider's `config` as a map of strings: nothing in it is ever run
 *   as a command. Only a user's own `exec` is (plugin/pkg/client/auth/exec).
 *
 * client-node 1.4 asks its authenticators in turn, azure, gcp, exec, tokenFile, oidc (config.js
 * applyAuthorizationHeader), and uses the first that claims the user, or none. So for the same
 * kubeconfig it:
 * - ran the gcp and azure providers' `cmd-path` with `cmd-args` through a shell, synchronously,
 *   with no time or output bound (gcp_auth.js, azure_auth.js: child_process.execSync);
 * - ran `auth-provider.config.exec.command` (exec_auth.js: isAuthProvider claims a user whose
 *   auth-provider's config has an `exec`, or whose provider is named `exec`; getCredential runs
 *   it): a value of the provider's config became a command that kubectl would never run;
 * - ran the user's `exec` plugin where the user has an auth-provider too, which kubectl refuses;
 * - sent the file's token for an `oidc` user whose config also has a `tokenFile` (file_auth.js
 *   claims it first), where kubectl's oidc provider sends the id-token;
 * - sent any other provider's requests WITHOUT credentials (no authenticator claims it).
 * ctl refuses all of those (exit 2, as every refused kubeconfig). It keeps `oidc`, and the one
 * form of client-node's own that ctl documents: an auth-provider whose config has a `tokenFile`
 * (file_auth.js, the form of client-node's in-cluster config), read through ctl's bounded reader
 * (./request-files.ts). kubectl has no such provider; ctl keeps it for the kubeconfigs written for
 * client-node, as docs/auth.md says.
 */

import { UsageError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';

/** The client-go credential plugin contract, which replaces every auth provider kubectl dropped. */
const PLUGINS_DOC =
  'https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins';

/** client-go's stubs: their error, word for word (its lines joined with a space in ctl's one-line message). */
const REMOVED: Readonly<Record<string, { kubectl: string; hint: string }>> = {
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

/** The one auth provider kubectl has that works (plugins.go). */
const KUBECTL_PROVIDER = 'oidc';

/** client-node claims a provider of this name for its ExecAuth (exec_auth.js), whatever its config says. */
const CLIENT_NODE_EXEC_NAME = 'exec';

interface Refusal {
  message: string;
  hint: string;
}

/** What of a user this module reads; anything else the kubeconfig holds is left alone. */
interface UserView {
  name?: unknown;
  exec?: unknown;
  authProvider?: unknown;
}

/** Why ctl refuses `user`'s auth-provider, or undefined when it has none or one ctl keeps. */
function refusalOf(user: unknown): Refusal | undefined {
  if (!user || typeof user !== 'object') return undefined;
  const { name: userName, exec, authProvider } = user as UserView;
  // client-node reads `auth-provider` as it is; a missing or null one is no provider for either.
  if (authProvider === undefined || authProvider === null) return undefined;
  const shownUser = oneLine(String(userName ?? ''));
  const who = `the kubeconfig's user ${shownUser}`;
  const provider =
    typeof authProvider === 'object' ? (authProvider as { name?: unknown; config?: unknown }) : {};
  // Compared as client-node compares it (`===` a string); shown as the kubeconfig has it.
  const name = typeof provider.name === 'string' ? provider.name : undefined;
  const shown = `"${oneLine(provider.name === undefined || provider.name === null ? '' : String(provider.name))}"`;
  const config =
    provider.config && typeof provider.config === 'object'
      ? (provider.config as Record<string, unknown>)
      : {};

  if (exec) {
    return {
      message: `${who} has both an exec credential plugin and an auth-provider; kubectl says: authProvider cannot be provided in combination with an exec plugin for ${shownUser}`,
      hint: "Keep one of them: remove the user's auth-provider to use its exec plugin (users[].user.exec), or remove its exec.",
    };
  }
  // Present, whatever its value: client-node runs a truthy one (exec_auth.js), and an empty one
  // (`exec: ""`, `exec:`) is the same setting left blank, refused in the same words rather than
  // let through for what client-node happens to make of it.
  if (Object.hasOwn(config, 'exec')) {
    return {
      message: `${who} has an exec command in its auth-provider's config (auth-provider.config.exec); kubectl never runs it, and neither does ctl`,
      hint:
        "Give the command as the user's exec credential plugin instead (users[].user.exec: apiVersion, command, args), " +
        `which kubectl and ctl run (${PLUGINS_DOC}), and remove the auth-provider.`,
    };
  }
  const removed = name !== undefined && Object.hasOwn(REMOVED, name) ? REMOVED[name] : undefined;
  if (name !== undefined && removed) {
    return {
      message: `${who} uses the ${name} auth provider, which kubectl no longer has; kubectl says: ${removed.kubectl.replaceAll('\n', ' ')}`,
      hint: removed.hint,
    };
  }
  // Truthy, as file_auth.js tests it: client-node's FileAuth claims the user, before its oidc.
  const fileAuthClaims = Boolean(config.tokenFile);
  if (name === KUBECTL_PROVIDER) {
    if (!fileAuthClaims) return undefined;
    return {
      message: `${who} uses the oidc auth provider with a tokenFile in its config; kubectl's oidc provider ignores the tokenFile and sends the id-token, where the Kubernetes client ctl is built on (client-node) would send the file's token`,
      hint: "Remove tokenFile from the user's oidc auth-provider (kubectl sends the id-token), or use an exec credential plugin (users[].user.exec).",
    };
  }
  // client-node's tokenFile form, kept (above): a path. `exec` is a name ExecAuth claims before it.
  if (fileAuthClaims && typeof config.tokenFile === 'string' && name !== CLIENT_NODE_EXEC_NAME)
    return undefined;
  return {
    message: `${who} uses the auth provider ${shown}, which kubectl does not have; kubectl says: no Auth Provider found for name ${shown}`,
    hint:
      'ctl, as kubectl, knows the oidc auth provider (and, as the Kubernetes JavaScript client, an auth-provider whose config has a tokenFile); ' +
      `give any other credential by an exec credential plugin (users[].user.exec), which kubectl and ctl run (${PLUGINS_DOC}).`,
  };
}

/** ctl's refusal of `user`'s auth-provider (a usage error), or undefined when ctl uses it (or it has none). */
export function authProviderRefusal(user: unknown): UsageError | undefined {
  const refusal = refusalOf(user);
  return refusal ? new UsageError(refusal.message, { hint: refusal.hint }) : undefined;
}

/**
 * Puts the refusal first among `config`'s authenticators (client-node uses the first whose
 * isAuthProvider answers): whichever user a request is made for, none of the forms above reaches
 * client-node's own authenticators, nor goes without credentials. ctl refuses the user in use
 * before any request too (./client.ts); this covers a request made for another user.
 */
export function refuseAuthProviders(config: object): void {
  const authenticators = (config as { authenticators?: unknown }).authenticators;
  if (!Array.isArray(authenticators)) return;
  authenticators.unshift({
    isAuthProvider: (user: unknown) => refusalOf(user) !== undefined,
    applyAuthentication: (user: unknown) => {
      throw authProviderRefusal(user);
    },
  });
}
