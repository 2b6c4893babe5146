import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { SimDialect as Dialect } from '../world/dialect.js';
import { releasedOperatorVersions } from '../world/releases.js';
import { bundleFile } from './bundles.js';
import { ChartRepository, chartArchiveName } from './chart-repository.js';
import { listenOnLoopback } from '../listen.js';

export interface ArtifactsServerOptions {
  /** Dialect of the CRDs in every bundle and chart: the simulated cluster's. */
  dialect: Dialect;
  /** Operator versions served; default every version of the release catalog. */
  versions?: readonly string[];
  /** Default: a free port. */
  port?: number;
}

export interface RunningArtifactsServer {
  /** `http://127.0.0.1:<port>`: also the helm repository URL (`helm ... --repo <url>`). */
  url: string;
  port: number;
  /** `<url>/bundles/{version}/bundle.yaml`: the form `ctl upgrade --bundle` takes. */
  bundleUrlTemplate: string;
  openshiftBundleUrlTemplate: string;
  charts: ChartRepository;
  close(): Promise<void>;
}

/**
 * What the real world downloads from GitHub and helm.redis.io, served locally: a helm chart
 * repository at the root and each release's bundle files under `/bundles/<version>/`. Plain
 * HTTP on 127.0.0.1 (helm and curl accept it; nothing secret is served).
 */
export async function startArtifactsServer(options: ArtifactsServerOptions): Promise<RunningArtifactsServer> {
  const versions = options.versions ?? releasedOperatorVersions();
  const charts = new ChartRepository(versions, options.dialect);
  const server = createServer((req, res) => {
    serve(req, res, versions, charts, options.dialect).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `internal error: ${String(error)}\n`);
      else res.destroy();
    });
  });
  const port = await listenOnLoopback(server, options.port);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    bundleUrlTemplate: `${url}/bundles/{version}/bundle.yaml`,
    openshiftBundleUrlTemplate: `${url}/bundles/{version}/openshift.bundle.yaml`,
    charts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const YAML = 'application/yaml';

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  versions: readonly string[],
  charts: ChartRepository,
  dialect: Dialect,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    send(res, 405, 'text/plain', 'only GET and HEAD\n');
    return;
  }
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
  if (path === '/index.yaml') {
    send(res, 200, YAML, await charts.index());
    return;
  }
  const archive = /^\/(?:charts\/)?redis-enterprise-operator-(.+)\.tgz$/.exec(path);
  if (archive) {
    const version = archive[1] ?? '';
    if (!charts.has(version))
      return notFound(res, `no chart ${chartArchiveName(version)} in this repository`);
    send(res, 200, 'application/gzip', await charts.archive(version));
    return;
  }
  const bundle = /^\/bundles\/v?([^/]+)\/(.+)$/.exec(path);
  if (bundle) {
    const version = bundle[1] ?? '';
    if (!versions.includes(version)) return notFound(res, `unknown operator version ${version}`);
    const content = bundleFile(bundle[2] ?? '', version, dialect);
    if (content === undefined) return notFound(res, `no file ${bundle[2]} in the ${version} release`);
    send(res, 200, YAML, content);
    return;
  }
  if (path === '/' || path === '/bundles' || path === '/bundles/') {
    send(
      res,
      200,
      'text/plain',
      `${versions.map((v) => `/bundles/${v}/bundle.yaml`).join('\n')}\n/index.yaml\n`,
    );
    return;
  }
  notFound(res, `no such file: ${path}`);
}

function notFound(res: ServerResponse, message: string): void {
  send(res, 404, 'text/plain', `${message}\n`);
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  const buffer = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': contentType, 'content-length': buffer.length });
  res.end(res.req.method === 'HEAD' ? undefined : buffer);
}
