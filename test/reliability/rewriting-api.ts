/**
 * A server of the test in front of the simulator's management API that forwards every request
 * and rewrites the JSON answers of the paths it is told (a database's field of another type, a
 * module's platforms as a list, a uid listed twice): answers the simulator, true to the REST
 * reference, never gives. ctl is pointed at it with CTL_API_URL and CTL_CA_FILE.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createServerCertificate } from '../helpers/simulator.js';
import { tempDir } from '../helpers/temp.js';
import { testCa } from '../unit/sim/rest/fixture.js';

/**
 * The answer to a 200 of `pathname` (no query, any method), parsed; what it returns is sent
 * instead (a RawAnswer's text as it is). A key ending in `*` is a prefix: `/v1/actions/*`
 * rewrites every action's answer.
 */
export type Rewrites = Record<string, (body: unknown) => unknown>;

/** A rewritten answer sent as this text, not serialized: JSON no JSON.stringify could write. */
export class RawAnswer {
  constructor(readonly text: string) {}
}

export interface RewritingApi {
  /** Its URL and CA file, to put in CTL_API_URL and CTL_CA_FILE. */
  env: { CTL_API_URL: string; CTL_CA_FILE: string };
  /** Where it forwards to (the simulator's API, from the simulator's env), and what it rewrites. */
  use(upstreamEnv: NodeJS.ProcessEnv, rewrites: Rewrites): void;
  close(): Promise<void>;
}

export async function startRewritingApi(prefix: string): Promise<RewritingApi> {
  const ca = await testCa();
  const certificate = await createServerCertificate(ca);
  const caFile = path.join(tempDir(prefix), 'ca.pem');
  writeFileSync(caFile, ca.certPem);
  let upstream: { url: string; ca: string } | undefined;
  let rewrites: Rewrites = {};
  const server: Server = createServer({ cert: certificate.certPem, key: certificate.keyPem }, (req, res) => {
    const target = new URL(req.url ?? '/', upstream?.url);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const forward = httpsRequest(
        target,
        { method: req.method, headers: { ...req.headers, host: target.host }, ca: upstream?.ca },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            let text = Buffer.concat(body).toString('utf8');
            const rewrite =
              rewrites[target.pathname] ??
              Object.entries(rewrites).find(
                ([key]) => key.endsWith('*') && target.pathname.startsWith(key.slice(0, -1)),
              )?.[1];
            if (rewrite && answer.statusCode === 200) {
              const rewritten = rewrite(JSON.parse(text));
              text = rewritten instanceof RawAnswer ? rewritten.text : JSON.stringify(rewritten);
            }
            const headers = { ...answer.headers };
            delete headers['content-length'];
            res.writeHead(answer.statusCode ?? 502, headers).end(text);
          });
        },
      );
      forward.on('error', () => res.writeHead(502).end());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: { CTL_API_URL: url, CTL_CA_FILE: caFile },
    use(upstreamEnv, next) {
      upstream = {
        url: upstreamEnv.CTL_API_URL ?? '',
        ca: readFileSync(upstreamEnv.CTL_CA_FILE ?? '', 'utf8'),
      };
      rewrites = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
