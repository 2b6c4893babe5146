/**
 * A kubeconfig user's impersonation sent as kubectl sends it: `as`, `as-uid`, `as-groups` and
 * `as-user-extra` (kubectl's `--as` family fills the same fields).
 *
 * client-node reads only `as` (config_types.js drops the other three) and sends only
 * `Impersonate-User` (config.js applyHTTPSOptions), even for an empty `as`. ctl then acted with
 * fewer groups than kubectl for the same context, and its plan's permission checks disagreed
 * with what kubectl can do. What client-go sends, read in kubernetes/client-go at its commit
 * 32ce75a7d (2026-07-24):
 * - tools/clientcmd/client_config.go (ClientConfig and getUserIdentificationPartialConfig): only
 *   a user with a non-empty `as` impersonates; its `as-uid`, `as-groups` and `as-user-extra` come
 *   with it (tools/clientcmd/api/v1/types.go names the fields);
 * - transport/round_trippers.go impersonatingRoundTripper: `Impersonate-User`, `Impersonate-Uid`
 *   when the uid is not empty, one `Impersonate-Group` header per group, one
 *   `Impersonate-Extra-<key escaped>` header per value of each extra key; headerKeyEscape
 *   %-encodes (two upper-case hex digits) every byte of the key's UTF-8 that is not an HTTP token
 *   byte (legalHeaderKeyBytes, net/http's isTokenTable), and `%` itself.
 * Header names are case-insensitive (the API server lowercases them), so the escaped key is sent
 * as escaped, not in Go's canonical case.
 *
 * A value is sent as the bytes of its UTF-8, as Go sends a string (Node writes a header string
 * as latin1, one byte a character: the UTF-8 is handed over that way). Go's HTTP client refuses
 * a value with a control character other than a tab (net/http: `invalid header field value`,
 * httpguts.ValidHeaderFieldValue) and so does Node's (ERR_INVALID_CHAR): such a user is refused
 * here, before any request, in the kubeconfig's words (exit 2).
 */

import { UsageError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import { authInfoOf, type AuthInfo } from './auth-info.js';

/** The headers of one impersonation; a list is one header line per value. */
export type ImpersonationHeaders = Record<string, string | string[]>;

/** The bytes of an HTTP token (RFC 9110 tchar), as client-go's legalHeaderKeyBytes lists them. */
const TOKEN_BYTE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/;

/**
 * client-go's headerKeyEscape: each byte of the key's UTF-8 that is not a token byte, and `%`,
 * as `%XX` (upper-case hex); the others as they are.
 */
export function headerKeyEscape(key: string): string {
  let escaped = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const char = String.fromCharCode(byte);
    escaped +=
      byte < 0x80 && TOKEN_BYTE.test(char) && char !== '%'
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return escaped;
}

/** A control character other than a tab: what Go's and Node's HTTP clients refuse in a header value. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** The value as the bytes of its UTF-8, one latin1 character a byte (how Node writes a header). */
function asBytes(value: string): string {
  return Buffer.from(value, 'utf8').toString('latin1');
}

/**
 * The headers kubectl sends for user `name` (its kubeconfig entry's fields), or undefined when it
 * impersonates nobody. Throws a UsageError (exit 2) for a field kubectl cannot read as the
 * kubeconfig's type (a string, a list of strings, a map of lists of strings) or a value no HTTP
 * header can carry.
 */
export function impersonationHeaders(name: string, user: AuthInfo): ImpersonationHeaders | undefined {
  // client_config.go: `len(configAuthInfo.Impersonate) > 0`.
  if (user.as === undefined || user.as === null || user.as === '') return undefined;
  const shown = oneLine(name);
  const as = text(user.as, shown, 'as');
  const uid =
    user['as-uid'] === undefined || user['as-uid'] === null ? '' : text(user['as-uid'], shown, 'as-uid');
  const groups = list(user['as-groups'], shown, 'as-groups');
  const extra = user['as-user-extra'];
  if (extra !== undefined && extra !== null && (typeof extra !== 'object' || Array.isArray(extra))) {
    throw notReadable(shown, 'as-user-extra', 'a map of keys to lists of strings');
  }
  const headers: ImpersonationHeaders = { 'Impersonate-User': asBytes(as) };
  if (uid !== '') headers['Impersonate-Uid'] = asBytes(uid);
  if (groups.length > 0) headers['Impersonate-Group'] = groups.map(asBytes);
  for (const [key, values] of Object.entries((extra ?? {}) as Record<string, unknown>)) {
    const field = `as-user-extra ${JSON.stringify(oneLine(key))}`;
    const sent = list(values, shown, field);
    // Header.Add of no value adds no header.
    if (sent.length === 0) continue;
    // One key a header: the escape is one-to-one (`%` is escaped too).
    headers[`Impersonate-Extra-${headerKeyEscape(key)}`] = sent.map(asBytes);
  }
  return headers;
}

function text(value: unknown, name: string, field: string): string {
  if (typeof value !== 'string') throw notReadable(name, field, 'a string');
  if (CONTROL.test(value)) {
    throw new UsageError(
      `the kubeconfig's user ${name} has a control character in ${field}: no HTTP header can carry it (kubectl says: net/http: invalid header field value)`,
      {
        hint: `Remove the control character (a line break, an escape) from ${field} in user ${name}, or pass the value without it.`,
      },
    );
  }
  return value;
}

function list(value: unknown, name: string, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw notReadable(name, field, 'a list of strings');
  return (value as unknown[]).map((item) => text(item, name, field));
}

function notReadable(name: string, field: string, kind: string): UsageError {
  return new UsageError(`the kubeconfig's user ${name} has ${field} that is not ${kind}`, {
    hint: `Write ${field} in user ${name} as ${kind}, quoted where YAML would read a number or a boolean (kubectl does not read it otherwise).`,
  });
}

/** The part of client-node's KubeConfig patched here. */
interface KubeConfigInside {
  getCurrentUser(): ({ name: string } & object) | null;
  applyHTTPSOptions?: (options: { headers?: Record<string, unknown> }) => void;
}

/**
 * Makes every request of `config` impersonate as kubectl does: client-node's applyHTTPSOptions,
 * which both its fetch options (kubeRequest, the watches: request.ts kubeEndpoint) and its
 * WebSocket options (the port-forward's upgrade) go through, then client-node's
 * `Impersonate-User` replaced by kubectl's headers for the user in use. A user not read from a
 * kubeconfig file (in-cluster) keeps client-node's behaviour: it has no `as`.
 */
export function impersonateAsKubectl(config: object): void {
  const inside = config as KubeConfigInside;
  const apply = inside.applyHTTPSOptions;
  if (typeof apply !== 'function') return;
  inside.applyHTTPSOptions = function (this: KubeConfigInside, options) {
    apply.call(this, options);
    const user = this.getCurrentUser();
    const info = authInfoOf(user);
    if (!user || !info) return;
    const headers = (options.headers ??= {});
    delete headers['Impersonate-User'];
    Object.assign(headers, impersonationHeaders(user.name, info));
  };
}
