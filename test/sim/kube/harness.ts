import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { parseYamlDocuments } from '../../../src/io/yaml-from-outside.js';
import type { KubeObject } from '../../../src/sim/kube/types.js';
import { AuditLog } from '../../../src/sim/audit.js';
import { writeKubeconfig } from '../../../src/sim/kube/kubeconfig.js';
import { type KubeServer, type KubeServerOptions, startKubeServer } from '../../../src/sim/kube/server.js';
import { type CertificateAuthority, createCertificateAuthority } from '../../../src/sim/tls.js';
import {
  helmPath,
  kubectlFor,
  makeToolSandbox,
  runTool,
  type ToolResult,
  type ToolSandbox,
} from '../../helpers/tools.js';

export const TOKEN = 'test-token-0123456789';

let sharedCa: Promise<CertificateAuthority> | undefined;

/** One CA per test process: generating keys is the slow part of starting a server. */
export function testCa(): Promise<CertificateAuthority> {
  sharedCa ??= createCertificateAuthority();
  return sharedCa;
}

export interface TestCluster {
  server: KubeServer;
  audit: AuditLog;
  sandbox: ToolSandbox;
  kubectl(args: string[], input?: string): Promise<ToolResult>;
  helm(major: 3 | 4, args: string[]): Promise<ToolResult>;
  close(): Promise<void>;
}

/** An emulator plus a private kubeconfig and tool homes for the real clients. */
export async function startTestCluster(
  options: Partial<Omit<KubeServerOptions, 'ca' | 'token'>> & { namespace?: string } = {},
): Promise<TestCluster> {
  const audit = new AuditLog();
  const server = await startKubeServer({ ca: await testCa(), token: TOKEN, audit, ...options });
  const sandbox = makeToolSandbox();
  // The client nearest the served minor, as a user's would be (1.32 unless the test picks one).
  const kubectl = kubectlFor(Number.parseInt(options.version?.minor ?? '32', 10));
  writeKubeconfig(sandbox.kubeconfig, {
    server: server.url,
    caPem: server.caPem,
    token: TOKEN,
    namespace: options.namespace ?? 'default',
    contextName: 'sim',
  });
  return {
    server,
    audit,
    sandbox,
    kubectl: (args, input) => runTool(kubectl, args, { env: sandbox.env, input }),
    helm: (major, args) => runTool(helmPath(major), args, { env: sandbox.env }),
    close: async () => {
      await server.close();
      sandbox.cleanup();
    },
  };
}

/** Fails with the tool's output when it did not exit 0. */
export function ok(result: ToolResult, what = 'command'): string {
  if (result.code !== 0) {
    throw new Error(`${what} exited ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
  return result.stdout;
}

/**
 * Seeds a namespace, the CustomResourceDefinitions of a bundle file and the cluster resource of
 * an example file into the emulator's store; returns the CRDs seeded. The client-node tests use
 * it with the simulator's bundle and our fixture, the upstream suite with the published ones.
 */
export function seedBundleAndCluster(
  cluster: TestCluster,
  namespace: string,
  files: { bundle: string; rec: string },
): KubeObject[] {
  const store = cluster.server.store;
  store.create(store.resolve('v1', 'Namespace'), { metadata: { name: namespace } });
  // Read as kubectl reads a bundle (the published quoting included): ctl's own manifest reader.
  const crds = (parseYamlDocuments(readFileSync(files.bundle, 'utf8')) as KubeObject[]).filter(
    (d) => d?.kind === 'CustomResourceDefinition',
  );
  for (const crd of crds)
    store.create(store.resolve('apiextensions.k8s.io/v1', 'CustomResourceDefinition'), crd);
  const example = parseAllDocuments(readFileSync(files.rec, 'utf8'))[0]!.toJSON() as KubeObject;
  store.create(store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster'), {
    ...example,
    metadata: { ...example.metadata, namespace },
  });
  return crds;
}
