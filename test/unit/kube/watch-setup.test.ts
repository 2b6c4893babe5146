/**
 * A wait whose list or watch request could not be built (src/kube/watch-setup-errors.ts): the
 * kubeconfig's exec credential plugin failed, so no request left ctl. The first is said once as
 * a warning and retried with the backoff; a request that was built clears the count; the third
 * in a row ends the wait (exit 1) naming the cause and what to do. A real exec plugin (a shell
 * script told by a file how many of its next runs fail) and a plain HTTP server that plays the
 * API server.
 */

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import path from 'node:path';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { ExitCode, OperationError } from '../../../src/errors.js';
import { createKubeClients, type KubeClients, loadKubeConfig } from '../../../src/kube/client.js';
import { kubeEndpoint, kubeRequest, requestNotBuilt } from '../../../src/kube/request.js';
import {
  BACKOFF_RESET_MS,
  failureCount,
  waitForObject,
  WATCH_DEADLINES,
  watchCollection,
} from '../../../src/kube/watch.js';
import { KUBE_DEADLINES, KubeDeadlineError } from '../../../src/kube/deadlines.js';
import { EXEC_PLUGIN_LIMITS } from '../../../src/kube/exec-plugin.js';
import {
  UNBUILT_REQUESTS_BEFORE_GIVING_UP,
  unbuiltRequestsError,
  unbuiltRequestWarning,
} from '../../../src/kube/watch-setup-errors.js';
import { tempDir } from '../../helpers/temp.js';
import { listenTls } from '../../helpers/tls-server.js';
import { hangGuardMs, within } from '../../helpers/wait.js';

const PATH = '/api/v1/namespaces/ns/configmaps';
const LONG = 60_000;
const configMap = (value: string, rv: number): string =>
  JSON.stringify({ metadata: { name: 'cm', resourceVersion: String(rv) }, data: { value } });

describe('kube/watch-setup-errors: the messages', () => {
  it('the warning: the request, the server and the cause on one line, and what follows', () => {
    const cause = new Error('the plugin failed (exit 1): token expired\n  run `login` again');
    assert.equal(
      unbuiltRequestWarning(`watch ${PATH}`, 'https://k:6443', cause),
      `watch ${PATH}: ctl could not send it to the Kubernetes API server https://k:6443: the plugin failed (exit 1): token expired run \`login\` again; ctl tries again after a pause (3 such failures in a row end the wait; shown once a step)`,
    );
  });

  it("the error: exit 1, the count, the cause; the cause's own hint, else where to look", () => {
    const plugin = new OperationError('the plugin failed (exit 1)', { hint: 'Run the plugin.' });
    const error = unbuiltRequestsError(`GET ${PATH}`, 'https://k:6443', plugin, 3);
    assert.equal(error.exitCode, ExitCode.failed);
    assert.equal(
      error.message,
      `GET ${PATH}: ctl could not send it to the Kubernetes API server https://k:6443, 3 times in a row, so ctl stopped waiting: the plugin failed (exit 1)`,
    );
    assert.equal(error.hint, 'Run the plugin.');
    assert.equal(error.cause, plugin);
    const other = unbuiltRequestsError(`watch ${PATH}`, 'https://k:6443', new TypeError('Invalid URL'), 3, {
      kubeconfigs: ['/home/me/.kube/other'],
      context: 'prod',
    });
    assert.match(other.message, /so ctl stopped waiting: Invalid URL$/);
    assert.match(
      other.hint ?? '',
      /^Check the kubeconfig's user \(its exec credential plugin or auth provider; kubectl --kubeconfig \/home\/me\/\.kube\/other --context prod get namespaces uses it too\) and its cluster's server and proxy-url; then run the same ctl command again to resume\.$/,
    );
  });
});

describe('kube/request: a request that could not be built', () => {
  it('is the error thrown as it came, marked; an error of sending is not', async () => {
    const failing = new Error('the credential plugin failed');
    const config = { applyToFetchOptions: () => Promise.reject(failing) };
    const thrown = await kubeEndpoint(config, 'https://k:6443', PATH, {}, 'application/json').catch(
      (e: unknown) => e,
    );
    assert.equal(thrown, failing);
    assert.ok(requestNotBuilt(thrown));
    const ok = { applyToFetchOptions: () => Promise.resolve({}) };
    const badServer = await kubeEndpoint(ok, 'not a url', PATH, {}, 'application/json').catch(
      (e: unknown) => e,
    );
    assert.ok(badServer instanceof TypeError && requestNotBuilt(badServer), String(badServer));
    assert.equal(requestNotBuilt(new Error('connect ECONNREFUSED')), false);
    assert.equal(requestNotBuilt(undefined), false);
  });
});

describe('kube/request: a list or get whose credential does not come', () => {
  afterEach(() => mock.timers.reset());

  it("ends at the credential deadline (70 s), not built, naming the kubeconfig's credential and not the API server", async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    // An auth provider whose refresh never answers: client-node waits for it without a limit.
    const config = {
      getCurrentCluster: () => ({ server: 'https://k:6443' }),
      applyToFetchOptions: () => new Promise<never>(() => undefined),
    } as unknown as KubeConfig;
    let outcome: unknown = 'pending';
    const request = kubeRequest(config, { method: 'GET', path: PATH }).then(
      () => 'answered',
      (error: unknown) => error,
    );
    void request.then((value) => (outcome = value));
    mock.timers.tick(KUBE_DEADLINES.credentialMs - 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(outcome, 'pending', 'given up before the credential deadline');
    mock.timers.tick(1);
    const error = await request;
    assert.ok(error instanceof OperationError, String(error));
    assert.ok(!(error instanceof KubeDeadlineError), "counted as the API server's silence");
    assert.ok(requestNotBuilt(error), 'not marked as a request that was never sent');
    assert.equal(
      error.message,
      "the kubeconfig's credential (its exec plugin or auth provider) was not ready within 70 s",
    );
    assert.match(
      error.hint ?? '',
      /^ctl sent nothing to the API server\. Check what the kubeconfig's user waits for: kubectl get namespaces gets the same credential; then run ctl again\.$/,
    );
    assert.equal(KUBE_DEADLINES.credentialMs, WATCH_DEADLINES.credentialMs);
    assert.ok(KUBE_DEADLINES.credentialMs > EXEC_PLUGIN_LIMITS.deadlineMs, 'the plugin would not be named');
  });
});

describe('kube/watch: the backoff starts again after a quiet while, as client-go', () => {
  it('counts on within 2 minutes of the last failure, from 1 after', () => {
    const now = 10_000_000;
    assert.equal(failureCount(0, 0, now), 1);
    assert.equal(failureCount(4, now - 30_000, now), 5);
    assert.equal(failureCount(4, now - BACKOFF_RESET_MS, now), 5);
    assert.equal(failureCount(9, now - BACKOFF_RESET_MS - 1, now), 1);
  });
});

describe('kube/watch: a list or watch whose request could not be built', () => {
  let server: Server;
  let base: string;
  let kube: KubeClients;
  let dir: string;
  let fails: string;
  /** What the API server does with each request that reaches it, in turn. */
  let onRequest: (url: string, res: ServerResponse) => void = () => undefined;
  let lists = 0;
  let watches = 0;

  /** The plugin's next runs: `n` fail, then it works; `always`: every one fails. */
  const pluginFails = (next: number | 'always'): void => writeFileSync(fails, String(next));

  before(async () => {
    ({ server, url: base } = await listenTls((req: IncomingMessage, res: ServerResponse) => {
      const url = req.url ?? '';
      if (url.includes('watch=true')) watches += 1;
      else lists += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      onRequest(url, res);
    }));
    dir = tempDir('ctl-watch-setup-');
    fails = path.join(dir, 'fails');
    pluginFails(0);
    const plugin = path.join(dir, 'plugin');
    writeFileSync(
      plugin,
      [
        '#!/bin/sh',
        `left=$(cat '${fails}')`,
        'case "$left" in',
        '  always) echo "token expired for client secret $CLIENT_SECRET" >&2; exit 1 ;;',
        '  0) ;;',
        `  *) echo $((left - 1)) > '${fails}'; echo "token expired for client secret $CLIENT_SECRET" >&2; exit 1 ;;`,
        'esac',
        `printf '%s' '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t0k-from-plugin"}}'`,
        '',
      ].join('\n'),
      { mode: 0o700 },
    );
    const file = path.join(dir, 'kubeconfig');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters:\n- name: c\n  cluster:\n    server: ${base}\n    insecure-skip-tls-verify: true`,
        `users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: ${plugin}\n      interactiveMode: Never\n      env:\n      - name: CLIENT_SECRET\n        value: s3cret-of-the-plugin`,
        'contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n    namespace: ns',
        'current-context: x',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    kube = await createKubeClients(await loadKubeConfig({ kubeconfig: file, env: {} }), () => {});
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const start = (handler: (url: string, res: ServerResponse) => void): void => {
    onRequest = handler;
    lists = 0;
    watches = 0;
  };
  const listAnswer = `{"kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[${configMap('old', 1)}]}`;
  /** Waits for the ConfigMap's value `new`, with the warnings the wait gave. */
  const waitForNewValue = async (): Promise<{
    object: { data?: { value?: string } };
    warnings: string[];
  }> => {
    const warnings: string[] = [];
    const object = await waitForObject<{ data?: { value?: string } }>({
      kube,
      path: PATH,
      name: 'cm',
      signal: new AbortController().signal,
      timeoutMs: LONG,
      stallTimeoutMs: LONG,
      check: (cm) => cm?.data?.value === 'new' || `value ${cm?.data?.value}`,
      onWarning: (message) => warnings.push(message),
    });
    return { object, warnings };
  };

  it('every watch after the list: the third in a row ends the wait, naming the cause; one warning before', async () => {
    pluginFails(0);
    start((url, res) => {
      // The list's credential was the plugin's last: from now on every run of it fails.
      pluginFails('always');
      res.end(url.includes('watch=true') ? '' : listAnswer);
    });
    const warnings: string[] = [];
    const started = Date.now();
    const stop = new AbortController();
    const error = await within(
      'the wait to end at the third watch that could not be built',
      hangGuardMs(30_000),
      watchCollection({
        kube,
        path: PATH,
        signal: stop.signal,
        onEvent: () => undefined,
        onWarning: (message) => warnings.push(message),
      }).then(
        () => assert.fail('expected the wait to end'),
        (e: unknown) => e,
      ),
    ).finally(() => stop.abort());
    assert.ok(error instanceof OperationError, String(error));
    assert.equal(error.exitCode, ExitCode.failed);
    assert.match(
      error.message,
      new RegExp(
        `^watch ${PATH}: ctl could not send it to the Kubernetes API server ${base}, 3 times in a row, so ctl stopped waiting: the kubeconfig's credential plugin \\S+/plugin failed \\(exit 1\\): token expired for client secret \\S+$`,
      ),
    );
    // The plugin's own hint: run what the kubeconfig runs.
    assert.match(
      error.hint ?? '',
      /^Run the same command as the kubeconfig \(kubectl --kubeconfig \S+ get namespaces/,
    );
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0]!,
      new RegExp(
        `^watch ${PATH}: ctl could not send it to the Kubernetes API server ${base}: the kubeconfig's credential plugin \\S+/plugin failed \\(exit 1\\): token expired .*; ctl tries again after a pause \\(3 such failures in a row end the wait; shown once a step\\)$`,
      ),
    );
    // No watch reached the server; the retries waited the backoff (0.4 s, then 0.8 s at least).
    assert.equal(lists, 1);
    assert.equal(watches, 0);
    assert.ok(Date.now() - started >= 1200, `ended after ${Date.now() - started} ms`);
    assert.equal(UNBUILT_REQUESTS_BEFORE_GIVING_UP, 3);
  });

  it('a list that could not be built twice, then could: the wait goes on to its end, with one warning', async () => {
    pluginFails(2);
    start((url, res) =>
      res.end(
        url.includes('watch=true') ? `{"type":"MODIFIED","object":${configMap('new', 2)}}\n` : listAnswer,
      ),
    );
    const { object, warnings } = await waitForNewValue();
    assert.equal(object.data?.value, 'new');
    assert.equal(lists, 1);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0]!,
      new RegExp(`^GET ${PATH}: ctl could not send it to the Kubernetes API server`),
    );
  });

  it('a watch that was built between clears the count: two, then two more, do not end the wait', async () => {
    pluginFails(0);
    start((url, res) => {
      if (!url.includes('watch=true')) {
        pluginFails(1); // the first watch cannot be built
        res.end(listAnswer);
      } else if (watches === 1) {
        pluginFails(2); // this one was; it ends at once, and the next two cannot be
        res.end('');
      } else {
        res.end(`{"type":"MODIFIED","object":${configMap('new', 2)}}\n`);
      }
    });
    const { object, warnings } = await waitForNewValue();
    assert.equal(object.data?.value, 'new');
    assert.equal(watches, 2);
    assert.equal(warnings.length, 1, warnings.join('\n'));
  });
});

/**
 * A watch whose credential plugin is slow: the establish deadline (the API server's connect and
 * response, 40 s) starts when the request is sent, not while the plugin runs; the plugin's own
 * limit, or the credential deadline behind it, bounds that part, and its error names the
 * credential, not the server. The deadlines are shortened here (watchCollection's `deadlines`).
 */
describe('kube/watch: a credential plugin slower than the establish deadline', () => {
  let server: Server;
  let base: string;
  let kube: KubeClients;
  let slow: string;
  let runs: string;
  let watches = 0;

  /** How long the plugin's next runs sleep (s) before they print the credential. */
  const pluginSleeps = (seconds: number): void => writeFileSync(slow, String(seconds));
  const pluginRuns = (): number => readFileSync(runs, 'utf8').split('\n').filter(Boolean).length;

  before(async () => {
    ({ server, url: base } = await listenTls((req: IncomingMessage, res: ServerResponse) => {
      const url = req.url ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      if (!url.includes('watch=true')) {
        res.end(
          `{"kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[${configMap('old', 1)}]}`,
        );
        return;
      }
      watches += 1;
      res.end(`{"type":"MODIFIED","object":${configMap('new', 2)}}\n`);
    }));
    const dir = tempDir('ctl-watch-slow-plugin-');
    slow = path.join(dir, 'slow');
    runs = path.join(dir, 'runs');
    const plugin = path.join(dir, 'plugin');
    writeFileSync(
      plugin,
      [
        '#!/bin/sh',
        `echo run >> '${runs}'`,
        `sleep "$(cat '${slow}')"`,
        `printf '%s' '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t0k-from-plugin"}}'`,
        '',
      ].join('\n'),
      { mode: 0o700 },
    );
    const file = path.join(dir, 'kubeconfig');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters:\n- name: c\n  cluster:\n    server: ${base}\n    insecure-skip-tls-verify: true`,
        `users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: ${plugin}\n      interactiveMode: Never`,
        'contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n    namespace: ns',
        'current-context: x',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    kube = await createKubeClients(await loadKubeConfig({ kubeconfig: file, env: {} }), () => {});
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("the deadlines: the establish one is the API server's connect and response; the credential one outlasts the plugin's own limit", () => {
    assert.equal(WATCH_DEADLINES.establishMs, 40_000);
    assert.ok(
      WATCH_DEADLINES.credentialMs > EXEC_PLUGIN_LIMITS.deadlineMs,
      String(WATCH_DEADLINES.credentialMs),
    );
  });

  it('a plugin that takes longer than the establish deadline: the watch is sent once it has the credential, and works', async () => {
    writeFileSync(runs, '');
    pluginSleeps(1.5);
    watches = 0;
    const seen: string[] = [];
    const warnings: string[] = [];
    const stop = new AbortController();
    await within(
      'the watch to deliver its event after the slow plugin',
      hangGuardMs(30_000),
      watchCollection<{ data?: { value?: string } }>({
        kube,
        path: PATH,
        signal: stop.signal,
        deadlines: { establishMs: 500 },
        onEvent: (event) => {
          if (event.type === 'MODIFIED') {
            seen.push(event.object.data?.value ?? '');
            stop.abort();
          }
        },
        onWarning: (message) => warnings.push(message),
      }),
    ).finally(() => stop.abort());
    assert.deepEqual(seen, ['new']);
    // One run for the list, one for the watch: no watch was given up at 0.5 s and sent again.
    assert.equal(pluginRuns(), 2);
    assert.equal(watches, 1);
    assert.deepEqual(warnings, []);
  });

  it('a credential that does not come: the credential deadline ends each try, the third in a row the wait, naming the credential, not the server', async () => {
    writeFileSync(runs, '');
    pluginSleeps(0);
    watches = 0;
    const warnings: string[] = [];
    const stop = new AbortController();
    const error = await within(
      'the wait to end at the third watch whose credential did not come',
      hangGuardMs(30_000),
      watchCollection({
        kube,
        path: PATH,
        signal: stop.signal,
        deadlines: { credentialMs: 300 },
        onEvent: (event) => {
          // The list had its credential at once; every watch's plugin run sleeps past 0.3 s.
          if (event.type === 'SYNC') pluginSleeps(3);
        },
        onWarning: (message) => warnings.push(message),
      }).then(
        () => assert.fail('expected the wait to end'),
        (e: unknown) => e,
      ),
    ).finally(() => stop.abort());
    assert.ok(error instanceof OperationError, String(error));
    assert.ok(!(error instanceof KubeDeadlineError), "counted as the API server's silence");
    assert.equal(
      error.message,
      `watch ${PATH}: ctl could not send it to the Kubernetes API server ${base}, 3 times in a row, so ctl stopped waiting: the kubeconfig's credential (its exec plugin or auth provider) was not ready within 0.3 s`,
    );
    assert.doesNotMatch(`${error.message}\n${warnings.join('\n')}`, /gave no answer/);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0]!,
      /: the kubeconfig's credential \(its exec plugin or auth provider\) was not ready within 0\.3 s; ctl tries again/,
    );
    // A credential that came after its try was given up sent nothing.
    assert.equal(watches, 0);
    assert.ok(pluginRuns() >= 4, `${pluginRuns()} plugin runs`);
  });
});
