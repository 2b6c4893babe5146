import { AuthError, OperationError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import type { HttpResponse } from './http.js';

/**
 * The management API's error body. The request pages document `{error_code, message}` (e.g.
 * redis/docs content/operate/rs/references/rest-api/requests/users/authorize.md, "Error codes");
 * the API's OpenAPI description (rest-api/api-reference/openapi.json, `cluster_Error`) names the
 * text `description` instead. Either is read, `message` first; either may be missing.
 */
/**
 * The server answered, but not as the management API does: an HTML page, text that is not JSON
 * (a truncated body), or JSON of the wrong shape. Exit 1 where it happens mid-run; before a
 * plan it is the failed `api-reachable` check, exit 3 (docs/exit-codes.md, "Decisions").
 */
export class MalformedAnswerError extends OperationError {}

/** What to do about an answer that is not the management API's: it usually is not the API. */
export const NOT_THE_API_HINT =
  'Check that --api-url points at the management API (port 9443) and not at a proxy or another service.';

export interface ApiErrorBody {
  error_code?: string;
  message?: string;
}

export function errorBody(response: HttpResponse): ApiErrorBody {
  const body = response.body;
  if (body && typeof body === 'object') {
    const { error_code, message, description } = body as Record<string, unknown>;
    const text =
      typeof message === 'string' ? message : typeof description === 'string' ? description : undefined;
    return {
      error_code: typeof error_code === 'string' ? error_code : undefined,
      message: text,
    };
  }
  return { message: typeof body === 'string' && body.length < 500 ? body : undefined };
}

/**
 * "the server's message (error_code)" for error lines: the server's words, on one line (it could
 * otherwise write lines of its own into ctl's error), at most 300 characters.
 */
export function describeApiError(response: HttpResponse): string {
  const body = errorBody(response);
  const error_code = body.error_code === undefined ? undefined : clip(oneLine(body.error_code));
  const message = body.message === undefined ? undefined : clip(oneLine(body.message));
  const parts = [message, error_code && error_code !== message ? `(${error_code})` : undefined].filter(
    Boolean,
  );
  return parts.length > 0 ? parts.join(' ') : `HTTP ${response.status}`;
}

function clip(text: string): string {
  return text.length <= 300 ? text : `${text.slice(0, 299)}…`;
}

export function isPasswordExpired(response: HttpResponse): boolean {
  return errorBody(response).error_code === 'password_expired';
}

export function passwordExpiredError(username: string): AuthError {
  return new AuthError(`the password of ${username} has expired and must be changed before ctl can sign in`, {
    hint:
      "Change it in the Cluster Manager UI (or with rladmin / PUT /v1/users/UID), update the cluster's Secret or " +
      'CTL_PASSWORD to the new password, and run the command again.',
  });
}

/**
 * `403 modules_upload_disabled`: the cluster refuses module uploads by setting, whatever the
 * account's role. Redis Software 8.2 turns the cluster setting `allow_modules_upload` off by
 * default, and the 8.0+ docs add custom modules as user-defined modules instead
 * (rest-api/requests/modules/user-defined.md; redis-facts.md §4, §12).
 */
export function isModulesUploadDisabled(response: HttpResponse): boolean {
  return response.status === 403 && errorBody(response).error_code === 'modules_upload_disabled';
}

export function modulesUploadDisabledError(fileName: string): OperationError {
  return new OperationError(
    `POST /v2/modules: the cluster does not allow module uploads (403 modules_upload_disabled), so ${fileName} was not uploaded`,
    {
      hint:
        'This is a cluster setting, not a permission: another account will not help. Allow module uploads on the ' +
        'cluster (setting allow_modules_upload, off by default from Redis Software 8.2), or add the module as a ' +
        'user-defined module (spec.userDefinedModules of the RedisEnterpriseCluster, or POST /v2/modules/user-defined), ' +
        'then run the command again.',
    },
  );
}

/**
 * A non-2xx answer other than 401 and 403 (those are AuthErrors): its HTTP status and the API's
 * `error_code`, for a caller that judges the answer (a 4xx refusal of what was sent) by them
 * rather than by the words of the message.
 */
export class ApiStatusError extends OperationError {
  readonly status: number;
  readonly errorCode: string | undefined;

  constructor(message: string, status: number, errorCode: string | undefined, hint: string | undefined) {
    super(message, { hint });
    this.status = status;
    this.errorCode = errorCode;
  }
}

/** Any non-2xx answer of an authenticated call, as the error that fits its status. */
export function apiError(label: string, response: HttpResponse): AuthError | OperationError {
  const detail = describeApiError(response);
  if (response.status === 401) {
    return new AuthError(`${label}: authentication failed: ${detail}`, {
      hint: 'Check the username and password (CTL_USERNAME, CTL_PASSWORD or the cluster Secret).',
    });
  }
  if (response.status === 403) {
    return new AuthError(`${label}: permission denied: ${detail}`, {
      // A role without the request's permission (rest-api/_index.md "Permissions"); the plan's
      // api-permissions check judges the changes a run makes (docs/checks.md).
      hint: "The management API user's role does not allow this request: sign in as a user whose role does (the admin role allows every request; CTL_USERNAME and CTL_PASSWORD, or the cluster's Secret), then run the command again.",
    });
  }
  return new ApiStatusError(
    `${label} failed with HTTP ${response.status}: ${detail}`,
    response.status,
    errorBody(response).error_code,
    response.status >= 500
      ? 'The cluster reported an internal error; check its health and try again.'
      : undefined,
  );
}
