import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeClients, type KubeClients, loadKubeConfig } from '../../../src/kube/client.js';
import { AuditLog } from '../../../src/sim/audit.js';
import { writeKubeconfig } from '../../../src/sim/kube/kubeconfig.js';
import type { ReceivedBody } from '../../../src/sim/kube/resources.js';
import { type KubeServer, startKubeServer } from '../../../src/sim/kube/server.js';
import type { KubeObject } from '../../../src/sim/kube/types.js';
import { type CertificateAuthority, createCertificateAuthority } from '../../../src/sim/tls.js';

const TOKEN = 'watch-test-token-0123456789';
let sharedCa: Promise<CertificateAuthority> | undefined;

export interface Emulator {
  server: KubeServer;
  audit: AuditLog;
  kube: KubeClients;
  namespace: string;
  /** Creates an object in the store (no HTTP), e.g. create('v1', 'ConfigMap', {...}). */
  create(apiVersion: string, kind: string, object: Record<string, unknown>): KubeObject;
  /** Merge-patches an object in the store, optionally its status subresource. */
  patch(apiVersion: string, kind: string, name: string, body: unknown, status?: boolean): KubeObject;
  get(apiVersion: string, kind: string, name: string): KubeObject | undefined;
  /** Mutating requests (kube) seen so far. */
  writes(): string[];
  /** Every request body the emulator received so far, as received. */
  received(): ReceivedBody[];
  close(): Promise<void>;
}

/** The in-process Kubernetes API emulator with real client-node clients in namespace `redis`. */
export async function startEmulator(options: { controllers?: boolean } = {}): Promise<Emulator> {
  sharedCa ??= createCertificateAuthority();
  const audit = new AuditLog();
  const received: ReceivedBody[] = [];
  const server = await startKubeServer({
    onRequestBody: (body) => received.push(body),
    ca: await sharedCa,
    token: TOKEN,
    audit,
    controllers: options.controllers ?? false,
  });
  const namespace = 'redis';
  server.store.create(server.store.resolve('v1', 'Namespace'), { metadata: { name: namespace } });
  const dir = mkdtempSync(join(tmpdir(), 'ctl-watch-'));
  const file = join(dir, 'kubeconfig');
  writeKubeconfig(file, {
    server: server.url,
    caPem: server.caPem,
    token: TOKEN,
    namespace,
    contextName: 'sim',
  });
  const kube = await createKubeClients(await loadKubeConfig({ kubeconfig: file, env: {} }), () => {});
  const store = server.store;
  return {
    server,
    audit,
    kube,
    namespace,
    create: (apiVersion, kind, object) =>
      store.create(store.resolve(apiVersion, kind), {
        ...object,
        metadata: { namespace, ...(object.metadata as object) },
      } as KubeObject),
    patch: (apiVersion, kind, name, body, status = false) =>
      store.patch(
        store.resolve(apiVersion, kind),
        namespace,
        name,
        'merge',
        body,
        status ? { subresource: 'status' } : {},
      ).object,
    get: (apiVersion, kind, name) => store.get(store.resolve(apiVersion, kind), namespace, name),
    received: () => [...received],
    writes: () =>
      audit.entries.filter((entry) => entry.mutating).map((entry) => `${entry.method} ${entry.path}`),
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
