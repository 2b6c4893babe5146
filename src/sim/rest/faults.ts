import type { IncomingMessage, ServerResponse } from 'node:http';
import { globToRegExp } from '../audit.js';

/**
 * Deterministic fault injection for the emulators (SIMULATOR.md "faults"). A rule matches
 * "METHOD /path/glob", "/path/glob" (any method) or "*" (everything); `*` in a path spans
 * characters up to a query string. Without `times` or `rate` a rule fires on every match.
 */
export interface FaultRule {
  match: string;
  /** Answer with this status instead of handling the request (default 503 unless kind is given). */
  status?: number;
  /** Fire on the first N matching requests only. */
  times?: number;
  /** Fire with this probability per matching request, drawn from a PRNG seeded by `seed`. */
  rate?: number;
  /**
   * reset: drop the connection without an answer; delay: wait `delayMs`, then go on; echo:
   * answer `status` (default 400) with an error whose description quotes the request back, its
   * Authorization header and raw body included, as careless servers and proxies do (issue 28:
   * what ctl prints of such an answer must not show a secret in any form).
   */
  kind?: 'reset' | 'delay' | 'echo';
  delayMs?: number;
  seed?: number;
  /** Seconds for a Retry-After header on a status fault. */
  retryAfter?: number;
  /** Which emulator the rule belongs to when both read one scenario list; absent = any. */
  api?: 'rest' | 'kube';
}

export type FaultAction =
  | { kind: 'status'; status: number; retryAfter?: number; rule: FaultRule }
  | { kind: 'reset'; rule: FaultRule }
  | { kind: 'delay'; delayMs: number; status?: number; rule: FaultRule }
  | { kind: 'echo'; status: number; rule: FaultRule };

/** mulberry32: tiny, fast and good enough to make "20% of requests" reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface CompiledRule {
  rule: FaultRule;
  method: string | undefined;
  path: RegExp | undefined;
  random: () => number;
  fired: number;
}

export class FaultInjector {
  readonly #rules: CompiledRule[];

  constructor(rules: FaultRule[] = [], api?: 'rest' | 'kube') {
    this.#rules = rules
      .filter((rule) => api === undefined || rule.api === undefined || rule.api === api)
      .map((rule) => ({ rule, ...parseMatch(rule.match), random: seededRandom(rule.seed ?? 1), fired: 0 }));
  }

  /** How often each rule fired, in rule order (tests assert on it). */
  get firedCounts(): number[] {
    return this.#rules.map((r) => r.fired);
  }

  /** The first rule that fires for this request, if any. Each call counts as one request. */
  decide(method: string, path: string): FaultAction | undefined {
    const bare = path.split('?')[0] ?? path;
    for (const compiled of this.#rules) {
      if (compiled.method && compiled.method !== method.toUpperCase()) continue;
      if (compiled.path && !compiled.path.test(bare)) continue;
      const { rule } = compiled;
      if (rule.times !== undefined && compiled.fired >= rule.times) continue;
      // Draw even when a rule will not fire, so the sequence depends only on the request order.
      if (rule.rate !== undefined && compiled.random() >= rule.rate) continue;
      compiled.fired += 1;
      return toAction(rule);
    }
    return undefined;
  }
}

function parseMatch(match: string): { method: string | undefined; path: RegExp | undefined } {
  const trimmed = match.trim();
  if (trimmed === '*' || trimmed === '') return { method: undefined, path: undefined };
  const space = trimmed.indexOf(' ');
  if (space < 0) return { method: undefined, path: globToRegExp(trimmed) };
  const method = trimmed.slice(0, space).toUpperCase();
  const path = trimmed.slice(space + 1).trim();
  return { method: method === '*' ? undefined : method, path: path === '*' ? undefined : globToRegExp(path) };
}

function toAction(rule: FaultRule): FaultAction {
  if (rule.kind === 'reset') return { kind: 'reset', rule };
  if (rule.kind === 'delay')
    return { kind: 'delay', delayMs: rule.delayMs ?? 1000, status: rule.status, rule };
  if (rule.kind === 'echo') return { kind: 'echo', status: rule.status ?? 400, rule };
  return { kind: 'status', status: rule.status ?? 503, retryAfter: rule.retryAfter, rule };
}

/**
 * Applies a fault to a node:http(s) exchange. Returns the status answered (0 for a reset), or
 * undefined when the request should now be handled normally (after a delay).
 */
export async function applyHttpFault(
  action: FaultAction,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<number | undefined> {
  if (action.kind === 'reset') {
    req.socket.destroy();
    return 0;
  }
  if (action.kind === 'delay') {
    await new Promise((resolve) => setTimeout(resolve, action.delayMs));
    if (action.status === undefined) return undefined;
    return writeFaultStatus(res, action.status, undefined);
  }
  if (action.kind === 'echo') return writeEcho(req, res, action.status);
  return writeFaultStatus(res, action.status, action.retryAfter);
}

/** The request quoted back in the error's description (at most 64 KiB of its body). */
async function writeEcho(req: IncomingMessage, res: ServerResponse, status: number): Promise<number> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (size < 65_536) chunks.push(chunk);
    size += chunk.length;
  }
  const body = Buffer.concat(chunks).subarray(0, 65_536).toString('utf8');
  const authorization = req.headers.authorization ?? '(none)';
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      error_code: 'invalid_request',
      description: `Invalid request ${req.method ?? 'GET'} ${req.url ?? '/'} (Authorization: ${authorization}): ${body}`,
    }),
  );
  return status;
}

function writeFaultStatus(res: ServerResponse, status: number, retryAfter: number | undefined): number {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  res.writeHead(status, headers);
  res.end(JSON.stringify({ error_code: 'injected_fault', message: `injected fault: HTTP ${status}` }));
  return status;
}
