import 'reflect-metadata';
import { AuditLog } from '../../../src/sim/audit.js';
import { writeKubeconfig } from '../../../src/sim/kube/kubeconfig.js';
import { type KubeServer, type KubeServerOptions, startKubeServer } from '../../../src/sim/kube/server.js';
import { type CertificateAuthority, createCertificateAuthority } from '../../../src/sim/tls.js';
import {
  helmPath,
  kubectlPath,
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
    kubectl: (args, input) => runTool(kubectlPath(), args, { env: sandbox.env, input }),
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
