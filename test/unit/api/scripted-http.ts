import type { HttpClient, HttpRequest, HttpResponse } from '../../../src/api/http.js';

/**
 * An HttpClient stand-in that answers from a script, for server behaviours the emulator does
 * not play (a server that refuses the combined authorize form, 403 modules_upload_disabled).
 * Each answer is a function of the request, so tests state the server's rule, not its result.
 */
export function scriptedHttp(answer: (request: HttpRequest) => { status: number; body?: unknown }): {
  http: HttpClient;
  requests: HttpRequest[];
} {
  const requests: HttpRequest[] = [];
  const http = {
    baseUrl: 'https://scripted.invalid:9443',
    async request(request: HttpRequest): Promise<HttpResponse> {
      requests.push(request);
      const { status, body } = answer(request);
      return { status, headers: { 'content-type': 'application/json' }, body };
    },
    async close(): Promise<void> {},
  };
  return { http: http as unknown as HttpClient, requests };
}

/** A syntactically valid unsigned JWT living `ttl` seconds. */
export function fakeJwt(ttl: number): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const iat = 1_700_000_000;
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ iat, exp: iat + ttl, uid: '1' })}.c2ln`;
}

/** The credentials a request carries in its Basic header, if any. */
export function basicOf(request: HttpRequest): { username: string; password: string } | undefined {
  const header = request.headers?.authorization;
  if (!header?.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
