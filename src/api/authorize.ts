import { AuthError, OperationError } from '../errors.js';
import {
  apiError,
  describeApiError,
  isPasswordExpired,
  MalformedAnswerError,
  passwordExpiredError,
} from './api-errors.js';
import { type Clock, systemClock } from './clock.js';
import type { Credentials } from './credentials.js';
import type { ApiLog, HttpClient, HttpResponse } from './http.js';
import { decodeJwtTimes } from './jwt.js';

/**
 * POST /v1/users/authorize (redis-facts.md §4, §12):
 * - header (Form A, servers 7.8.2+): credentials in the Basic Authorization header, body {ttl};
 * - body (Form B, older servers): body {username, password, ttl};
 * - auto: ONE request carrying both, the Basic header and the body {username, password, ttl}.
 *   Servers 7.8.2 and later read the header and ignore credentials in the body (RS release
 *   notes 7.8: "username and password in the request body are ignored"); older servers read
 *   the body (objects/jwt_authorize.md: {username, password, ttl}). Only when that request is
 *   answered 400 or 401 (a server that dislikes the mixture) does auto try Form A alone, then
 *   Form B alone: at most three attempts, each stopped by any answer but 400/401.
 */
export type AuthForm = 'auto' | 'header' | 'body';

export const AUTH_FORMS: readonly AuthForm[] = ['auto', 'header', 'body'];

export interface IssuedToken {
  accessToken: string;
  /** The ttl asked for, in seconds. */
  ttl: number;
  /** Local clock (ms) when the request that got it started. */
  obtainedAt: number;
  /** Local clock (ms) when it stops working, from the JWT's lifetime capped by the ttl. */
  expiresAt: number;
  /** The server's `exp` claim (seconds), when the token carries one. */
  exp?: number;
}

export interface AuthorizeOptions {
  ttl: number;
  form: AuthForm;
  clock?: Clock;
  log?: ApiLog;
  /** Called with the token as soon as it arrives (register it with the redactor). */
  onSecret?(secret: string): void;
}

const PATH = '/v1/users/authorize';

/** What one request carries: `both` is the Basic header AND the body credentials. */
type SentForm = 'both' | 'header' | 'body';

const FORM_LABEL: Record<SentForm, string> = {
  both: 'combined form (Basic header and body credentials)',
  header: 'header form',
  body: 'body form',
};

/**
 * Answers worth another form: 400 (a server that wants another shape) and 401 (a server that
 * read the credentials from where this form did not put them). Never an expired password:
 * another form cannot cure it.
 */
function isFallbackAnswer(response: HttpResponse): boolean {
  return (response.status === 400 || response.status === 401) && !isPasswordExpired(response);
}

export async function authorize(
  http: HttpClient,
  credentials: Credentials,
  options: AuthorizeOptions,
): Promise<IssuedToken> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const forms: SentForm[] = options.form === 'auto' ? ['both', 'header', 'body'] : [options.form];
  let usedForm = forms[0] ?? 'both';
  let response = await send(http, credentials, usedForm, options.ttl);
  for (const next of forms.slice(1)) {
    if (!isFallbackAnswer(response)) break;
    options.log?.debug(
      1,
      `${PATH}: the ${FORM_LABEL[usedForm]} got ${response.status} (${describeApiError(response)}); trying the ${FORM_LABEL[next]}`,
    );
    usedForm = next;
    response = await send(http, credentials, next, options.ttl);
  }
  if (response.status === 200) {
    const token = accessTokenOf(response);
    options.onSecret?.(token);
    return issuedToken(token, options.ttl, started);
  }
  throw authorizeError(response, credentials.username, options.form, usedForm);
}

/**
 * POST /v1/users/refresh_jwt: a new token for a still-valid one, without the password.
 * The header is `Authorization: JWT <token>`, the only form the REST reference documents
 * (rest-api/requests/users/refresh_jwt.md, authorize.md). security/access-control/
 * disable-basic-authentication.md calls the token "a bearer token" but gives no `Bearer`
 * example, so ctl keeps the documented `JWT` scheme (redis-facts.md §4).
 */
export async function refreshToken(
  http: HttpClient,
  current: IssuedToken,
  options: { clock?: Clock; onSecret?(secret: string): void },
): Promise<IssuedToken> {
  const started = (options.clock ?? systemClock).now();
  const response = await http.request({
    method: 'POST',
    path: '/v1/users/refresh_jwt',
    headers: { authorization: `JWT ${current.accessToken}` },
    json: { ttl: current.ttl },
    // Minting a token changes nothing on the server: safe to repeat after a broken connection.
    idempotent: true,
  });
  if (response.status !== 200) throw apiError('POST /v1/users/refresh_jwt', response);
  const token = accessTokenOf(response);
  options.onSecret?.(token);
  return issuedToken(token, current.ttl, started);
}

function send(
  http: HttpClient,
  credentials: Credentials,
  form: SentForm,
  ttl: number,
): Promise<HttpResponse> {
  const basic = Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64');
  const headers = form === 'body' ? undefined : { authorization: `Basic ${basic}` };
  const json =
    form === 'header' ? { ttl } : { username: credentials.username, password: credentials.password, ttl };
  // Minting a token changes nothing on the server: safe to repeat after a broken connection.
  return http.request({
    method: 'POST',
    path: PATH,
    ...(headers ? { headers } : {}),
    json,
    idempotent: true,
  });
}

function accessTokenOf(response: HttpResponse): string {
  const token = (response.body as { access_token?: unknown } | undefined)?.access_token;
  // Printable ASCII only: a token goes to terminals and headers, where control bytes do harm.
  if (typeof token !== 'string' || !/^[\x21-\x7e]+$/.test(token)) {
    throw new MalformedAnswerError(`${PATH} answered 200 without a usable access_token`, {
      hint: 'Check that --api-url points at the management API (port 9443).',
    });
  }
  return token;
}

/** Schedules from the token's own lifetime (exp - iat: immune to clock skew), capped by the ttl. */
export function issuedToken(accessToken: string, ttl: number, obtainedAt: number): IssuedToken {
  const { iat, exp } = decodeJwtTimes(accessToken);
  let lifetime = ttl;
  if (exp !== undefined && iat !== undefined) lifetime = exp - iat;
  else if (exp !== undefined) lifetime = exp - obtainedAt / 1000;
  if (!(lifetime > 0)) lifetime = ttl;
  lifetime = Math.min(lifetime, ttl);
  const token: IssuedToken = { accessToken, ttl, obtainedAt, expiresAt: obtainedAt + lifetime * 1000 };
  if (exp !== undefined) token.exp = exp;
  return token;
}

function authorizeError(
  response: HttpResponse,
  username: string,
  asked: AuthForm,
  used: SentForm,
): AuthError | OperationError {
  if (isPasswordExpired(response)) return passwordExpiredError(username);
  const detail = describeApiError(response);
  if (response.status === 401) {
    return new AuthError(`authentication failed for ${username}: ${detail}`, {
      hint:
        asked === 'body'
          ? 'Check the username and password. Servers 7.8.2 and later ignore credentials in the body: try --auth-form header (or auto).'
          : 'Check the username and password (--username/CTL_USERNAME, --password-stdin, --password-file or CTL_PASSWORD).',
    });
  }
  if (response.status === 403) {
    return new AuthError(`${username} may not sign in: ${detail}`, {
      hint: 'Use an account allowed to use the REST API.',
    });
  }
  if (response.status === 400) {
    const hint =
      asked === 'auto'
        ? 'No authorize form was accepted (combined, header, body). Check that --api-url points at the management API (port 9443).'
        : used === 'header'
          ? 'Servers before 7.8.2 take the credentials in the body: try --auth-form body (or auto).'
          : 'Servers 7.8.2 and later take the credentials in the Basic header: try --auth-form header (or auto).';
    return new OperationError(`the server refused the authorize request: ${detail}`, { hint });
  }
  return apiError(`POST ${PATH}`, response);
}
