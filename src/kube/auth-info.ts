/**
 * kubectl's checks of the kubeconfig user it is about to use, made before any request, with
 * kubectl's words (exit 2, as every refused kubeconfig) and what to change.
 *
 * client-go (kubernetes/client-go, read at its commit 32ce75a7d of 2026-07-24) validates the
 * context in use, and only that one, before it builds a client: tools/clientcmd/client_config.go
 * ClientConfig calls ConfirmUsable, which runs validation.go validateAuthInfo on the context's
 * user (and validateClusterInfo on its cluster). validateAuthInfo refuses:
 * - a token beside a username or password ("more than one authentication method");
 * - client-certificate beside client-certificate-data, client-key beside client-key-data, a
 *   client certificate without a key (a key without a certificate is not checked), and, beside a
 *   certificate, a client-certificate or client-key file that does not open (`os.Open`; here read
 *   through ctl's bounded reader, kubeconfig-file-open.ts);
 * - an exec plugin without a command or an apiVersion, with an env entry without a name, or
 *   without a valid interactiveMode (api/v1/defaults.go SetDefaults_ExecConfig sets IfAvailable
 *   for the v1beta1 and v1alpha1 apiVersions when it is missing, so only v1 must give it);
 * - as-uid, as-groups or as-user-extra without `as` (impersonation without a user);
 * - an exec plugin beside an auth-provider: refused-auth-providers.ts already refuses that one.
 * Its errors come together (errConfigurationInvalid), which kubectl prints as one error alone, or
 * as `Error in configuration:` and a `* ` line for each (asKubectlPrints). Once they pass, the exec
 * plugin's apiVersion must be one client-go speaks, v1beta1 or v1 (plugin/pkg/client/auth/exec/
 * exec.go newAuthenticator: `exec plugin: invalid apiVersion "X"`), and a `tokenFile` may not be
 * beside a username (transport/transport.go: `username/password or bearer token may be set, but
 * not both`).
 * A certificate or key file that is a FIFO, a device, a folder or too large is refused in ctl's own
 * words (src/io/paths.ts, in client.ts selectContext and kubeconfig-file-open.ts): kubectl opens a
 * folder and waits on a FIFO.
 *
 * client-node makes none of these checks, and sent what it made of such a user: the token (or
 * the plugin's) over Basic auth, one certificate or the other, a certificate without a key (no
 * client certificate at all), a plugin kubectl never starts.
 */

import { UsageError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import { openHint } from './kubeconfig-file-open.js';

/** The fields of a kubeconfig user (`users[].user`) that kubectl checks, as the file has them. */
export interface AuthInfo {
  token?: unknown;
  /** kubectl's token file (client-node's `token-file` is not kubectl's: kubectl ignores it). */
  tokenFile?: unknown;
  username?: unknown;
  password?: unknown;
  'client-certificate'?: unknown;
  'client-certificate-data'?: unknown;
  'client-key'?: unknown;
  'client-key-data'?: unknown;
  exec?: unknown;
  as?: unknown;
  'as-uid'?: unknown;
  'as-groups'?: unknown;
  'as-user-extra'?: unknown;
}

const FIELDS: readonly (keyof AuthInfo)[] = [
  'token',
  'tokenFile',
  'username',
  'password',
  'client-certificate',
  'client-certificate-data',
  'client-key',
  'client-key-data',
  'exec',
  'as',
  'as-uid',
  'as-groups',
  'as-user-extra',
];

/** The ExecCredential versions client-go's exec plugin runner speaks (exec.go apiVersions). */
const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1beta1', 'client.authentication.k8s.io/v1'];

/** The versions whose missing interactiveMode is IfAvailable (api/v1/defaults.go). */
const DEFAULTS_TO_IF_AVAILABLE = [
  'client.authentication.k8s.io/v1beta1',
  'client.authentication.k8s.io/v1alpha1',
];

const INTERACTIVE_MODES = ['Never', 'IfAvailable', 'Always'];

/** Go's `len(x) != 0` on what the field decodes to: a string, a list or a map. */
function given(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return String(value) !== '';
}

/** Go's `%q` of a string, as the kubeconfig holds it (shown on one line). */
function quoted(value: unknown): string {
  return `"${oneLine(typeof value === 'string' ? value : String(value ?? ''))}"`;
}

export interface Problem {
  /** kubectl's words. */
  kubectl: string;
  /** What to change. */
  hint: string;
}

/**
 * The user's client certificate and key files as ctl reads them (made absolute from the
 * kubeconfig's folder, as kubectl's loader makes them), and how to tell whether one opens
 * (kubeconfig-file-open.ts openProblem: Go's `open PATH: REASON`, or undefined).
 */
export interface UserFiles {
  certFile?: string | undefined;
  keyFile?: string | undefined;
  opened(path: string, field: string): string | undefined;
}

/** validateAuthInfo's errors for user `name`, in its order, each with what to change. */
function validationProblems(name: string, user: AuthInfo, files: UserFiles): Problem[] {
  const problems: Problem[] = [];
  const methods: string[] = [];
  if (given(user.token)) methods.push('token');
  if (given(user.username) || given(user.password)) methods.push('basicAuth');

  const certFile = given(user['client-certificate']);
  const certData = given(user['client-certificate-data']);
  const keyFile = given(user['client-key']);
  const keyData = given(user['client-key-data']);
  if (certFile || certData) {
    if (certFile && certData) {
      problems.push({
        kubectl: `client-cert-data and client-cert are both specified for ${name}. client-cert-data will override.`,
        hint: `Keep one of client-certificate and client-certificate-data in user ${name}.`,
      });
    }
    if (keyFile && keyData) {
      problems.push({
        kubectl: `client-key-data and client-key are both specified for ${name}; client-key-data will override`,
        hint: `Keep one of client-key and client-key-data in user ${name}.`,
      });
    }
    if (!keyFile && !keyData) {
      problems.push({
        kubectl: `client-key-data or client-key must be specified for ${name} to use the clientCert authentication method.`,
        hint: `Give user ${name} the key of its client certificate (client-key or client-key-data), or remove the certificate.`,
      });
    }
    // kubectl opens both files here (os.Open), only beside a certificate, as this check is.
    for (const [named, path, field, goName] of [
      [certFile, files.certFile, 'client-certificate', 'client-cert'],
      [keyFile, files.keyFile, 'client-key', 'client-key'],
    ] as const) {
      const problem = named && path ? files.opened(path, field) : undefined;
      if (problem) {
        problems.push({
          kubectl: `unable to read ${goName} ${path} for ${name} due to ${problem}`,
          hint: openHint(
            problem,
            path ?? '',
            `Fix the path of ${field} in user ${name} (a relative one is taken from the kubeconfig's folder), or put the file there.`,
          ),
        });
      }
    }
  }

  const exec = user.exec;
  if (exec !== undefined && exec !== null) {
    const plugin = (typeof exec === 'object' ? exec : {}) as {
      command?: unknown;
      apiVersion?: unknown;
      env?: unknown;
      interactiveMode?: unknown;
    };
    const where = `users[].user.exec of user ${name}`;
    if (!given(plugin.command)) {
      problems.push({
        kubectl: `command must be specified for ${name} to use exec authentication plugin`,
        hint: `Give the plugin's command in ${where} (command: the program, args: its arguments).`,
      });
    }
    if (!given(plugin.apiVersion)) {
      problems.push({
        kubectl: `apiVersion must be specified for ${name} to use exec authentication plugin`,
        hint: `Give the ExecCredential version the plugin prints in ${where} (apiVersion: client.authentication.k8s.io/v1 or v1beta1).`,
      });
    }
    const env = Array.isArray(plugin.env) ? (plugin.env as unknown[]) : [];
    // One error per entry without a name, as validateAuthInfo gives them (kubectl prints each).
    const nameless = env.filter((entry) => !given((entry as { name?: unknown } | null)?.name)).length;
    for (let index = 0; index < nameless; index += 1) {
      problems.push({
        kubectl: `env variable name must be specified for ${name} to use exec authentication plugin`,
        hint: `Give every env entry of ${where} a name, or remove the entry.`,
      });
    }
    const apiVersion = typeof plugin.apiVersion === 'string' ? plugin.apiVersion : '';
    const mode = given(plugin.interactiveMode)
      ? String(plugin.interactiveMode)
      : DEFAULTS_TO_IF_AVAILABLE.includes(apiVersion)
        ? 'IfAvailable'
        : '';
    const modeHint = `Set interactiveMode in ${where}: Never for a plugin that asks nothing on a terminal (ctl gives it none), IfAvailable or Always.`;
    if (mode === '') {
      problems.push({
        kubectl: `interactiveMode must be specified for ${name} to use exec authentication plugin`,
        hint: modeHint,
      });
    } else if (!INTERACTIVE_MODES.includes(mode)) {
      problems.push({ kubectl: `invalid interactiveMode for ${name}: ${quoted(mode)}`, hint: modeHint });
    }
  }

  if (methods.length > 1) {
    problems.push({
      kubectl: `more than one authentication method found for ${name}; found [${methods.join(' ')}], only one is allowed`,
      hint: `Keep one way to sign in for user ${name}: remove its token, or its username and password.`,
    });
  }

  if (
    (given(user['as-uid']) || given(user['as-groups']) || given(user['as-user-extra'])) &&
    !given(user.as)
  ) {
    problems.push({
      kubectl: `requesting uid, groups or user-extra for ${name} without impersonating a user`,
      hint: `Give user ${name} the user to impersonate (as), or remove as-uid, as-groups and as-user-extra.`,
    });
  }
  return problems;
}

/** exec.go's check of the plugin's apiVersion, made once validation has passed. */
function apiVersionProblem(user: AuthInfo): Problem | undefined {
  const exec = user.exec as { apiVersion?: unknown } | null | undefined;
  if (!exec || typeof exec !== 'object') return undefined;
  if (typeof exec.apiVersion === 'string' && EXEC_API_VERSIONS.includes(exec.apiVersion)) return undefined;
  return {
    kubectl: `exec plugin: invalid apiVersion ${quoted(exec.apiVersion)}`,
    hint: 'Set the exec apiVersion to the ExecCredential version the plugin prints: client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1.',
  };
}

/**
 * client-go's transport's refusal of a `tokenFile` beside a username, once validation has passed
 * (validateAuthInfo counts only a `token` against basic auth, so kubectl goes on, reads the file,
 * then refuses the pair): transport/transport.go HTTPWrappersForConfig,
 * `config.HasBasicAuth() && config.HasTokenAuth()` (a username; a token or a token file).
 * Measured with kubectl 1.28, 1.32 and 1.35 by hand; held to the kubectl nearest the simulator's
 * Kubernetes in test/e2e/kubeconfig-token-file.test.ts. client-node checks nothing of the pair:
 * it sets Basic auth, then the token over it, for a request.
 */
function tokenFileAndBasicProblem(name: string, user: AuthInfo): Problem | undefined {
  if (!given(user.tokenFile) || given(user.token) || !given(user.username)) return undefined;
  return {
    kubectl: 'username/password or bearer token may be set, but not both',
    hint: `Keep one way to sign in for user ${name}: remove its tokenFile, or its username and password.`,
  };
}

/**
 * The errors' texts as kubectl prints them (kubernetes/kubectl pkg/cmd/util/helpers.go checkErr:
 * MultilineError("Error in configuration: ", err) for client-go's errConfigurationInvalid, every
 * error of the flattened aggregate, repeats kept): one error alone (kubectl's `error: <a>`),
 * several as `Error in configuration:` then one `* <error>` line each. Measured with kubectl
 * 1.28, 1.32 and 1.35 (test/unit/kube/kubeconfig-entries.test.ts). client-go's own text,
 * `invalid configuration: [a, b]` (apimachinery's aggregate, repeats dropped), is what a Go
 * program gets from err.Error(); kubectl never prints it.
 */
export function asKubectlPrints(texts: readonly string[]): string {
  return texts.length === 1
    ? (texts[0] ?? '')
    : ['Error in configuration:', ...texts.map((text) => `* ${text}`)].join('\n');
}

/**
 * The refusal of the context in use, or undefined when kubectl would use it: user `name`
 * (`users[].user` as the file has it, and its files) and its cluster's problems
 * (cluster-info.ts clusterInfoProblems), which client-go gathers in that order into one error
 * (DirectClientConfig.ConfirmUsable: validateAuthInfo, then validateClusterInfo). Only the
 * context in use is asked about (client.ts).
 */
export function usableRefusal(
  name: string,
  user: AuthInfo,
  files: UserFiles,
  cluster?: { name: string; problems: Problem[] },
): UsageError | undefined {
  const shown = oneLine(name);
  const userProblems = validationProblems(shown, user, files);
  const clusterProblems = cluster?.problems ?? [];
  const problems = [...userProblems, ...clusterProblems];
  if (problems.length > 0) {
    const clusterName = oneLine(cluster?.name ?? '');
    const what =
      userProblems.length === 0
        ? `the kubeconfig's cluster ${clusterName} is not valid`
        : clusterProblems.length === 0
          ? `the kubeconfig's user ${shown} is not valid`
          : `the kubeconfig's user ${shown} and its cluster ${clusterName} are not valid`;
    return new UsageError(`${what}; kubectl says: ${asKubectlPrints(problems.map((p) => p.kubectl))}`, {
      hint: [...new Set(problems.map((p) => p.hint))].join(' '),
    });
  }
  const version = apiVersionProblem(user);
  if (version) {
    return new UsageError(
      `the kubeconfig's user ${shown} has an exec plugin kubectl does not run; kubectl says: ${version.kubectl}`,
      { hint: version.hint },
    );
  }
  const both = tokenFileAndBasicProblem(shown, user);
  return both
    ? new UsageError(
        `the kubeconfig's user ${shown} has a tokenFile and a username; kubectl says: ${both.kubectl}`,
        { hint: both.hint },
      )
    : undefined;
}

/** What each loaded user's entry held, for authInfoRefusal: client-node keeps only some of it. */
const authInfos = new WeakMap<object, AuthInfo>();

/** Keeps the fields kubectl checks of `raw` (`users[].user`) for `user`, client-node's User made of it. */
export function attachAuthInfo(user: object, raw: unknown): void {
  if (!raw || typeof raw !== 'object') return;
  const kept: AuthInfo = {};
  for (const field of FIELDS) {
    const value = (raw as Record<string, unknown>)[field];
    if (value !== undefined) kept[field] = value;
  }
  authInfos.set(user, kept);
}

/** The fields kept for `user`, if it was loaded from a kubeconfig. */
export function authInfoOf(user: object | null | undefined): AuthInfo | undefined {
  return user ? authInfos.get(user) : undefined;
}
