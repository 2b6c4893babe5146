import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { badRequest, type KubeApiError } from './status.js';

/** Small request/response helpers shared by the emulator's routes. */

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

export function sendJson(
  response: ServerResponse,
  code: number,
  body: unknown,
  contentType = 'application/json',
): void {
  const text = JSON.stringify(body);
  sendJsonText(response, code, text, Buffer.byteLength(text), contentType);
}

/** A JSON answer whose text is made already (KubeStore.readText), `bytes` its size in UTF-8. */
export function sendJsonText(
  response: ServerResponse,
  code: number,
  text: string,
  bytes: number,
  contentType = 'application/json',
): void {
  response.writeHead(code, {
    'Content-Type': contentType,
    'Content-Length': bytes,
    'Cache-Control': 'no-cache, private',
  });
  response.end(text);
}

/**
 * A list whose items are JSON texts already (KubeStore.listTexts): the bytes `sendJson` would
 * send for `{...list, items}`, with the items joined instead of serialised again. `list` is the
 * list without its items (`items: []`, the last member, as the API server writes it); `bytes` is
 * the items' size in UTF-8. The answer is one string, as sendJson's: a 15 MB Buffer made here
 * would stay until a collection found it, and a process started meanwhile by this one (the
 * bench's next ctl) inherits such memory in its peak RSS (Linux counts it at exec).
 */
export function sendJoinedList(
  response: ServerResponse,
  list: Record<string, unknown> & { items: [] },
  items: readonly string[],
  bytes: number,
): void {
  const empty = JSON.stringify(list);
  // `..."items":[]}`: the items go between the brackets.
  const head = empty.slice(0, -2);
  const text = `${head}${items.join(',')}]}`;
  response.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(head) + bytes + Math.max(0, items.length - 1) + 2,
    'Cache-Control': 'no-cache, private',
  });
  response.end(text);
}

/** A binary body, such as the protobuf OpenAPI v2 document. */
export function sendBytes(
  response: ServerResponse,
  code: number,
  body: Uint8Array,
  contentType: string,
): void {
  response.writeHead(code, {
    'Content-Type': contentType,
    'Content-Length': body.byteLength,
    'Cache-Control': 'no-cache, private',
  });
  response.end(body);
}

export function sendStatus(response: ServerResponse, error: KubeApiError): void {
  sendJson(response, error.code, error.toStatus());
}

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function mediaType(request: IncomingMessage): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * The request body as a JSON value. JSON and YAML (apply patches) are parsed; protobuf is
 * decoded for the kinds helm sends that way (Secret, ConfigMap) and is `undefined` otherwise
 * (DeleteOptions, which the emulator may ignore).
 */
export async function decodeBody(body: Buffer, type: string): Promise<unknown> {
  if (body.length === 0) return undefined;
  if (type === PROTOBUF) {
    // Loaded on first use: only helm's typed clients send protobuf.
    const { decodeKubeProtobuf } = await import('./protobuf.js');
    return decodeKubeProtobuf(body).object;
  }
  const text = body.toString('utf8');
  if (type === 'application/apply-patch+yaml' || type === 'application/yaml') {
    // JSON is YAML, and what ctl and client-node apply is JSON: JSON.parse reads it in a fraction
    // of the YAML parser's time (a large CRD's schema: ~0.1 s of a test process's CPU per run).
    // Text that is not JSON is read as YAML, and fails as YAML.
    if (text.trimStart().startsWith('{')) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        // not JSON: read as YAML below
      }
    }
    try {
      return parseYaml(text);
    } catch (error) {
      throw badRequest(`error decoding YAML: ${(error as Error).message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
}

export function wantsTable(request: IncomingMessage): boolean {
  return /as=Table/.test(request.headers.accept ?? '');
}

/** The default field manager the real server derives from the User-Agent (`kubectl/v1.32...` -> kubectl). */
export function defaultFieldManager(request: IncomingMessage): string {
  const agent = request.headers['user-agent'] ?? 'unknown';
  return agent.split('/')[0]?.trim() || 'unknown';
}
