import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AuditLog } from '../audit.js';
import { type CertificateAuthority, createServerCertificate } from '../tls.js';
import { registerBuiltins } from './builtins.js';
import { installSccAdmission } from './scc-admission.js';
import { applyKubeFault, KubeFaultInjector, type KubeFaultRule } from './faults.js';
import { ControllerManager } from './controllers/controller.js';
import { DeploymentController } from './controllers/deployment.js';
import { StatefulSetController } from './controllers/statefulset.js';
import { syncCrdsWithRegistry } from './crds.js';
import {
  aggregatedContentType,
  aggregatedDiscovery,
  legacyCoreVersions,
  legacyGroup,
  legacyGroupList,
  legacyResourceList,
  wantsAggregated,
} from './discovery.js';
import { sendBytes, sendJson, sendStatus } from './http.js';
import { groupVersionDocument, openApiIndex } from './openapi.js';
import { OPENAPI_V2_PROTOBUF, swaggerDocument } from './openapi-v2.js';
import { ResourceRegistry } from './registry.js';
import {
  type AccessDenial,
  handleResource,
  isResourcePath,
  parseResourcePath,
  type ReceivedBody,
} from './resources.js';
import { isKubectlSpdy, refuseKubectlPortForward } from './kubectl-portforward.js';
import { KubeApiError, pathNotFound, unauthorized } from './status.js';
import { KubeStore } from './store.js';
import { WatchHub } from './watch.js';
import { listenOnLoopback } from '../listen.js';

export type PortForwardResolver = (
  namespace: string,
  pod: string,
  port: number,
) => { host: string; port: number } | undefined;

export interface KubeServerOptions {
  ca: CertificateAuthority;
  audit?: AuditLog;
  /** The bearer token every request must carry. */
  token: string;
  /** The user name written to the audit log for authenticated requests. */
  user?: string;
  port?: number;
  /** What /version reports; kubectl's dispatcher picks its binary from the minor (28, 32, 33). */
  version?: { major: string; minor: string };
  platform?: 'kubernetes' | 'openshift';
  portForward?: PortForwardResolver;
  /** The built-in Deployment/ReplicaSet/StatefulSet controllers; default true. */
  controllers?: boolean;
  /** Watch bookmark period (allowWatchBookmarks); default 30 s. */
  bookmarkIntervalMs?: number;
  /** Injected faults (409 on a patch, 410 on a watch, delays ...): see ./faults.ts. */
  faults?: KubeFaultRule[];
  /** Sees every request body of a resource request, as received (tests judge what clients send). */
  onRequestBody?: (received: ReceivedBody) => void;
}

export interface KubeServer {
  url: string;
  port: number;
  store: KubeStore;
  registry: ResourceRegistry;
  controllers: ControllerManager;
  /** The PEM of the CA that signed the server certificate (for kubeconfigs). */
  caPem: string;
  /** SelfSubjectAccessReviews matching any entry are denied; mutate freely in tests. */
  accessDenials: AccessDenial[];
  /** How many watches are open now. */
  openWatches(): number;
  /** Fault injection: cuts every open watch connection. */
  dropWatches(): void;
  /** Fault injection per request (the scenario's `api: kube` rules). */
  faults: KubeFaultInjector;
  /** What /version reports from now on (kubectl's dispatcher reads it on every call). */
  setVersion(version: { major: string; minor: string }): void;
  close(): Promise<void>;
}

const PUBLIC_PATHS = new Set(['/version', '/healthz', '/livez', '/readyz']);
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The Kubernetes API emulator on https://127.0.0.1:<port>. Starts and stops in milliseconds. */
export async function startKubeServer(options: KubeServerOptions): Promise<KubeServer> {
  const registry = new ResourceRegistry();
  const store = new KubeStore(registry);
  syncCrdsWithRegistry(store, registry);
  registerBuiltins(registry, options.platform ?? 'kubernetes');
  if (options.platform === 'openshift') installSccAdmission(store);
  const watches = new WatchHub(store, { bookmarkIntervalMs: options.bookmarkIntervalMs });
  const accessDenials: AccessDenial[] = [];
  let version = options.version ?? { major: '1', minor: '32' };
  const user = options.user ?? 'admin';
  const faults = new KubeFaultInjector(options.faults ?? []);

  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    store.create(store.resolve('v1', 'Namespace'), { metadata: { name } });
  }

  const controllers = new ControllerManager(store, registry);
  if (options.controllers !== false) {
    controllers.add(new DeploymentController());
    controllers.add(new StatefulSetController());
  }

  const certificate = await createServerCertificate(options.ca);
  const sockets = new Set<Socket | Duplex>();
  let address = '127.0.0.1:0';

  const kubeVersion = (): string => `v${version.major}.${version.minor}.0`;

  const route = async (request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> => {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const accept = request.headers.accept;
    if (path === '/version') {
      sendJson(response, 200, {
        major: version.major,
        minor: version.minor,
        gitVersion: kubeVersion(),
        gitCommit: '0000000000000000000000000000000000000000',
        gitTreeState: 'clean',
        buildDate: '2025-01-01T00:00:00Z',
        goVersion: 'go1.23.4',
        compiler: 'gc',
        platform: 'linux/amd64',
      });
      return;
    }
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.end('ok');
      return;
    }
    if (path === '/api' || path === '/apis') {
      const aggregated = wantsAggregated(accept);
      if (aggregated) {
        sendJson(
          response,
          200,
          aggregatedDiscovery(registry, path === '/api', aggregated),
          aggregatedContentType(aggregated),
        );
      } else {
        sendJson(response, 200, path === '/api' ? legacyCoreVersions(address) : legacyGroupList(registry));
      }
      return;
    }
    if (path === '/openapi/v3') {
      sendJson(response, 200, openApiIndex(registry, kubeVersion()));
      return;
    }
    if (path === '/openapi/v2') {
      const document = swaggerDocument(registry, kubeVersion());
      if (accept?.includes('protobuf')) {
        const { encodeSwaggerProtobuf } = await import('./openapi-v2-protobuf.js');
        sendBytes(response, 200, encodeSwaggerProtobuf(document), OPENAPI_V2_PROTOBUF);
      } else sendJson(response, 200, document);
      return;
    }
    const openapi = /^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (openapi) {
      const group = openapi[2] ?? '';
      const gv = openapi[1] ?? openapi[3] ?? '';
      if (!registry.hasGroupVersion(group, gv)) throw pathNotFound();
      sendJson(response, 200, groupVersionDocument(registry, group, gv, kubeVersion()));
      return;
    }
    const groupOnly = /^\/apis\/([^/]+)$/.exec(path);
    if (groupOnly) {
      const body = legacyGroup(registry, groupOnly[1]!);
      if (!body) throw pathNotFound();
      sendJson(response, 200, body);
      return;
    }
    const gvOnly = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (gvOnly) {
      const body = legacyResourceList(registry, gvOnly[2] ?? '', gvOnly[1] ?? gvOnly[3] ?? '');
      if (!body) throw pathNotFound();
      sendJson(response, 200, body);
      return;
    }
    if (isResourcePath(path)) {
      const parsed = parseResourcePath(registry, path);
      if (!parsed) throw pathNotFound();
      await handleResource(
        {
          store,
          watches,
          accessDenials,
          onRequestBody: options.onRequestBody,
          // A minor such as "32+" (as managed clusters report it) counts as 32.
          serverMinor: () => Number.parseInt(version.minor, 10) || Number.POSITIVE_INFINITY,
        },
        parsed,
        request,
        response,
        url.searchParams,
      );
      return;
    }
    throw pathNotFound();
  };

  const authenticated = (request: IncomingMessage): boolean =>
    request.headers.authorization === `Bearer ${options.token}`;

  const server: Server = createServer(
    { key: certificate.keyPem, cert: certificate.certPem },
    (request, response) => {
      const url = new URL(request.url ?? '/', 'https://127.0.0.1');
      const ok = authenticated(request);
      response.on('close', () => {
        options.audit?.record({
          api: 'kube',
          method: request.method ?? 'GET',
          path: request.url ?? '/',
          status: response.statusCode,
          user: ok ? user : 'system:anonymous',
          mutating: !READ_METHODS.has(request.method ?? 'GET'),
        });
      });
      if (!ok && !PUBLIC_PATHS.has(url.pathname)) {
        request.resume();
        sendStatus(response, unauthorized());
        return;
      }
      const fault = faults.decide(request.method ?? 'GET', url);
      const handle = fault
        ? applyKubeFault(fault, request, response).then((answered) =>
            answered ? undefined : route(request, response, url),
          )
        : route(request, response, url);
      handle.catch((error: unknown) => {
        const failure =
          error instanceof KubeApiError
            ? error
            : new KubeApiError(
                500,
                'InternalError',
                `Internal error occurred: ${(error as Error)?.message ?? String(error)}`,
              );
        if (response.headersSent) {
          response.destroy();
          return;
        }
        request.resume();
        sendStatus(response, failure);
      });
    },
  );

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const url = new URL(request.url ?? '/', 'https://127.0.0.1');
    const ok = authenticated(request);
    // The audit line records the status the client got, once it is known: 101 only for an
    // upgrade that was accepted, 4xx for every refusal (kubectl's SPDY port-forward among them).
    let audited = false;
    const answered = (status: number): void => {
      if (audited) return;
      audited = true;
      options.audit?.record({
        api: 'kube',
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        status,
        user: ok ? user : 'system:anonymous',
        mutating: false,
      });
    };
    const reject = (code: number, text: string): void => {
      answered(code);
      socket.end(`HTTP/1.1 ${code} ${text}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    };
    if (!ok) return reject(401, 'Unauthorized');
    const match = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/portforward$/.exec(url.pathname);
    if (!match) return reject(404, 'Not Found');
    const [, namespace, pod] = match as unknown as [string, string, string];
    if (!store.get(store.resolve('v1', 'Pod'), namespace, pod)) return reject(404, 'Not Found');
    if (isKubectlSpdy(request)) {
      answered(400);
      refuseKubectlPortForward(socket);
      return;
    }
    const ports = url.searchParams
      .getAll('ports')
      .flatMap((p) => p.split(','))
      .map(Number)
      .filter((p) => Number.isInteger(p) && p > 0);
    const target = ports[0] !== undefined ? options.portForward?.(namespace, pod, ports[0]) : undefined;
    if (!target) return reject(400, 'Bad Request');
    import('./portforward.js').then(
      ({ handlePortForward }) => handlePortForward(request, socket, head, target, ports, answered),
      () => reject(500, 'Internal Server Error'),
    );
  });

  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const port = await listenOnLoopback(server, options.port);
  address = `127.0.0.1:${port}`;
  controllers.startAll();

  return {
    url: `https://127.0.0.1:${port}`,
    port,
    store,
    registry,
    controllers,
    caPem: options.ca.certPem,
    accessDenials,
    openWatches: () => watches.openCount,
    dropWatches: () => watches.dropAll(),
    faults,
    setVersion: (next) => {
      version = next;
    },
    close: async () => {
      controllers.stopAll();
      watches.endAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await closed;
    },
  };
}
