/**
 * kubectl's checks of the kubeconfig cluster it is about to use, made before any request:
 * kubernetes/client-go (read at its commit 32ce75a7d) tools/clientcmd/validation.go
 * validateClusterInfo, run by ConfirmUsable on the context in use only, after validateAuthInfo
 * and into the same error (auth-info.ts usableRefusal). It refuses:
 * - a `proxy-url` Go's url.Parse refuses, or whose scheme is not http, https or socks5
 *   (helpers.go parseProxyURL; ./proxy-url.ts);
 * - certificate-authority beside certificate-authority-data;
 * - a certificate-authority file that does not open (`unable to read certificate-authority ...`).
 * Its `no server found for cluster` never reaches a kubectl user: kubectl's flags give every
 * cluster the default server http://localhost:8080 first (clientcmd.ClusterDefaults), and kubectl
 * sends its requests there. ctl refuses the cluster in use without a server (client.ts
 * refuseUnusable), rather than talk to a server on this machine the kubeconfig never named; a
 * cluster without one that the context in use does not name is left alone, as kubectl leaves it
 * (kubeconfig-text.ts lenientEntries; client-node's reader refused the whole file).
 *
 * client-node checks none of these: it read the CA file over the CA data, refused a proxy-url
 * only of a scheme it has no agent for, and only when a request was made.
 */

import type { Cluster } from '@kubernetes/client-node/dist/config_types.js';
import { oneLine } from '../io/safe-text.js';
import type { Problem } from './auth-info.js';
import { openHint } from './kubeconfig-file-open.js';
import { proxyUrlProblem } from './proxy-url.js';

/** Go's `%q` of a text: quotes, and its backslashes, quotes and control characters escaped. */
function goQuoted(text: string): string {
  return oneLine(JSON.stringify(text));
}

/** A URL as a message shows it: a user and password in it as `***@` (server-url.ts says why). */
function withoutUserinfo(url: string): string {
  return url.replace(/^([^/?#@]*\/\/)?[^/?#]*@/, (_, scheme: string | undefined) => `${scheme ?? ''}***@`);
}

/**
 * validateClusterInfo's errors for `cluster` (client-node's Cluster: its certificate-authority
 * made absolute from the kubeconfig's folder, as kubectl's loader makes it), in its order, each
 * with what to change. `opened` tells whether a file opens (kubeconfig-file-open.ts openProblem).
 */
export function clusterInfoProblems(
  cluster: Cluster,
  opened: (path: string, field: string) => string | undefined,
): Problem[] {
  const problems: Problem[] = [];
  const name = oneLine(cluster.name);
  const proxyUrl: unknown = cluster.proxyUrl;
  if (typeof proxyUrl === 'string' && proxyUrl !== '') {
    const shown = withoutUserinfo(proxyUrl);
    const problem = proxyUrlProblem(proxyUrl, oneLine(shown));
    if (problem) {
      problems.push({
        kubectl: `invalid 'proxy-url' ${goQuoted(shown)} for cluster ${goQuoted(cluster.name)}: ${problem}`,
        hint: `Fix the proxy-url of cluster ${name}: a URL of scheme http, https or socks5, or remove it.`,
      });
    }
  }
  const caFile: unknown = cluster.caFile;
  const caData: unknown = cluster.caData;
  const hasFile = typeof caFile === 'string' ? caFile !== '' : caFile !== undefined && caFile !== null;
  if (hasFile && caData !== undefined && caData !== null && String(caData) !== '') {
    problems.push({
      kubectl: `certificate-authority-data and certificate-authority are both specified for ${name}. certificate-authority-data will override.`,
      hint: `Keep one of certificate-authority and certificate-authority-data in cluster ${name}.`,
    });
  }
  if (hasFile) {
    const path = String(caFile);
    const problem = opened(path, 'certificate-authority');
    if (problem) {
      problems.push({
        kubectl: `unable to read certificate-authority ${path} for ${name} due to ${problem}`,
        hint: openHint(
          problem,
          path,
          `Fix the path of certificate-authority in cluster ${name} (a relative one is taken from the kubeconfig's folder), or put the file there.`,
        ),
      });
    }
  }
  return problems;
}
