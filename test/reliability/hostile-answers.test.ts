/**
 * Issue 20: oversized and slow management API answers end within ctl's deadline, with a clear
 * error and no memory blow-up. The transport (src/api/http.ts) is driven in-process against the
 * hostile server with a short deadline, so a body that drips one byte every 5 s ends in seconds:
 * a 1 MB header, a body dripping one byte every 5 s, a gzip bomb (128 MiB of zeros in ~130 KB),
 * and a body over the size limit.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpClient } from '../../src/api/http.js';
import { OperationError } from '../../src/errors.js';
import { type HostileMode, type HostileServer, startHostileServer } from './hostile-server.js';
import { figure } from './support.js';

const DEADLINE_MS = 3000;
/**
 * A hang guard, not a speed target (the machine may be busy): without its deadline the dripping
 * body would never end, and without its limits a 128 MiB or 10 MB answer would be read whole. The
 * time each took is printed as a figure.
 */
const HANG_GUARD_MS = 10 * DEADLINE_MS;
/** What one hostile answer may add to the process's memory (the 10 MB answer included). */
const MEMORY_LIMIT = 96 * 1024 * 1024;

const cases: { mode: HostileMode; message: RegExp; maxBodyBytes?: number }[] = [
  { mode: 'huge-header-1mb', message: /response headers .* larger than ctl reads/ },
  { mode: 'drip-body-5s', message: /no answer within 3 s/ },
  { mode: 'gzip-bomb', message: /the answer is compressed \(content-encoding gzip\)/ },
  { mode: 'huge-10mb', message: /larger than 1 MiB; ctl stopped reading it/, maxBodyBytes: 1024 * 1024 },
];

describe('hostile answers: oversized and slow, each within the deadline', () => {
  let server: HostileServer;
  before(async () => {
    server = await startHostileServer();
  });
  after(async () => {
    await server?.close();
  });

  for (const { mode, message, maxBodyBytes } of cases) {
    test(`${mode}: a clear error within ${DEADLINE_MS / 1000} s, no memory blow-up`, async () => {
      server.setMode(mode, mode);
      const client = new HttpClient({
        baseUrl: server.url,
        ca: server.caPem,
        timeouts: { totalMs: DEADLINE_MS, headersMs: DEADLINE_MS, bodyMs: 10_000 },
        retry: { maxAttempts: 1 },
        ...(maxBodyBytes ? { maxBodyBytes } : {}),
      });
      global.gc?.();
      const rssBefore = process.memoryUsage().rss;
      const started = Date.now();
      try {
        await assert.rejects(client.request({ method: 'GET', path: '/v1/bdbs' }), (error: unknown) => {
          assert.ok(error instanceof OperationError, `not an OperationError: ${String(error)}`);
          assert.match(error.message, message);
          assert.ok(error.hint, 'a hint says what to do');
          return true;
        });
      } finally {
        await client.close();
      }
      const elapsed = Date.now() - started;
      const grown = process.memoryUsage().rss - rssBefore;
      assert.ok(elapsed < HANG_GUARD_MS, `${mode} took ${elapsed} ms, deadline ${DEADLINE_MS} ms`);
      assert.ok(grown < MEMORY_LIMIT, `${mode} grew the process by ${Math.round(grown / 1024 / 1024)} MiB`);
      figure(
        `hostile answer ${mode}: ended in ${elapsed} ms (deadline ${DEADLINE_MS} ms), memory +${Math.max(0, Math.round(grown / 1024 / 1024))} MiB`,
      );
    });
  }
});
