import type { ResourceType } from './registry.js';

/** A cause inside Status.details.causes, as the real API server reports field errors. */
export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
}

/** The `Status` object of the real API server; field order matches what it sends. */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** Thrown anywhere in the emulator; the HTTP layer turns it into the Status reply. */
export class KubeApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'KubeApiError';
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): KubeStatus {
    const status: KubeStatus = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) {
      // Keep the real server's key order: details comes before code.
      return { ...status, details: this.details, code: this.code };
    }
    return status;
  }
}

/** `pods` for the core group, `redisenterpriseclusters.app.redislabs.com` otherwise. */
export function qualifiedResource(rt: Pick<ResourceType, 'group' | 'plural'>): string {
  return rt.group ? `${rt.plural}.${rt.group}` : rt.plural;
}

export function notFound(rt: Pick<ResourceType, 'group' | 'plural'>, name: string): KubeApiError {
  return new KubeApiError(404, 'NotFound', `${qualifiedResource(rt)} "${name}" not found`, {
    name,
    group: rt.group || undefined,
    kind: rt.plural,
  });
}

export function namespaceNotFound(namespace: string): KubeApiError {
  return new KubeApiError(404, 'NotFound', `namespaces "${namespace}" not found`, {
    name: namespace,
    kind: 'namespaces',
  });
}

export function alreadyExists(rt: Pick<ResourceType, 'group' | 'plural'>, name: string): KubeApiError {
  return new KubeApiError(409, 'AlreadyExists', `${qualifiedResource(rt)} "${name}" already exists`, {
    name,
    group: rt.group || undefined,
    kind: rt.plural,
  });
}

export function conflict(
  rt: Pick<ResourceType, 'group' | 'plural'>,
  name: string,
  why?: string,
): KubeApiError {
  const reason =
    why ?? 'the object has been modified; please apply your changes to the latest version and try again';
  return new KubeApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(rt)} "${name}": ${reason}`,
    {
      name,
      group: rt.group || undefined,
      kind: rt.plural,
    },
  );
}

export function invalid(
  rt: Pick<ResourceType, 'group' | 'kind'>,
  name: string,
  causes: StatusCause[],
): KubeApiError {
  const qualifiedKind = rt.group ? `${rt.kind}.${rt.group}` : rt.kind;
  const described = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const list = described.length === 1 ? described[0] : `[${described.join(', ')}]`;
  return new KubeApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${list}`, {
    name,
    group: rt.group || undefined,
    kind: rt.kind,
    causes,
  });
}

export function badRequest(message: string): KubeApiError {
  return new KubeApiError(400, 'BadRequest', message);
}

export function unsupportedMediaType(accepted: string[]): KubeApiError {
  return new KubeApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function methodNotAllowed(): KubeApiError {
  return new KubeApiError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  );
}

export function gone(message: string): KubeApiError {
  return new KubeApiError(410, 'Expired', message);
}

export function unauthorized(): KubeApiError {
  return new KubeApiError(401, 'Unauthorized', 'Unauthorized');
}

export function pathNotFound(): KubeApiError {
  return new KubeApiError(404, 'NotFound', 'the server could not find the requested resource');
}
