/**
 * The other participating clusters of the scenario's Active-Active databases (`remoteClusters:`):
 * each serves a management API of its own, on a port of its own, at the RS version given (its
 * GET /v1/nodes `software_version`, GET /v1/cluster, GET /v1/bdbs with the Active-Active
 * databases that name it), with the same TLS, authorize and JWT as the local one. A remote with
 * `reachable: false` accepts TCP connections and never answers: not even the TLS handshake, as a
 * participant behind a black-holing firewall or a hung load balancer does.
 */

import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AuditLog } from '../audit.js';
import { listenOnLoopback } from '../listen.js';
import type { Scenario } from '../scenario.js';
import type { CertificateAuthority } from '../tls.js';
import { RestModel } from './model.js';
import { startRestServer } from './server.js';

/** The one user of a remote cluster's API; its password is random and lives in the RERC's Secret. */
export const REMOTE_ADMIN = 'admin@example.com';

export interface RemoteClusterEndpoint {
  name: string;
  /** What the RERC's spec.apiFqdnUrl and spec.apiPort name. */
  host: string;
  port: number;
  username: string;
  password: string;
  reachable: boolean;
  /** Its management API's state (undefined for an unreachable one). */
  model: RestModel | undefined;
}

export interface RunningRemoteClusters {
  endpoints: RemoteClusterEndpoint[];
  close(): Promise<void>;
}

export async function startRemoteClusters(input: {
  scenario: Scenario;
  ca: CertificateAuthority;
  audit: AuditLog;
}): Promise<RunningRemoteClusters> {
  const endpoints: RemoteClusterEndpoint[] = [];
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    for (const closeOne of closers.reverse()) await closeOne().catch(() => undefined);
  };
  try {
    for (const remote of input.scenario.remoteClusters) {
      const password = randomBytes(18).toString('base64url');
      if (!remote.reachable) {
        const silent = await startSilentServer();
        closers.push(silent.close);
        endpoints.push({
          name: remote.name,
          host: 'localhost',
          port: silent.port,
          username: REMOTE_ADMIN,
          password,
          reachable: false,
          model: undefined,
        });
        continue;
      }
      const model = new RestModel({
        serverVersion: remote.rsVersion,
        dialect: input.scenario.dialect,
        clusterName: remote.name,
        nodes: 3,
        users: [{ username: REMOTE_ADMIN, password, role: 'admin' }],
        bdbs: input.scenario.databases
          .filter((database) => database.participants.includes(remote.name))
          .map((database) => ({
            name: database.name,
            namespace: database.namespace,
            version: database.version,
            activeActive: true,
          })),
        actionDelayMs: 0,
      });
      const server = await startRestServer({ model, ca: input.ca, audit: input.audit });
      closers.push(server.close);
      endpoints.push({
        name: remote.name,
        // A host name, as an RERC's apiFqdnUrl must be (ctl refuses an IP address there); the
        // certificate names localhost, and the server listens on 127.0.0.1.
        host: 'localhost',
        port: server.port,
        username: REMOTE_ADMIN,
        password,
        reachable: true,
        model,
      });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { endpoints, close };
}

/** A TCP server that takes every connection and says nothing until it is closed. */
async function startSilentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  const port = await listenOnLoopback(server, undefined);
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
