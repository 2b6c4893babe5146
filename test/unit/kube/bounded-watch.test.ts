import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { BoundedWatch } from '../../../src/kube/bounded-watch.js';
import { WatchLineTooLongError } from '../../../src/kube/watch-line-bound.js';
import { pumpForever } from '../../helpers/endless-body.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** What one watch reported: its events, and what `done` was called with (once). */
function watchOnce(
  server: string,
  query: Record<string, string | number | boolean | undefined>,
  maxLineBytes?: number,
): Promise<{ events: [string, unknown][]; error: unknown; doneCalls: number }> {
  return new Promise((resolve, reject) => {
    const events: [string, unknown][] = [];
    let doneCalls = 0;
    const watcher = new BoundedWatch(
      {
        getCurrentCluster: () => ({ server }),
        applyToFetchOptions: () => Promise.resolve({ headers: new Headers({ Authorization: 'Bearer t0k' }) }),
      },
      maxLineBytes,
    );
    watcher
      .watch(
        '/api/v1/namespaces/ns/configmaps',
        query,
        (type, object) => events.push([type, object]),
        (error) => {
          doneCalls += 1;
          // Later calls would show in doneCalls.
          setTimeout(() => resolve({ events, error, doneCalls }), 50);
        },
      )
      .catch(reject);
  });
}

describe('kube/bounded-watch', () => {
  let server: Server;
  let base: string;
  let handler: Handler = () => undefined;
  const requests: { url: string; authorization: string | undefined }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("reads each event, as client-node's Watch: the URL, credentials, CRLF, lines across writes", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\r\n{"type":"MODI');
      setTimeout(() => {
        // Not JSON, not an object, nested deeper than ctl reads: skipped, as client-node skips them.
        res.write(
          `FIED","object":{"data":{"v":"é"}}}\nnot json\n42\n{"x":${'['.repeat(600)}${']'.repeat(600)}}\n`,
        );
        res.end('{"type":"DELETED","object":{}}');
      }, 20);
    };
    const seen = await watchOnce(`${base}/`, {
      resourceVersion: '7',
      timeoutSeconds: 25,
      labelSelector: undefined,
    });
    assert.deepEqual(seen.events, [
      ['ADDED', { metadata: { name: 'a' } }],
      ['MODIFIED', { data: { v: 'é' } }],
      ['DELETED', {}],
    ]);
    assert.equal(seen.error, null);
    assert.equal(seen.doneCalls, 1);
    const last = requests.at(-1)!;
    assert.equal(last.url, '/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=7&timeoutSeconds=25');
    assert.equal(last.authorization, 'Bearer t0k');
  });

  it('ends with a statusCode error for an answer other than 200', async () => {
    handler = (_req, res) => {
      res.writeHead(410, { 'content-type': 'application/json' });
      res.end('{"kind":"Status","code":410}');
    };
    const seen = await watchOnce(base, {});
    assert.deepEqual(seen.events, []);
    assert.equal((seen.error as { statusCode?: number }).statusCode, 410);
    assert.equal(seen.doneCalls, 1);
  });

  it('ends a line past its bound with an error naming the server and the bound, having read the lines before', async () => {
    let sent = 0;
    let closed = false;
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"type":"ADDED","object":{"metadata":{"name":"before"}}}\n');
      res.on('close', () => {
        closed = true;
      });
      pumpForever(res, Buffer.alloc(64 * 1024, 0x61), (bytes) => {
        sent += bytes;
      });
    };
    const seen = await watchOnce(base, {}, 1024 * 1024);
    assert.deepEqual(seen.events, [['ADDED', { metadata: { name: 'before' } }]]);
    assert.ok(seen.error instanceof WatchLineTooLongError, String(seen.error));
    assert.match(
      seen.error.message,
      new RegExp(`the Kubernetes API server ${base} sent an event line longer than 1 MiB`),
    );
    assert.equal(seen.doneCalls, 1);
    // The request was ended: the server stops sending.
    for (let i = 0; i < 100 && !closed; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(closed, 'the server saw the watch end');
    assert.ok(sent < 16 * 1024 * 1024, `${sent} bytes were sent before ctl stopped reading`);
  });

  it('ends with the transport error when nothing answers', async () => {
    const seen = await watchOnce('http://127.0.0.1:1', {});
    assert.match(String((seen.error as Error).message), /ECONNREFUSED/);
    assert.equal(seen.doneCalls, 1);
  });
});
