/**
 * A wait whose watches end on lines ctl cannot use (src/kube/watch-line-errors.ts): each such
 * watch is watched again from the last event read, the first is said once as a warning, an event
 * read clears the count, and the third in a row, whatever their kinds, ends the wait (exit 1)
 * naming the server, what the lines were and what to do. A plain HTTP server plays the API
 * server: a list, then each watch answered as the test says.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ExitCode } from '../../../src/errors.js';
import { createKubeClients, type KubeClients, loadKubeConfig } from '../../../src/kube/client.js';
import { waitForObject, watchCollection } from '../../../src/kube/watch.js';
import { WatchLineError } from '../../../src/kube/watch-line-errors.js';

const PATH = '/api/v1/namespaces/ns/configmaps';
const LONG = 60_000;

const configMap = (value: string, rv: number): string =>
  JSON.stringify({ metadata: { name: 'cm', resourceVersion: String(rv) }, data: { value } });
const event = (type: string, value: string, rv: number): string =>
  `{"type":"${type}","object":${configMap(value, rv)}}\n`;

describe('kube/watch: lines ctl cannot use', () => {
  let server: Server;
  let base: string;
  let kube: KubeClients;
  /** The answer to each watch, in turn; past the end, a watch stays open with nothing. */
  let answers: string[] = [];
  let watches: string[] = [];
  let lists = 0;
  let dir = '';

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = req.url ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      if (!url.includes('watch=true')) {
        lists += 1;
        res.end(
          `{"kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[${configMap('old', 1)}]}`,
        );
        return;
      }
      const answer = answers[watches.length];
      watches.push(url);
      if (answer === undefined) res.write('');
      else res.end(answer);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-watch-lines-'));
    const file = path.join(dir, 'kubeconfig');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters:\n- name: c\n  cluster:\n    server: ${base}\n    insecure-skip-tls-verify: true`,
        'users:\n- name: u\n  user:\n    token: t0k',
        'contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n    namespace: ns',
        'current-context: x',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    kube = await createKubeClients(await loadKubeConfig({ kubeconfig: file, env: {} }), () => {});
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const start = (script: string[]): void => {
    answers = script;
    watches = [];
    lists = 0;
  };

  it('ends the wait at the third watch in a row, whatever the kinds, naming each; warns once before', async () => {
    start([
      '<html>502 Bad Gateway</html>\n',
      `{"type":"ADDED","object":${'['.repeat(600)}${']'.repeat(600)}}\n`,
      '{"type":"ERROR","object":{"kind":"Status","status":"Failure","message":"etcdserver: leader changed","reason":"InternalError","code":500}}\n',
    ]);
    const warnings: string[] = [];
    const controller = new AbortController();
    const error = await watchCollection({
      kube,
      path: PATH,
      signal: controller.signal,
      onEvent: () => undefined,
      onWarning: (message) => warnings.push(message),
    }).then(
      () => assert.fail('expected the wait to end'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof WatchLineError, String(error));
    assert.equal(error.exitCode, ExitCode.failed);
    assert.equal(
      error.message,
      `watch ${PATH}: the Kubernetes API server ${base} sent an ERROR event: "etcdserver: leader changed" (reason "InternalError", code 500); 3 watches in a row ended on a line ctl cannot use (before this one: a line that is not JSON, a line nested too deep), so ctl stopped waiting`,
    );
    assert.match(
      error.hint ?? '',
      /kubectl --kubeconfig \S+ get --raw '?\/readyz\?verbose'?\).*run the same ctl command again/,
    );
    assert.deepEqual(warnings, [
      `watch ${PATH}: the Kubernetes API server ${base} sent a line that is not JSON (28 bytes, starting "<html>502 Bad Gateway</html>"); ctl watches again from the last event it read (3 such watches in a row end the wait; shown once a step)`,
    ]);
    // Each watched again from the list's resourceVersion, after the backoff: no new list.
    assert.equal(watches.length, 3);
    assert.equal(lists, 1);
    assert.ok(
      watches.every((url) => url.includes('resourceVersion=1')),
      watches.join('\n'),
    );
  });

  it('goes on after a line among events, from the last event read; an event clears the count', async () => {
    // Watch 1: a line that is not an event. Watch 2: an event, then one (the count starts again).
    // Watch 3: another. Watch 4: the awaited value. Without the event of watch 2 clearing the
    // count, watch 3 would have ended the wait.
    start([
      '{"kind":"Status"}\n',
      `${event('MODIFIED', 'mid', 5)}not json\n${event('MODIFIED', 'lost', 6)}`,
      '{"type":"ERROR","object":{"kind":"Status","message":"try again"}}\n',
      event('MODIFIED', 'new', 7),
    ]);
    const warnings: string[] = [];
    const progress: string[] = [];
    const object = await waitForObject<{ data?: { value?: string } }>({
      kube,
      path: PATH,
      name: 'cm',
      signal: new AbortController().signal,
      timeoutMs: LONG,
      stallTimeoutMs: LONG,
      check: (cm) => cm?.data?.value === 'new' || `value ${cm?.data?.value}`,
      onProgress: (message) => progress.push(message),
      onWarning: (message) => warnings.push(message),
    });
    assert.equal(object.data?.value, 'new');
    // The event after the unusable line was not read: the next watch starts from the one before.
    assert.deepEqual(progress, ['value old', 'value mid']);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /sent JSON that is not a watch event \(no type\); ctl watches again/);
    assert.equal(watches.length, 4);
    assert.equal(lists, 1);
    assert.deepEqual(
      watches.map((url) => new URL(url, base).searchParams.get('resourceVersion')),
      ['1', '1', '5', '5'],
    );
  });
});
