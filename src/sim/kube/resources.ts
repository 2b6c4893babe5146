import type { IncomingMessage, ServerResponse } from 'node:http';
import { servePodLog } from './pod-logs.js';
import {
  decodeBody,
  defaultFieldManager,
  mediaType,
  PROTOBUF,
  readBody,
  sendJoinedList,
  sendJson,
  sendJsonText,
  wantsTable,
} from './http.js';
import { CRUD_VERBS, groupVersion, type ResourceRegistry, type ResourceType } from './registry.js';
import { badRequest, type KubeApiError, methodNotAllowed, unsupportedMediaType } from './status.js';
import {
  type DeleteOptions,
  FIELD_VALIDATIONS,
  type FieldValidation,
  type KubeStore,
  PATCH_CONTENT_TYPES,
  type PropagationPolicy,
} from './store.js';
import { buildTable } from './table.js';
import { isRecord, type KubeObject } from './types.js';
import type { WatchHub } from './watch.js';

/** A request for a resource, parsed from `/api/v1/...` or `/apis/<g>/<v>/...`. */
export interface ResourceRequest {
  resource: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** The old `/watch/` path prefix. */
  watchPath: boolean;
}

/** Parses the part after the group version; undefined when it names no served resource. */
export function parseResourcePath(registry: ResourceRegistry, pathname: string): ResourceRequest | undefined {
  const segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    group = '';
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else {
    return undefined;
  }
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  const namespaceSubresource =
    rest.length === 3 && rest[0] === 'namespaces' && ['status', 'finalize'].includes(rest[2]!);
  if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSubresource) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource, ...extra] = rest;
  if (!plural || extra.length > 0) return undefined;
  const resource = registry.find(group, version, plural);
  if (!resource) return undefined;
  if (namespace !== undefined && !resource.namespaced) return undefined;
  if (subresource && !resource.subresources.includes(subresource)) return undefined;
  return { resource, namespace, name, subresource, watchPath };
}

export interface AccessDenial {
  verb?: string;
  group?: string;
  resource?: string;
  namespace?: string;
  name?: string;
}

/** A request body as the emulator received it, before any decoding. */
export interface ReceivedBody {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
}

export interface ResourceHandlerContext {
  store: KubeStore;
  watches: WatchHub;
  /** SelfSubjectAccessReviews matching one of these are answered allowed: false. */
  accessDenials: AccessDenial[];
  /** Sees every request body read here, as received (KubeServerOptions.onRequestBody). */
  onRequestBody?: ((received: ReceivedBody) => void) | undefined;
  /** The minor the server reports at /version now: built-in tables print that minor's columns. */
  serverMinor?: (() => number) | undefined;
}

const DRY_RUN_VALUES = new Set(['All']);

function flag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  return value === 'true' || value === '1';
}

/** `fieldValidation`, whose absence means Warn (the API server's default since 1.27). */
function fieldValidation(query: URLSearchParams): FieldValidation {
  const value = query.get('fieldValidation') ?? 'Warn';
  if (!(FIELD_VALIDATIONS as readonly string[]).includes(value)) {
    throw badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict", not "${value}"`);
  }
  return value as FieldValidation;
}

/** Warnings of a write as `Warning` headers (code 299, as kube-apiserver sends them). */
function sendWarnings(response: ServerResponse, warnings: string[]): void {
  if (warnings.length > 0)
    response.setHeader(
      'Warning',
      warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
}

function dryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  for (const value of values)
    if (!DRY_RUN_VALUES.has(value)) throw badRequest(`Invalid dry run value: ${value}`);
  return values.length > 0;
}

function table(
  context: ResourceHandlerContext,
  rt: ResourceType,
  objects: KubeObject[],
  query: URLSearchParams,
  resourceVersion: string,
): unknown {
  const result = buildTable(
    objects,
    rt.builtin ? undefined : (rt.printerColumns ?? []),
    rt.kind,
    new Date(),
    context.serverMinor?.(),
  );
  result.metadata = { resourceVersion };
  const include = query.get('includeObject');
  result.rows.forEach((row, index) => {
    if (include === 'None') row.object = undefined;
    else if (include === 'Object') row.object = objects[index];
  });
  return result;
}

export async function handleResource(
  context: ResourceHandlerContext,
  parsed: ResourceRequest,
  request: IncomingMessage,
  response: ServerResponse,
  query: URLSearchParams,
): Promise<void> {
  const { store } = context;
  const rt = parsed.resource;
  const method = request.method ?? 'GET';
  const { namespace, name, subresource } = parsed;

  if (subresource === 'log') {
    servePodLog(store.podLogs, store.read(rt, namespace, name ?? ''), query, request, response);
    return;
  }
  if (subresource === 'portforward') throw badRequest('Upgrade request required');

  if (method === 'GET' && (!name || parsed.watchPath)) {
    if (parsed.watchPath || flag(query, 'watch')) {
      const asTable = wantsTable(request);
      context.watches.serve(
        {
          resource: rt,
          namespace,
          labelSelector: query.get('labelSelector') ?? undefined,
          fieldSelector: name ? `metadata.name=${name}` : (query.get('fieldSelector') ?? undefined),
          resourceVersion: query.get('resourceVersion') ?? undefined,
          sendInitialEvents: flag(query, 'sendInitialEvents'),
          allowWatchBookmarks: flag(query, 'allowWatchBookmarks'),
          timeoutSeconds: query.has('timeoutSeconds') ? Number(query.get('timeoutSeconds')) : undefined,
          render: asTable
            ? (object) => table(context, rt, [object], query, object.metadata.resourceVersion ?? '')
            : undefined,
        },
        response,
      );
      return;
    }
    const limit = query.has('limit') ? Number(query.get('limit')) : undefined;
    const selection = {
      namespace,
      labelSelector: query.get('labelSelector') ?? undefined,
      fieldSelector: query.get('fieldSelector') ?? undefined,
      limit,
      continue: query.get('continue') ?? undefined,
    };
    if (wantsTable(request)) {
      const result = store.list(rt, selection);
      const body = table(context, rt, result.items, query, result.resourceVersion) as Record<string, unknown>;
      if (result.continue) body.metadata = { ...(body.metadata as object), continue: result.continue };
      sendJson(response, 200, body);
      return;
    }
    const result = store.listTexts(rt, selection);
    const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion };
    if (result.continue) metadata.continue = result.continue;
    if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
    sendJoinedList(
      response,
      { kind: rt.listKind, apiVersion: groupVersion(rt), metadata, items: [] },
      result.texts,
      result.bytes,
    );
    return;
  }

  if (method === 'GET' && name) {
    if (!wantsTable(request)) {
      const { text, bytes } = store.readText(rt, namespace, name);
      sendJsonText(response, 200, text, bytes);
      return;
    }
    const object = store.read(rt, namespace, name);
    sendJson(response, 200, table(context, rt, [object], query, object.metadata.resourceVersion ?? ''));
    return;
  }

  const type = mediaType(request);
  const raw = await readBody(request);
  if (raw.length > 0) {
    context.onRequestBody?.({ method, path: request.url ?? '', contentType: type, body: raw });
  }
  const fieldManager = query.get('fieldManager') ?? defaultFieldManager(request);
  const warnings: string[] = [];
  const validation = { fieldValidation: fieldValidation(query), warnings };

  if (method === 'POST' && !name) {
    const body = await decodeBody(raw, type);
    if (!isRecord(body)) throw unsupportedOrBad(type);
    if (rt.kind === 'SelfSubjectAccessReview') {
      sendJson(response, 201, reviewAccess(body, context.accessDenials));
      return;
    }
    if (rt.kind === 'SelfSubjectRulesReview') {
      sendJson(response, 201, reviewRules(body, store, context.accessDenials));
      return;
    }
    const created = store.create(rt, body as KubeObject, {
      namespace,
      dryRun: dryRun(query),
      fieldManager,
      ...validation,
    });
    sendWarnings(response, warnings);
    sendJson(response, 201, created);
    return;
  }

  if (method === 'PUT' && name) {
    const body = await decodeBody(raw, type);
    if (!isRecord(body)) throw unsupportedOrBad(type);
    const object = body as KubeObject;
    if (!isRecord(object.metadata)) object.metadata = {};
    if (object.metadata.name && object.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    object.metadata.name = name;
    const updated = store.update(rt, object, {
      namespace,
      subresource,
      dryRun: dryRun(query),
      fieldManager,
      ...validation,
    });
    sendWarnings(response, warnings);
    sendJson(response, 200, updated);
    return;
  }

  if (method === 'PATCH' && name) {
    const patchType = PATCH_CONTENT_TYPES[type];
    if (!patchType) {
      throw unsupportedMediaType([
        'application/json-patch+json',
        'application/merge-patch+json',
        ...(rt.builtin ? ['application/strategic-merge-patch+json'] : []),
        'application/apply-patch+yaml',
      ]);
    }
    const body = await decodeBody(raw, type);
    const { object, created } = store.patch(rt, namespace, name, patchType, body, {
      subresource,
      dryRun: dryRun(query),
      fieldManager: query.get('fieldManager') ?? (patchType === 'apply' ? undefined : fieldManager),
      force: flag(query, 'force'),
      ...validation,
    });
    sendWarnings(response, warnings);
    sendJson(response, created ? 201 : 200, object);
    return;
  }

  if (method === 'DELETE') {
    const options = deleteOptions(type === PROTOBUF ? undefined : await decodeBody(raw, type), query);
    if (!name) {
      const { items } = store.list(rt, {
        namespace,
        labelSelector: query.get('labelSelector') ?? undefined,
        fieldSelector: query.get('fieldSelector') ?? undefined,
      });
      for (const item of items) store.delete(rt, item.metadata.namespace, item.metadata.name ?? '', options);
      sendJson(response, 200, { kind: rt.listKind, apiVersion: groupVersion(rt), metadata: {}, items });
      return;
    }
    const { object, deleted } = store.delete(rt, namespace, name, options);
    if (deleted && rt.builtin) {
      sendJson(response, 200, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name, group: rt.group || undefined, kind: rt.plural, uid: object.metadata.uid },
      });
      return;
    }
    sendJson(response, 200, object);
    return;
  }

  throw methodNotAllowed();
}

function unsupportedOrBad(type: string): KubeApiError {
  if (type === PROTOBUF) return unsupportedMediaType(['application/json', 'application/yaml']);
  return badRequest('the request body must be a JSON object');
}

function deleteOptions(body: unknown, query: URLSearchParams): DeleteOptions {
  const options: DeleteOptions = {};
  const source = isRecord(body) ? body : {};
  const policy = query.get('propagationPolicy') ?? source.propagationPolicy;
  if (policy !== undefined && policy !== null) {
    if (!['Background', 'Foreground', 'Orphan'].includes(String(policy)))
      throw badRequest(`invalid propagationPolicy: ${String(policy)}`);
    options.propagationPolicy = String(policy) as PropagationPolicy;
  } else if (source.orphanDependents === true) {
    options.propagationPolicy = 'Orphan';
  }
  const dry = query.getAll('dryRun').length > 0 || (Array.isArray(source.dryRun) && source.dryRun.length > 0);
  if (dry) options.dryRun = true;
  if (isRecord(source.preconditions)) {
    options.preconditions = {
      uid: typeof source.preconditions.uid === 'string' ? source.preconditions.uid : undefined,
      resourceVersion:
        typeof source.preconditions.resourceVersion === 'string'
          ? source.preconditions.resourceVersion
          : undefined,
    };
  }
  return options;
}

function reviewAccess(body: Record<string, unknown>, denials: AccessDenial[]): unknown {
  const spec = isRecord(body.spec) ? body.spec : {};
  const attributes = isRecord(spec.resourceAttributes) ? spec.resourceAttributes : {};
  const denied = denials.some((d) =>
    (['verb', 'group', 'resource', 'namespace', 'name'] as const).every(
      (key) => d[key] === undefined || d[key] === (attributes[key] ?? ''),
    ),
  );
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec,
    status: denied ? { allowed: false, reason: 'denied by the simulated cluster' } : { allowed: true },
  };
}

/**
 * SelfSubjectRulesReview: what the user may do in `spec.namespace`, as RBAC rules, consistent
 * with reviewAccess. Without a denial that applies there, one rule allows everything. Otherwise
 * the rules list every served resource (and subresource) with the CRUD verbs not denied. A
 * namespace that does not exist holds no RoleBindings, so only cluster-wide grants apply there:
 * denials of cluster-wide access (namespace '') apply too, as they do to cluster-scoped
 * resources. A denial of one object by name cannot be written as rules: the verb is left out
 * for the whole resource and the answer is `incomplete`, as a real server says when an
 * authorizer cannot list all of its rules (rules may say less than is allowed, never more).
 */
function reviewRules(body: Record<string, unknown>, store: KubeStore, denials: AccessDenial[]): unknown {
  const spec = isRecord(body.spec) ? body.spec : {};
  const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
  if (namespace === '') throw badRequest('no namespace on request');
  const namespaceType = store.registry.find('', 'v1', 'namespaces');
  const exists = namespaceType !== undefined && store.get(namespaceType, undefined, namespace) !== undefined;
  const applies = (d: AccessDenial, namespaced: boolean): boolean =>
    namespaced
      ? d.namespace === undefined || d.namespace === namespace || (!exists && d.namespace === '')
      : d.namespace === undefined || d.namespace === '';
  const relevant = denials.filter((d) => applies(d, true) || applies(d, false));
  const status: Record<string, unknown> = {
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  };
  if (relevant.length > 0) {
    const rules: { verbs: string[]; apiGroups: string[]; resources: string[] }[] = [];
    for (const rt of store.registry.all()) {
      for (const resource of [rt.plural, ...rt.subresources.map((sub) => `${rt.plural}/${sub}`)]) {
        const verbs = CRUD_VERBS.filter(
          (verb) =>
            !relevant.some(
              (d) =>
                applies(d, rt.namespaced) &&
                (d.verb === undefined || d.verb === verb) &&
                (d.group === undefined || d.group === rt.group) &&
                (d.resource === undefined || d.resource === rt.plural),
            ),
        );
        if (verbs.length > 0) rules.push({ verbs, apiGroups: [rt.group], resources: [resource] });
      }
    }
    status.resourceRules = rules;
    status.incomplete = relevant.some((d) => d.name !== undefined);
  }
  return {
    kind: 'SelfSubjectRulesReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: { namespace },
    status,
  };
}

export function isResourcePath(pathname: string): boolean {
  return pathname.startsWith('/api/') || pathname.startsWith('/apis/');
}
