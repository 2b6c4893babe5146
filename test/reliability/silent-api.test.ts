/**
 * Issue 28, item 3 (docs/reliability.md guarantee 12): deadlines on every wait. A Kubernetes API
 * server that accepts connections and never answers a byte ends `upgrade plan`, `upgrade run`
 * and `auth token` (its URL found through Kubernetes) with exit 1 and a hint, within the
 * connect and response deadlines (src/kube/deadlines.ts: 10 s + 30 s); and SIGTERM stops a run
 * stuck there within a few seconds (src/run/signals.ts STOP_GRACE_MS). Before, all hung for ever.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { KUBE_DEADLINES } from '../../src/kube/deadlines.js';
import { STOP_GRACE_MS } from '../../src/run/signals.js';
import { tempDir } from '../helpers/temp.js';
import { delay, figure, spawnCtl, STACK_TRACE, TARGET } from './support.js';

/** The stated bound: both deadlines, plus the start of node and a loaded machine's slack. */
const BOUND_MS = KUBE_DEADLINES.connectMs + KUBE_DEADLINES.responseMs + 15_000;

async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  // Accepts, reads, never writes: a stalled API server or a half-open load balancer.
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function silentKubeconfig(dir: string, port: number): string {
  const file = path.join(dir, 'kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: silent\n  cluster:\n    server: https://127.0.0.1:${port}\n    insecure-skip-tls-verify: true`,
      'users:',
      '- name: silent\n  user:\n    token: not-a-real-token',
      'contexts:',
      '- name: silent\n  context:\n    cluster: silent\n    user: silent\n    namespace: redis',
      'current-context: silent',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return file;
}

describe('a Kubernetes API that never answers', () => {
  test('plan, run and auth token end with exit 1 and a hint within the stated time; SIGTERM stops a run within its grace', async () => {
    const server = await startSilentServer();
    const dir = tempDir('ctl-silent-');
    try {
      const env = {
        HOME: dir,
        XDG_STATE_HOME: path.join(dir, 'state'),
        KUBECONFIG: silentKubeconfig(dir, server.port),
        CTL_USERNAME: 'admin@example.com',
        CTL_PASSWORD: 'a-password-for-the-test',
      };
      const options = { cwd: dir, env, timeoutMs: BOUND_MS + 30_000 };
      const cases: [string, string[]][] = [
        ['upgrade plan', ['upgrade', 'plan', '--to', TARGET]],
        ['upgrade run', ['upgrade', 'run', '--to', TARGET, '--yes']],
        ['auth token', ['auth', 'token']],
      ];
      const stopped = spawnCtl(['upgrade', 'run', '--to', TARGET, '--yes'], options);
      const results = await Promise.all([
        ...cases.map(async ([name, args]) => ({ name, result: await spawnCtl(args, options).result })),
        (async () => {
          await delay(4_000);
          const sent = Date.now();
          stopped.child.kill('SIGTERM');
          const result = await stopped.result;
          return { name: 'upgrade run + SIGTERM', result: { ...result, durationMs: Date.now() - sent } };
        })(),
      ]);
      figure(
        `silent Kubernetes API: ${results.map(({ name, result }) => `${name} exit ${result.code} after ${(result.durationMs / 1000).toFixed(1)} s`).join(', ')} (bound ${BOUND_MS / 1000} s; SIGTERM grace ${STOP_GRACE_MS / 1000} s)`,
      );
      for (const { name, result } of results.slice(0, 3)) {
        assert.equal(result.code, 1, `${name}: ${result.stderr}`);
        assert.ok(result.durationMs < BOUND_MS, `${name} took ${result.durationMs} ms`);
        assert.match(
          result.stderr,
          /Kubernetes API server https:\/\/127\.0\.0\.1:\d+ (gave no answer|could not be reached) within/,
          name,
        );
        assert.match(result.stderr, /hint: .*kubectl/, name);
        assert.doesNotMatch(result.stderr, STACK_TRACE, name);
      }
      const sigterm = results[3]!.result;
      // Before its handler is installed Node's default ends ctl at once (signal SIGTERM).
      assert.ok(
        sigterm.code === 143 || sigterm.signal === 'SIGTERM',
        `exit ${sigterm.code}: ${sigterm.stderr}`,
      );
      // A hang guard: without the grace the run waited for the API's deadlines (30 s and more).
      assert.ok(
        sigterm.durationMs < STOP_GRACE_MS + 10_000,
        `SIGTERM took ${sigterm.durationMs} ms to stop the run`,
      );
    } finally {
      await server.close();
    }
  });
});
