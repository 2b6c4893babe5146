/**
 * A kubeconfig user's credentials go only to a server reached over TLS, as kubectl sends them.
 *
 * kubernetes/client-go tools/clientcmd/client_config.go, DirectClientConfig.ClientConfig:
 *   // only try to read the auth information if we are secure
 *   if restclient.IsConfigTransportTLS(*clientConfig) { ... getUserIdentificationPartialConfig ... }
 * so toward a cluster whose `server` is `http://...` kubectl sends no bearer token (nor a token
 * file's), no basic auth, no impersonation headers, starts no exec plugin nor auth provider and
 * offers no client certificate (kubernetes/kubectl issue #744, "kubectl does not send
 * Authorization header (or use specified auth plugin) over plain HTTP"; liggitt in
 * kubernetes/kubernetes PR #95277: "This is done as part of the getUserIdentificationPartialConfig
 * call below, but is only set for TLS connections"). client-node 1.4 sends all of them whatever
 * the protocol (dist/config.js applyToHTTPSOptions, applySecurityAuthentication): a kubeconfig
 * pointing at http:// (a port-forward, a local proxy, a typo) sent the user's secret in clear.
 *
 * Every request ctl sends gets its options from one of those two methods: applyToFetchOptions
 * calls applyToHTTPSOptions (kubeRequest and the watches: request.ts kubeEndpoint, through
 * request-config.ts), the port-forward's WebSocket calls it directly (client-node's
 * web-socket-handler.js), client-node's typed clients call applySecurityAuthentication. Both are
 * replaced here, for a plain-http server only, by what is nobody's identity: the agent
 * client-node builds for the cluster (its proxy-url's, or a plain http one) with the cluster's own
 * TLS settings (CA, insecure-skip-tls-verify, tls-server-name: kubectl keeps them for an https
 * proxy), and no header. The user's files and plugins are not even read or started: nothing of
 * them would be sent. The Accept header, the deadlines and the kept agent are added after, as for
 * https (request.ts, agent.ts).
 */

import type { Cluster } from '@kubernetes/client-node/dist/config_types.js';
import { KUBECONFIG_ROLES, readRequestFile } from './request-files.js';
import { serverForMessages } from './server-url.js';

/** Whether `server` is reached over plain http (request.ts sends it with node:http then). */
export function isPlainHttp(server: string | undefined): boolean {
  if (!server) return false;
  try {
    return new URL(server).protocol === 'http:';
  } catch {
    return false; // not a URL: no request is sent to it at all (request.ts notBuilt)
  }
}

/** The part of client-node's KubeConfig replaced or called here (createAgent is private). */
interface KubeConfigInside {
  getCurrentCluster(): Cluster | null;
  createAgent?: (cluster: Cluster, options: object) => unknown;
  applyToHTTPSOptions?: (options: { agent?: unknown }) => Promise<void>;
  applySecurityAuthentication?: (context: { setAgent(agent: unknown): void }) => Promise<void>;
}

/**
 * Makes `config` send no credential of its user to a plain-http server (above); an https
 * server's requests are built by client-node as before.
 */
export function noCredentialsOverPlainHttp(config: object): void {
  const inside = config as KubeConfigInside;
  const toHttps = inside.applyToHTTPSOptions;
  if (typeof toHttps === 'function') {
    inside.applyToHTTPSOptions = async function (this: KubeConfigInside, options) {
      const cluster = this.getCurrentCluster();
      if (!cluster || !isPlainHttp(cluster.server)) return toHttps.call(this, options);
      options.agent = clusterAgent(this, cluster);
    };
  }
  const security = inside.applySecurityAuthentication;
  if (typeof security === 'function') {
    inside.applySecurityAuthentication = async function (this: KubeConfigInside, context) {
      const cluster = this.getCurrentCluster();
      if (!cluster || !isPlainHttp(cluster.server)) return security.call(this, context);
      context.setAgent(clusterAgent(this, cluster));
    };
  }
}

/**
 * client-node's agent for `cluster` with the cluster's TLS settings only, as applyHTTPSOptions
 * gives them (its CA read as request-files.ts reads it): a proxy-url's agent, an http.Agent, or
 * client-node's refusal of a plain-http server without insecure-skip-tls-verify, as before.
 */
function clusterAgent(config: KubeConfigInside, cluster: Cluster): unknown {
  if (typeof config.createAgent !== 'function') {
    throw new Error("client-node's KubeConfig has no createAgent: ctl cannot build a plain-http request");
  }
  const options: { rejectUnauthorized?: boolean; servername?: string; ca?: Buffer } = {};
  if (cluster.skipTLSVerify) options.rejectUnauthorized = false;
  if (cluster.tlsServerName) options.servername = cluster.tlsServerName;
  if (cluster.caFile) options.ca = readRequestFile(cluster.caFile, KUBECONFIG_ROLES.caFile(cluster));
  else if (cluster.caData) options.ca = Buffer.from(cluster.caData, 'base64');
  return config.createAgent(cluster, options);
}

/** Something that prints a `warning:` line (ctl's Io). */
export interface Warner {
  warn(message: string): void;
}

/** The servers each Warner was told of: a command that builds its clients twice warns once. */
const warned = new WeakMap<Warner, Set<string>>();

/**
 * Tells the user, once per output and server, that a plain-http server gets no credentials: a
 * kubectl user would want to know why the server answers 401 or 403 to a kubeconfig that works
 * over https. The server is named as every message names it (no password, no query).
 */
export function warnPlainHttp(server: string | undefined, warner: Warner | undefined): void {
  if (!warner || !server || !isPlainHttp(server)) return;
  const shown = serverForMessages(server);
  const told = warned.get(warner) ?? new Set<string>();
  if (told.has(shown)) return;
  told.add(shown);
  warned.set(warner, told);
  warner.warn(
    `the cluster's server ${shown} is plain http: ctl sends it no credentials of the kubeconfig's user, as kubectl does`,
  );
}
