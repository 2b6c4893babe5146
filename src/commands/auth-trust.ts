import { writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { GlobalOptions } from './options.js';
import type { Io } from '../io/io.js';
import { makeDirectories } from '../io/make-directories.js';
import { shellQuote } from '../io/shell-words.js';

export interface AuthTrustInput {
  globals: Pick<GlobalOptions, 'kubeconfig' | 'context' | 'namespace' | 'cluster'>;
  io: Io;
  env: NodeJS.ProcessEnv;
  /** `--out`: where to write it instead of the cluster's pinned file (then pass it as --ca-file). */
  out: string | undefined;
}

/**
 * `ctl auth trust`: the first contact with a cluster's management API made safe. Its
 * certificate is read through the Kubernetes API (src/kube/api-certificate.ts), the channel
 * the kubeconfig already trusts; its SHA-256 fingerprint is printed; it is saved as this
 * cluster's pinned CA file, which ctl then uses for this cluster whenever no --ca-file is given
 * (src/io/trusted-ca.ts). Nothing is trusted without this command: a certificate that changes
 * later fails the TLS check again, and running this again is a decision, made in the open.
 */
export async function runAuthTrust(input: AuthTrustInput): Promise<void> {
  const { io } = input;
  const access = await import('../kube/management-access.js');
  const kube = await access.openKubeAccess({ globals: input.globals, env: input.env, io });
  const cluster = await access.findManagedCluster(kube, input.globals.cluster);
  const { CLUSTER_RESOURCE } = await import('../kube/reads.js');
  const rec = (await kube.reads.listCustomObjects(CLUSTER_RESOURCE, cluster.namespace)).find(
    (object) => object.metadata?.name === cluster.name,
  );
  const { readApiCertificate } = await import('../kube/api-certificate.js');
  const certificate = await readApiCertificate(kube, cluster, rec);
  const { trustedCaPath } = await import('../io/trusted-ca.js');
  const path =
    input.out ??
    trustedCaPath(
      { context: kube.loaded.contextName, namespace: cluster.namespace, cluster: cluster.name },
      input.env,
    );
  await makeDirectories(dirname(path), 0o700);
  await writeFile(path, certificate.pem, { mode: 0o644 });
  if (io.output === 'json') {
    io.json({
      path,
      fingerprint: `sha256:${certificate.fingerprint}`,
      subject: certificate.subject,
      names: certificate.names,
      validTo: certificate.validTo,
      source: certificate.source,
    });
    return;
  }
  io.info(
    `read the management API certificate of ${cluster.namespace}/${cluster.name} from ${certificate.source}`,
  );
  io.info(`  subject  ${certificate.subject}`);
  io.info(`  names    ${certificate.names || '(none)'}`);
  io.info(`  expires  ${certificate.validTo}`);
  io.info(`  SHA-256  ${certificate.fingerprint}`);
  io.info(
    input.out === undefined
      ? `pinned: ctl trusts this certificate for ${cluster.namespace}/${cluster.name} (context ${kube.loaded.contextName}) whenever no --ca-file is given; if it changes, TLS fails again until you run ctl auth trust again`
      : `saved: pass --ca-file ${shellQuote(path)} (or set CTL_CA_FILE) to trust it`,
  );
  io.data(path);
}
