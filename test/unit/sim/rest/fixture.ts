import { join } from 'node:path';
import { AuditLog } from '../../../../src/sim/audit.js';
import type { FaultRule } from '../../../../src/sim/rest/faults.js';
import { RestModel, type RestModelOptions } from '../../../../src/sim/rest/model.js';
import { type RunningRestServer, startRestServer } from '../../../../src/sim/rest/server.js';
import {
  type CertificateAuthority,
  createCertificateAuthority,
  type ServerCertificate,
} from '../../../../src/sim/tls.js';

/** One CA per test process: generating keys is the slow part. */
let sharedCa: Promise<CertificateAuthority> | undefined;
export function testCa(): Promise<CertificateAuthority> {
  sharedCa ??= createCertificateAuthority('ctl test CA');
  return sharedCa;
}

export const ADMIN = { username: 'admin@example.com', password: 'CANARY-P@ss-admin-7f3' };
export const EXPIRED = { username: 'old@example.com', password: 'CANARY-P@ss-old-91c' };
export const VIEWER = { username: 'viewer@example.com', password: 'CANARY-P@ss-view-2b8' };

export interface SimFixture {
  model: RestModel;
  audit: AuditLog;
  server: RunningRestServer;
  ca: CertificateAuthority;
  url: string;
  close(): Promise<void>;
}

/** A running management API emulator with three users, two modules and two databases. */
export async function startSim(
  options: Partial<RestModelOptions> & { faults?: FaultRule[]; certificate?: ServerCertificate } = {},
): Promise<SimFixture> {
  const ca = await testCa();
  const audit = new AuditLog();
  const { faults, certificate, ...modelOptions } = options;
  const model = new RestModel({
    serverVersion: '7.8.2-6',
    users: [
      { ...ADMIN, role: 'admin' },
      { ...EXPIRED, role: 'admin', passwordExpired: true },
      { ...VIEWER, role: 'db_viewer' },
    ],
    modules: [
      { name: 'search', version: '2.8.4', platforms: ['rhel8/x86_64'] },
      { name: 'ReJSON', version: '2.6.6', platforms: ['rhel8/x86_64', 'rhel9/x86_64'] },
    ],
    bdbs: [
      { name: 'db1', namespace: 'redis', version: '7.2', modules: [{ name: 'search', version: '2.8.4' }] },
      { name: 'aa1', namespace: 'redis', version: '7.2', activeActive: true },
    ],
    ...modelOptions,
  });
  const server = await startRestServer({ model, ca, audit, faults, certificate });
  return { model, audit, server, ca, url: server.url, close: () => server.close() };
}

/**
 * The environment of a ctl run against `sim` as its admin, with the CA in `caFile` and HOME and
 * the XDG folders inside `dir` (the e2e tests of `ctl auth token`).
 */
export function adminCtlEnv(sim: SimFixture, dir: string, caFile: string): Record<string, string> {
  const home = join(dir, 'home');
  return {
    HOME: home,
    XDG_STATE_HOME: join(home, 'state'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_CONFIG_HOME: join(home, 'config'),
    CTL_API_URL: sim.url,
    CTL_USERNAME: ADMIN.username,
    CTL_PASSWORD: ADMIN.password,
    CTL_CA_FILE: caFile,
  };
}
