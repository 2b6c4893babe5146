/**
 * An exec credential plugin nobody waits for any more is stopped at once (src/kube/exec-plugin.ts
 * runBounded, src/kube/credential-waiter.ts): the request it was started for was aborted (Ctrl-C,
 * SIGTERM, a library caller's signal). It ran on to its 60 s deadline (or ctl's exit), and kept a
 * program that used kubeRequest as a library alive that long. The plugin here records its pid and
 * sleeps; the API server is never reached.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKubeClients, loadKubeConfig } from '../../../src/kube/client.js';
import { askedFor } from '../../../src/kube/credential-waiter.js';
import { runBounded } from '../../../src/kube/exec-plugin.js';
import { kubeRequest } from '../../../src/kube/request.js';
import { watchCollection } from '../../../src/kube/watch.js';
import { tempDir } from '../../helpers/temp.js';
import { listenTls } from '../../helpers/tls-server.js';
import { alive } from '../../helpers/processes.js';

const dir = tempDir('ctl-exec-abandoned-');

/** Waits up to `ms` for `done`; whether it came. */
async function within(ms: number, done: () => boolean): Promise<boolean> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

/** A kubeconfig whose user's plugin writes its pid to `<name>.pid`, then sleeps for 30 s. */
function sleepingPlugin(name: string): { kubeconfig: string; pidFile: string } {
  const pidFile = join(dir, `${name}.pid`);
  const plugin = join(dir, `${name}-plugin`);
  // `exec`: the sleep is the plugin's own process, the pid the one ctl started.
  writeFileSync(
    plugin,
    `#!/bin/sh\necho $$ > "${pidFile}.partial"\nmv "${pidFile}.partial" "${pidFile}"\nexec sleep 30\n`,
    {
      mode: 0o700,
    },
  );
  const kubeconfig = join(dir, `${name}-kubeconfig`);
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:9", insecure-skip-tls-verify: true}}]',
      `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: "${plugin}", interactiveMode: Never}}}]`,
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      '',
    ].join('\n'),
  );
  return { kubeconfig, pidFile };
}

async function startedPid(pidFile: string): Promise<number> {
  assert.ok(await within(10_000, () => existsSync(pidFile)), 'the plugin never started');
  return Number(readFileSync(pidFile, 'utf8').trim());
}

describe('a credential plugin nobody waits for', () => {
  it('a request aborted while its plugin runs: the plugin is killed at once, not at its 60 s deadline', async () => {
    const { kubeconfig, pidFile } = sleepingPlugin('aborted');
    const { config } = await loadKubeConfig({ kubeconfig, env: {} });
    const controller = new AbortController();
    const request = kubeRequest(config, {
      method: 'GET',
      path: '/api/v1/namespaces',
      signal: controller.signal,
    });
    const outcome = request.then(
      () => 'answered',
      (error: unknown) => (error as Error).name,
    );
    const pid = await startedPid(pidFile);
    assert.ok(alive(pid), 'the plugin runs while its request waits');
    controller.abort('SIGINT');
    assert.equal(await outcome, 'AbortError');
    // Before: alive for the 30 s it sleeps (its 60 s deadline had not come). 5 s: a hang guard.
    assert.ok(
      await within(5_000, () => !alive(pid)),
      `plugin ${pid} still runs after its request was aborted`,
    );
  });

  it('a program using kubeRequest as a library ends by itself once its request is aborted', async () => {
    const { kubeconfig, pidFile } = sleepingPlugin('library');
    const src = (module: string) => fileURLToPath(new URL(`../../../src/kube/${module}`, import.meta.url));
    // No process.exit: the program ends when nothing keeps its event loop alive.
    const program = [
      `import { loadKubeConfig } from ${JSON.stringify(src('client.js'))};`,
      `import { kubeRequest } from ${JSON.stringify(src('request.js'))};`,
      `import { existsSync } from 'node:fs';`,
      `const { config } = await loadKubeConfig({ kubeconfig: ${JSON.stringify(kubeconfig)}, env: {} });`,
      'const controller = new AbortController();',
      `const started = setInterval(() => { if (existsSync(${JSON.stringify(pidFile)})) { clearInterval(started); controller.abort(); } }, 20);`,
      `await kubeRequest(config, { method: 'GET', path: '/api/v1/namespaces', signal: controller.signal }).catch((error) => console.log(error.name));`,
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', program], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const pid = await startedPid(pidFile);
    const started = performance.now();
    // Before: the program lived on until the plugin's 30 s sleep (or its 60 s deadline) ended.
    const timeout = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await exited;
    clearTimeout(timeout);
    const elapsed = performance.now() - started;
    assert.equal(code, 0, `the program was killed after ${Math.round(elapsed)} ms, still alive: ${output}`);
    assert.equal(output.trim(), 'AbortError');
    assert.ok(elapsed < 10_000, `the program ended ${Math.round(elapsed)} ms after its plugin started`);
    assert.equal(alive(pid), false, `plugin ${pid} outlived the program`);
  });

  it('runBounded: the waiter aborted, the plugin is killed and client-node hears why', async () => {
    const waiter = new AbortController();
    const child = askedFor(waiter.signal, () => runBounded('/bin/sh', ['-c', 'exec sleep 30'], {}));
    const error = new Promise<Error>((resolve) => child.once('error', resolve));
    const closed = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('close', (_, signal) => resolve(signal)),
    );
    // Started outside any waiter, a plugin is not stopped by another's abort.
    const other = runBounded('/bin/sh', ['-c', 'exec sleep 30'], {});
    const otherClosed = new Promise<void>((resolve) => other.once('close', () => resolve()));
    other.once('error', () => undefined);
    waiter.abort();
    assert.match(
      (await error).message,
      /credential plugin \/bin\/sh was stopped: the request it was started for no longer waits for it/,
    );
    assert.equal(await closed, 'SIGKILL');
    assert.ok(other.pid !== undefined && alive(other.pid), 'a plugin of another request was stopped');
    other.kill('SIGKILL');
    await otherClosed;
  });

  describe('a watch', () => {
    // An API server that answers every LIST with an empty list: the watch after it is where the
    // plugin is started again (its credential has no expiry, so client-node asks for a new one).
    let server: Server;
    let url: string;
    const requests: string[] = [];
    before(async () => {
      ({ server, url } = await listenTls((request, response) => {
        requests.push(request.url ?? '');
        response.setHeader('Content-Type', 'application/json');
        response.end(
          '{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]}',
        );
      }));
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    /**
     * A kubeconfig whose plugin hands over a token on its first run (the LIST's), and on every
     * later one (the watch's) appends its pid to `<name>.pids` and sleeps for 30 s.
     */
    function listThenSleep(name: string): { kubeconfig: string; pids: () => number[] } {
      const pidFile = join(dir, `${name}.pids`);
      const first = join(dir, `${name}.first`);
      const plugin = join(dir, `${name}-plugin`);
      const credential = JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: { token: 'listed' },
      });
      writeFileSync(
        plugin,
        [
          '#!/bin/sh',
          `if [ ! -e "${first}" ]; then : > "${first}"; printf '%s' '${credential}'; exit 0; fi`,
          `echo $$ >> "${pidFile}"`,
          'exec sleep 30',
          '',
        ].join('\n'),
        { mode: 0o700 },
      );
      const kubeconfig = join(dir, `${name}-kubeconfig`);
      writeFileSync(
        kubeconfig,
        [
          'apiVersion: v1',
          'kind: Config',
          `clusters: [{name: c, cluster: {server: "${url}", insecure-skip-tls-verify: true}}]`,
          `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: "${plugin}", interactiveMode: Never}}}]`,
          'contexts: [{name: x, context: {cluster: c, user: u}}]',
          'current-context: x',
          '',
        ].join('\n'),
      );
      const pids = (): number[] =>
        existsSync(pidFile)
          ? readFileSync(pidFile, 'utf8')
              .split('\n')
              .filter((line) => line !== '')
              .map(Number)
          : [];
      return { kubeconfig, pids };
    }

    it("its caller gave up while the watch's plugin runs: the plugin is killed at once", async () => {
      const { kubeconfig, pids } = listThenSleep('watch-aborted');
      const kube = await createKubeClients(await loadKubeConfig({ kubeconfig, env: {} }), () => {});
      const controller = new AbortController();
      const synced: number[] = [];
      const watching = watchCollection({
        kube,
        path: '/api/v1/namespaces',
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'SYNC') synced.push(event.objects.length);
        },
      });
      assert.ok(await within(10_000, () => pids().length > 0), "the watch's plugin never started");
      assert.deepEqual(synced, [0], 'the LIST came first, with the first credential');
      const [pid] = pids();
      assert.ok(pid !== undefined && alive(pid), 'the plugin runs while its watch waits');
      controller.abort('SIGINT');
      await watching;
      // Before: alive for the 30 s it sleeps (its 60 s deadline had not come). 5 s: a hang guard.
      assert.ok(
        await within(5_000, () => !alive(pid)),
        `plugin ${pid} still runs after its watch was given up`,
      );
      assert.ok(
        requests.every((path) => !path.includes('watch=true')),
        'no watch request was sent without its credential',
      );
    });

    it('a watch whose credential is past its deadline: that plugin is killed, the wait goes on', async () => {
      const { kubeconfig, pids } = listThenSleep('watch-deadline');
      const kube = await createKubeClients(await loadKubeConfig({ kubeconfig, env: {} }), () => {});
      const controller = new AbortController();
      const warnings: string[] = [];
      const watching = watchCollection({
        kube,
        path: '/api/v1/namespaces',
        signal: controller.signal,
        onEvent: () => undefined,
        onWarning: (message) => warnings.push(String(message)),
        deadlines: { credentialMs: 300 },
      });
      try {
        assert.ok(await within(10_000, () => pids().length > 0), "the watch's plugin never started");
        const [pid] = pids();
        assert.ok(pid !== undefined);
        // Before: the watch stopped waiting at 300 ms, its plugin ran on for its 30 s.
        assert.ok(
          await within(5_000, () => !alive(pid)),
          `plugin ${pid} still runs after its watch stopped waiting for it`,
        );
      } finally {
        controller.abort('SIGINT');
        await watching;
      }
      for (const pid of pids()) {
        assert.ok(await within(5_000, () => !alive(pid)), `plugin ${pid} outlived the wait`);
      }
      assert.match(
        warnings[0] ?? '',
        /credential \(its exec plugin or auth provider\) was not ready within 0\.3 s/,
      );
    });
  });
});
