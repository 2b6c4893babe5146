import { OperationError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import { checkActionShape, checkModuleUploadAnswer, checkStartedAction } from './action-shape.js';
import {
  apiError,
  isModulesUploadDisabled,
  isPasswordExpired,
  MalformedAnswerError,
  modulesUploadDisabledError,
  NOT_THE_API_HINT,
  passwordExpiredError,
} from './api-errors.js';
import { checkBdbShape, checkUniqueBdbUids } from './bdb-shape.js';
import type { HttpClient, HttpRequest, HttpResponse } from './http.js';
import { checkModuleShape, checkUniqueModuleUids } from './module-shape.js';
import { checkNodesShape } from './node-shape.js';
import { type OwnRole, readOwnRole } from './own-role.js';
import { checkShardsShape } from './shard-shape.js';
import type { TokenSource } from './token-source.js';
import type { ApiAction, ApiBdb, ApiCluster, ApiModule, ApiNode, ApiShard } from './types.js';

/**
 * Authenticated calls to the management API: each presents `Authorization: JWT <token>` from
 * the token source (the scheme the REST reference documents, requests/users/refresh_jwt.md;
 * disable-basic-authentication.md's "bearer token" wording names no other scheme); a 401 gets one new token and one retry (the server did not act on it).
 */
export class ApiClient {
  readonly http: HttpClient;
  readonly tokens: TokenSource;
  readonly #username: string;
  /** Where the username came from (`Secret rec`, `CTL_USERNAME`, ...), for the plan's fixes. */
  readonly #usernameFrom: string | undefined;

  constructor(http: HttpClient, tokens: TokenSource, username: string, usernameFrom?: string) {
    this.http = http;
    this.tokens = tokens;
    this.#username = username;
    this.#usernameFrom = usernameFrom;
  }

  /** The signed-in user's management roles, as far as the API tells them (./own-role.ts). */
  async readOwnRole(): Promise<OwnRole> {
    const role = await readOwnRole(this, this.#username);
    return this.#usernameFrom === undefined ? role : { ...role, credentialsFrom: this.#usernameFrom };
  }

  /** Any call, any answer: the caller judges the status. */
  async call(request: HttpRequest): Promise<HttpResponse> {
    let token = await this.tokens.token();
    let response = await this.http.request(withToken(request, token.accessToken));
    if (response.status === 401 && !isPasswordExpired(response)) {
      token = await this.tokens.renewAfterRejection(token);
      response = await this.http.request(withToken(request, token.accessToken));
    }
    return response;
  }

  /** A call whose answer must be 2xx; its body is returned as T. */
  async json<T>(request: HttpRequest): Promise<T> {
    return this.#body<T>(request, await this.call(request));
  }

  #body<T>(request: HttpRequest, response: HttpResponse): T {
    if (response.status >= 200 && response.status < 300) return response.body as T;
    if (isPasswordExpired(response)) throw passwordExpiredError(this.#username);
    throw apiError(`${request.method} ${request.path}`, response);
  }

  /** GET /v1/modules, each module's fields checked (./module-shape.ts). */
  async listModules(): Promise<ApiModule[]> {
    const request: HttpRequest = { method: 'GET', path: '/v1/modules' };
    const modules = await this.list<ApiModule>(request, { module_name: 'string' });
    modules.forEach((module, index) =>
      checkModuleShape(module, `${request.method} ${request.path}: item ${index}`),
    );
    checkUniqueModuleUids(modules, `${request.method} ${request.path}`);
    return modules;
  }

  /**
   * GET /v1/bdbs; with `fields`, only those fields of each database (`?fields=uid,name,...`:
   * "Comma-separated list of field names to return", documented for GET /v1/bdbs from RS 7.4 on,
   * redis/docs content/operate/rs/7.4/references/rest-api/requests/bdbs/_index.md). At 10,000
   * databases the answer is a few percent of the whole objects. A cluster that ignores the query
   * answers every field (more than asked, read the same); one that refuses it (400) is asked
   * again without it. Each database's fields are checked (./bdb-shape.ts), and each uid must be
   * listed once.
   */
  async listBdbs(fields?: readonly string[]): Promise<ApiBdb[]> {
    const check = { uid: 'number', name: 'string' } as const;
    const shaped = (request: HttpRequest, bdbs: ApiBdb[]): ApiBdb[] => {
      bdbs.forEach((bdb, index) => checkBdbShape(bdb, `${request.method} ${request.path}: item ${index}`));
      checkUniqueBdbUids(bdbs, `${request.method} ${request.path}`);
      return bdbs;
    };
    if (fields && fields.length > 0) {
      const projected: HttpRequest = { method: 'GET', path: `/v1/bdbs?fields=${fields.join(',')}` };
      const response = await this.call(projected);
      if (response.status !== 400)
        return shaped(projected, this.#listOf(projected, this.#body<unknown>(projected, response), check));
    }
    const whole: HttpRequest = { method: 'GET', path: '/v1/bdbs' };
    return shaped(whole, await this.list(whole, check));
  }

  /**
   * A call answering a list: every element must be an object with the named fields, so a
   * proxy's HTML page or a half-broken answer is an error here, not a crash (or an empty,
   * healthy-looking cluster) further on.
   */
  async list<T>(request: HttpRequest, fields: Record<string, 'string' | 'number'>): Promise<T[]> {
    return this.#listOf(request, await this.json<unknown>(request), fields);
  }

  #listOf<T>(request: HttpRequest, body: unknown, fields: Record<string, 'string' | 'number'>): T[] {
    const bad = (why: string): OperationError =>
      new MalformedAnswerError(`${request.method} ${request.path}: the management API answered ${why}`, {
        hint: NOT_THE_API_HINT,
      });
    if (!Array.isArray(body)) throw bad(`${describeValue(body)} instead of a list`);
    body.forEach((item: unknown, index) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item))
        throw bad(`a list whose item ${index} is ${describeValue(item)}`);
      for (const [field, type] of Object.entries(fields)) {
        if (typeof (item as Record<string, unknown>)[field] !== type)
          throw bad(`a list whose item ${index} has no ${type} ${field}`);
      }
    });
    return body as T[];
  }

  async getBdb(uid: number): Promise<ApiBdb> {
    const request: HttpRequest = { method: 'GET', path: `/v1/bdbs/${uid}` };
    const bdb = await this.json<unknown>(request);
    if (bdb === null || typeof bdb !== 'object' || Array.isArray(bdb))
      throw new MalformedAnswerError(
        `GET ${request.path}: the management API answered ${describeValue(bdb)} instead of a database`,
        {
          hint: NOT_THE_API_HINT,
        },
      );
    checkBdbShape(bdb as Record<string, unknown>, `GET ${request.path}`);
    return bdb as ApiBdb;
  }

  /**
   * POST /v1/bdbs/<uid>/upgrade. `versionKey` follows the cluster's dialect: `redis_version`
   * on real clusters, `engine_version` in the engine dialect. Not retried after a broken
   * connection: the caller re-reads the bdb before trying again.
   */
  async upgradeBdb(
    uid: number,
    version: string,
    versionKey: 'redis_version' | 'engine_version',
    extra: Record<string, unknown> = {},
  ): Promise<ApiBdb & { action_uid?: string }> {
    const request: HttpRequest = {
      method: 'POST',
      path: `/v1/bdbs/${uid}/upgrade`,
      json: { ...extra, [versionKey]: version },
    };
    const answer = await this.json<unknown>(request);
    // Its action_uid, when given, is what the caller waits for (./action-shape.ts).
    if (answer !== null && typeof answer === 'object' && !Array.isArray(answer))
      checkStartedAction(answer as Record<string, unknown>, `${request.method} ${request.path}`, false);
    return answer as ApiBdb & { action_uid?: string };
  }

  /** POST /v2/modules: multipart field `module`; asynchronous, returns the module and action_uid. */
  async uploadModule(fileName: string, content: Uint8Array): Promise<ApiModule & { action_uid: string }> {
    const { FormData } = await import('./undici.js');
    const form = new FormData();
    form.append('module', new Blob([content]), fileName);
    const request: HttpRequest = { method: 'POST', path: '/v2/modules', form };
    const response = await this.call(request);
    if (response.status >= 200 && response.status < 300) {
      // The module and the action_uid the run waits for (./action-shape.ts).
      checkModuleUploadAnswer(response.body, `POST ${request.path} (${oneLine(fileName)})`);
      return response.body as ApiModule & { action_uid: string };
    }
    if (isModulesUploadDisabled(response)) throw modulesUploadDisabledError(fileName);
    if (isPasswordExpired(response)) throw passwordExpiredError(this.#username);
    throw apiError(`POST ${request.path}`, response);
  }

  /** GET /v1/actions/<uid>, the action's fields checked (./action-shape.ts). */
  async getAction(uid: string): Promise<ApiAction> {
    const request: HttpRequest = { method: 'GET', path: `/v1/actions/${encodeURIComponent(uid)}` };
    const action = await this.json<unknown>(request);
    checkActionShape(action, uid, `${request.method} ${request.path}`);
    return action as ApiAction;
  }

  /** GET /v1/nodes, each node's fields checked and each uid listed once (./node-shape.ts). */
  async listNodes(): Promise<ApiNode[]> {
    const request: HttpRequest = { method: 'GET', path: '/v1/nodes' };
    // A list of objects first (an HTML page is "text, not JSON"), then each node's fields.
    const nodes = this.#listOf<ApiNode>(request, await this.json<unknown>(request), {});
    checkNodesShape(nodes, `${request.method} ${request.path}`);
    return nodes;
  }

  getCluster(): Promise<ApiCluster> {
    return this.json({ method: 'GET', path: '/v1/cluster' });
  }

  /**
   * GET /v1/shards: every shard of every database, where it is and its role (one request), each
   * shard's fields checked (./shard-shape.ts).
   */
  async listShards(): Promise<ApiShard[]> {
    const request: HttpRequest = { method: 'GET', path: '/v1/shards' };
    const shards = await this.json<unknown>(request);
    checkShardsShape(shards, `${request.method} ${request.path}`);
    return shards as ApiShard[];
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return value.trim() === '' ? 'nothing' : 'text, not JSON';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function withToken(request: HttpRequest, token: string): HttpRequest {
  return { ...request, headers: { ...request.headers, authorization: `JWT ${token}` } };
}
