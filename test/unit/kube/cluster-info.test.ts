/**
 * kubectl's checks of the kubeconfig cluster it uses (client-go tools/clientcmd/validation.go
 * validateClusterInfo: the proxy-url, CA file and data both, a CA file that does not open;
 * src/kube/cluster-info.ts, proxy-url.ts) and of the user's client certificate and key files
 * (validateAuthInfo; auth-info.ts, kubeconfig-file-open.ts), made by ctl when the kubeconfig is
 * loaded, before any request: exit 2, kubectl's words, what to change. Each expected text is what
 * kubectl 1.28 and 1.35 print for the same kubeconfig (`kubectl get ns`, run by hand when this test
 * was written), after kubectl's `error: ` (several: `Error in configuration:` and a `* ` line each). Before, ctl refused none of these up
 * front: a missing file failed the first request, a proxy-url failed (or not) as client-node made
 * of it.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { loadKubeConfig } from '../../../src/kube/client.js';
import { goUrlParseFails } from '../../../src/kube/proxy-url.js';
import { tempDir } from '../../helpers/temp.js';
import { kubeconfigOfClusters, kubeconfigRefusal } from '../../helpers/kubeconfig-files.js';

const kubeconfig = (folder: string, clusters: Record<string, object>, user?: object) =>
  kubeconfigOfClusters(dir, folder, clusters, user);
const dir = tempDir('ctl-cluster-info-');

const server = 'https://127.0.0.1:6443';

/** Each proxy-url and what kubectl 1.35 says of it (undefined: kubectl takes it). */
const proxyUrls: [string, string | undefined][] = [
  ['http://h:3128', undefined],
  ['https://h', undefined],
  ['socks5://h:1080', undefined],
  ['HTTP://h:1', undefined],
  ['http://user:p@h:1', undefined],
  ['http://u@s@h:1', undefined],
  ['http://[::1]:1', undefined],
  ['http://[fe80::1%25eth0]:1', undefined],
  ['http://h:1?%zz', undefined],
  ['http://h:1#ok', undefined],
  ['http:h', undefined],
  ['http:/h', undefined],
  ['http://h:', undefined],
  ['http://h:99999', undefined],
  ['http://%c3%a9:1', undefined],
  ['http://h_1:1', undefined],
  ['http://h:1/a:b', undefined],
  ['http://h~1:1', undefined],
  ['127.0.0.1:3128', 'could not parse: 127.0.0.1:3128'],
  ['http://[::1', 'could not parse: http://[::1'],
  ['http://h:abc', 'could not parse: http://h:abc'],
  ['http://h%zz:1', 'could not parse: http://h%zz:1'],
  [':1', 'could not parse: :1'],
  ['http://h:1/%zz', 'could not parse: http://h:1/%zz'],
  ['http://us er@h:1', 'could not parse: http://us er@h:1'],
  ['http://h 1:1', 'could not parse: http://h 1:1'],
  ['http://h|1:1', 'could not parse: http://h|1:1'],
  ['http://[::1]x', 'could not parse: http://[::1]x'],
  ['http://[::1]:1:2', 'could not parse: http://[::1]:1:2'],
  ['http://[::1%eth0]:1', 'could not parse: http://[::1%eth0]:1'],
  ['http://[zz]:1', 'could not parse: http://[zz]:1'],
  ['http://h:1#%zz', 'could not parse: http://h:1#%zz'],
  ['1http://h', 'could not parse: 1http://h'],
  ['http://%41h:1', 'could not parse: http://%41h:1'],
  ['http://h{1}:1', 'could not parse: http://h{1}:1'],
  ['http://h%2:1', 'could not parse: http://h%2:1'],
  ['http://u%zz@h:1', 'could not parse: http://u%zz@h:1'],
  ['http://h\\1', 'could not parse: http://h\\1'],
  ['http://h^1:1', 'could not parse: http://h^1:1'],
  ['http://h`1:1', 'could not parse: http://h`1:1'],
  ['proxy.example:3128', 'unsupported scheme "proxy.example", must be http, https, or socks5'],
  ['socks://h', 'unsupported scheme "socks", must be http, https, or socks5'],
  ['socks5h://h:1', 'unsupported scheme "socks5h", must be http, https, or socks5'],
  ['///h', 'unsupported scheme "", must be http, https, or socks5'],
  ['//h:1', 'unsupported scheme "", must be http, https, or socks5'],
  ['h', 'unsupported scheme "", must be http, https, or socks5'],
  ['/p', 'unsupported scheme "", must be http, https, or socks5'],
  ['a/b:c', 'unsupported scheme "", must be http, https, or socks5'],
];

describe("kubectl's checks of the kubeconfig cluster in use, and of the files the context names", () => {
  it("a proxy-url kubectl refuses: refused when loaded, in kubectl's words; the others load", async () => {
    const file = kubeconfig(
      'proxy',
      Object.fromEntries(proxyUrls.map(([url], index) => [`p${index}`, { server, 'proxy-url': url }])),
    );
    for (const [index, [url, kubectl]] of proxyUrls.entries()) {
      const context = `p${index}`;
      if (kubectl === undefined) {
        const loaded = await loadKubeConfig({ kubeconfig: file, context, env: {} });
        assert.equal(loaded.config.getCurrentCluster()?.proxyUrl, url, url);
        continue;
      }
      const error = await kubeconfigRefusal(file, context);
      // kubectl's words, but a user and password in the URL shown as `***@`, as ctl shows any.
      const masked = (text: string) => text.replace(/\/\/[^/]*@/, '//***@');
      assert.equal(
        error.message,
        `the kubeconfig's cluster c-${context} is not valid; kubectl says: invalid 'proxy-url' ${JSON.stringify(masked(url))} for cluster "c-${context}": ${masked(kubectl)}`,
        url,
      );
      assert.match(
        error.hint ?? '',
        new RegExp(`^Fix the proxy-url of cluster c-${context}: a URL of scheme http, https or socks5`),
        url,
      );
    }
  });

  it('url.Parse as Go: a control character is refused', () => {
    assert.equal(goUrlParseFails('http://h\x7f:1'), true);
    assert.equal(goUrlParseFails('http://h\t:1'), true);
    assert.equal(goUrlParseFails('http://h:1'), false);
  });

  it("a proxy-url's password is never shown", async () => {
    const file = kubeconfig('proxy-secret', {
      secret: { server, 'proxy-url': 'ftp://ops:hunter2@proxy:21' },
    });
    const error = await kubeconfigRefusal(file, 'secret');
    assert.equal(
      error.message,
      `the kubeconfig's cluster c-secret is not valid; kubectl says: invalid 'proxy-url' "ftp://***@proxy:21" for cluster "c-secret": unsupported scheme "ftp", must be http, https, or socks5`,
    );
    assert.ok(!`${error.message} ${error.hint}`.includes('hunter2'));
  });

  it('the CA as a file and as data, a CA file that does not open: refused, the path taken from the kubeconfig folder', async () => {
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, 'not read as a certificate here');
    const file = kubeconfig('ca', {
      both: { server, 'certificate-authority': ca, 'certificate-authority-data': 'YQ==' },
      missing: { server, 'certificate-authority': 'missing-ca.pem' },
      notDir: { server, 'certificate-authority': `${ca}/inside.pem` },
      bothMissing: {
        server,
        'certificate-authority': 'missing-ca.pem',
        'certificate-authority-data': 'YQ==',
      },
      good: { server, 'certificate-authority': ca },
    });
    const missing = join(dir, 'ca', 'missing-ca.pem');
    const expected: Record<string, string> = {
      both: 'certificate-authority-data and certificate-authority are both specified for c-both. certificate-authority-data will override.',
      missing: `unable to read certificate-authority ${missing} for c-missing due to open ${missing}: no such file or directory`,
      notDir: `unable to read certificate-authority ${ca}/inside.pem for c-notDir due to open ${ca}/inside.pem: not a directory`,
      bothMissing: `Error in configuration:\n* certificate-authority-data and certificate-authority are both specified for c-bothMissing. certificate-authority-data will override.\n* unable to read certificate-authority ${missing} for c-bothMissing due to open ${missing}: no such file or directory`,
    };
    for (const [context, kubectl] of Object.entries(expected)) {
      const error = await kubeconfigRefusal(file, context);
      assert.equal(
        error.message,
        `the kubeconfig's cluster c-${context} is not valid; kubectl says: ${kubectl}`,
        context,
      );
      assert.match(
        error.hint ?? '',
        context === 'both'
          ? /^Keep one of certificate-authority and certificate-authority-data in cluster c-both\.$/
          : /Fix the path of certificate-authority in cluster c-\w+ \(a relative one is taken from the kubeconfig's folder\), or put the file there\./,
        context,
      );
    }
    assert.equal((await loadKubeConfig({ kubeconfig: file, context: 'good', env: {} })).contextName, 'good');
  });

  it("a client certificate or key file that does not open: refused in kubectl's words, with the cluster's problems after the user's", async () => {
    const cert = join(dir, 'client.crt');
    writeFileSync(cert, 'not read as a certificate here');
    const files = { 'client-certificate': 'nocert.pem', 'client-key': 'nokey.pem' };
    const noCert = join(dir, 'user-files', 'nocert.pem');
    const noKey = join(dir, 'user-files', 'nokey.pem');
    const file = kubeconfig('user-files', { only: { server } }, files);
    const error = await kubeconfigRefusal(file, 'only');
    assert.equal(
      error.message,
      `the kubeconfig's user u is not valid; kubectl says: Error in configuration:\n* unable to read client-cert ${noCert} for u due to open ${noCert}: no such file or directory\n* unable to read client-key ${noKey} for u due to open ${noKey}: no such file or directory`,
    );
    assert.match(
      error.hint ?? '',
      /^Fix the path of client-certificate in user u \(a relative one is taken from the kubeconfig's folder\), or put the file there\. Fix the path of client-key in user u/,
    );

    // A user and its cluster both wrong: one error, the user's first (ConfirmUsable's order).
    const both = kubeconfig(
      'user-and-cluster',
      { both: { server, 'proxy-url': 'ftp://proxy' } },
      { 'client-certificate': cert, 'client-key': 'nokey.pem', token: 't', username: 'ops' },
    );
    const noKey2 = join(dir, 'user-and-cluster', 'nokey.pem');
    const bothError = await kubeconfigRefusal(both, 'both');
    assert.equal(
      bothError.message,
      `the kubeconfig's user u and its cluster c-both are not valid; kubectl says: Error in configuration:\n* unable to read client-key ${noKey2} for u due to open ${noKey2}: no such file or directory\n* more than one authentication method found for u; found [token basicAuth], only one is allowed\n* invalid 'proxy-url' "ftp://proxy" for cluster "c-both": unsupported scheme "ftp", must be http, https, or socks5`,
    );
  });

  it('only the context in use is checked: a cluster of another context may be refused by kubectl, unused', async () => {
    const file = kubeconfig('unused', {
      good: { server },
      bad: { server, 'proxy-url': 'ftp://proxy', 'certificate-authority': 'missing.pem' },
    });
    assert.equal((await loadKubeConfig({ kubeconfig: file, env: {} })).contextName, 'good');
    await assert.rejects(loadKubeConfig({ kubeconfig: file, context: 'bad', env: {} }), UsageError);
  });
});
