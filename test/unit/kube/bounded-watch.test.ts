import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { BoundedWatch } from '../../../src/kube/bounded-watch.js';
import { WatchLineTooLongError } from '../../../src/kube/watch-line-bound.js';
import { WatchLineError, type WatchLineKind } from '../../../src/kube/watch-line-errors.js';
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
        // The é split between two writes: read as one character.
        const rest = Buffer.from('FIED","object":{"data":{"v":"é"}}}\n');
        res.write(rest.subarray(0, 30));
        res.write(rest.subarray(30));
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

  // client-go's StreamWatcher ends the watch on the first line it cannot decode; so does ctl's,
  // handing on the events before it and none after (client-node skipped such a line silently).
  const unusable: { line: string; kind: WatchLineKind; problem: RegExp }[] = [
    {
      line: `<html>\u001b[31m502 Bad Gateway\u202e upstream ${'x'.repeat(5000)}</html>`,
      kind: 'not-json',
      problem:
        /sent a line that is not JSON \(5046 bytes, starting "<html>\\x1b\[31m502 Bad Gateway\\u202e upstream xxx…"\)$/,
    },
    {
      line: '{"type":"ADDED","object":{"kind":"Secret","data":{"password":"c2VjcmV0',
      kind: 'not-json',
      problem:
        /sent a line that is not JSON \(70 bytes, starting as JSON but not parsing: cut short or garbled\?\)$/,
    },
    {
      line: `{"type":"ADDED","object":{"x":${'['.repeat(600)}${']'.repeat(600)}}}`,
      kind: 'too-deep',
      problem: /sent a line nested deeper than 512 levels/,
    },
    {
      line: '42',
      kind: 'not-an-event',
      problem: /sent JSON that is not a watch event \(a number, not an object\)$/,
    },
    { line: '[1,2]', kind: 'not-an-event', problem: /\(an array, not an object\)$/ },
    { line: '{"kind":"Status","code":500}', kind: 'not-an-event', problem: /\(no type\)$/ },
    {
      line: '{"type":"UPDATED\\u001b[2J","object":{}}',
      kind: 'not-an-event',
      problem: /\(type "UPDATED\\x1b\[2J", not one of ADDED, MODIFIED, DELETED, BOOKMARK, ERROR\)$/,
    },
    { line: '{"type":"MODIFIED"}', kind: 'not-an-event', problem: /\(a MODIFIED event without an object\)$/ },
    {
      line: '{"type":"ADDED","object":"a"}',
      kind: 'not-an-event',
      problem: /\(an ADDED event whose object is a string\)$/,
    },
  ];
  for (const { line, kind, problem } of unusable) {
    it(`ends the watch at a line it cannot use (${kind}: ${line.slice(0, 30)}), naming the server and what the line was`, async () => {
      handler = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          `{"type":"ADDED","object":{"metadata":{"name":"before"}}}\n${line}\n{"type":"ADDED","object":{}}\n`,
        );
      };
      const seen = await watchOnce(base, {});
      assert.deepEqual(seen.events, [['ADDED', { metadata: { name: 'before' } }]]);
      assert.ok(seen.error instanceof WatchLineError, String(seen.error));
      assert.equal(seen.error.kind, kind);
      assert.match(
        seen.error.message,
        new RegExp(`^watch /api/v1/namespaces/ns/configmaps: the Kubernetes API server ${base} sent `),
      );
      assert.match(seen.error.message, problem);
      // What came from outside: a short excerpt at most, nothing that drives a terminal.
      assert.ok(seen.error.message.length < 300, seen.error.message);
      assert.doesNotMatch(seen.error.message, /[\u001b\u202e]|xxxxxxxxxx|password|c2Vj/);
      assert.equal(seen.doneCalls, 1);
    });
  }

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
