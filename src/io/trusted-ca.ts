import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { contextFilePath } from './context-folder.js';
import { pathSegment } from './path-segment.js';

/** Which cluster a pinned certificate belongs to: the kubeconfig context, namespace and REC. */
export interface TrustedCaIdentity {
  context: string;
  namespace: string;
  cluster: string;
}

/**
 * `$XDG_CONFIG_HOME/ctl/trusted/<context>/<namespace>/<cluster>.pem`: where `ctl auth trust`
 * keeps a cluster's management API certificate, read through the Kubernetes API. Configuration,
 * not state: it outlives runs, as a kubeconfig's CA does. Each part made path-safe as the state
 * file's (./path-segment.ts); a certificate pinned by a ctl that kept a long context name whole
 * is found in that folder (./context-folder.ts).
 */
export function trustedCaPath(identity: TrustedCaIdentity, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return contextFilePath(join(base, 'ctl', 'trusted'), identity.context, [
    pathSegment(identity.namespace),
    `${pathSegment(identity.cluster)}.pem`,
  ]);
}

/**
 * The CA file a connection to this cluster uses when none is given (--ca-file, CTL_CA_FILE) and
 * --insecure is not: the certificate `ctl auth trust` pinned, if it did. Nothing else is ever
 * trusted by default: without a pin, Node's own roots decide.
 */
export function pinnedCaFile(
  given: { caFile?: string | undefined; insecure: boolean },
  identity: TrustedCaIdentity,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (given.caFile !== undefined || given.insecure) return given.caFile;
  const path = trustedCaPath(identity, env);
  return existsSync(path) ? path : undefined;
}
