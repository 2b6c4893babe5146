/**
 * The state is written redacted (src/run/state-store.ts withRedactedSaves). A step that fails
 * records its error in the state, and the error quotes the server: here a Kubernetes API (a
 * proxy in front of the simulated cluster) refuses the cluster step's patch with a message that
 * quotes the request's bearer token, as an auth proxy echoing the Authorization header would.
 * ctl's output redacted it, but the state file held it, and with `--state-store configmap` the
 * state went into a ConfigMap in the cluster, for everyone who may read ConfigMaps there. The
 * `--report` file (kept as a CI artifact) held it too: only its top-level error was redacted.
 */

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startKubeProxy } from './kube-proxy.js';
import { runOnBed, startBed, UPGRADE } from './support.js';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile());
}

describe('a step error quoting a secret is saved redacted', () => {
  for (const store of ['file', 'configmap'] as const) {
    test(`--state-store ${store}: the cluster step refused with the token quoted`, async () => {
      const bed = await startBed('happy-path');
      let refused = 0;
      const proxy = await startKubeProxy(bed, (req, res) => {
        if (req.method !== 'PATCH' || !/\/redisenterpriseclusters\//.test(req.url ?? '')) return false;
        refused += 1;
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Forbidden',
            code: 403,
            message: `policy denied PATCH for the request with ${req.headers.authorization ?? ''}; token=${(req.headers.authorization ?? '').replace(/^Bearer /, '')}`,
          }),
        );
        return true;
      });
      try {
        const report = path.join(bed.dir, 'report.json');
        const run = await runOnBed(bed, [...UPGRADE, '--state-store', store, '--report', report], {
          env: { KUBECONFIG: proxy.kubeconfig },
        });
        assert.ok(refused > 0, 'the cluster step met the refusal');
        assert.notEqual(run.code, 0, run.stderr.slice(-1000));
        assert.match(run.stderr, /policy denied PATCH/);
        assert.ok(!(run.stdout + run.stderr).includes(proxy.token), 'ctl printed the token');

        const saved: { where: string; text: string }[] = [...filesUnder(bed.stateDir), report].map(
          (file) => ({
            where: file,
            text: readFileSync(file, 'utf8'),
          }),
        );
        const { store: objects } = bed.cluster.kube;
        for (const configMap of objects.all(objects.resolve('v1', 'ConfigMap'))) {
          saved.push({ where: `ConfigMap ${configMap.metadata.name}`, text: JSON.stringify(configMap) });
        }
        // The state (file or ConfigMap) and the --report file both keep the step's error.
        const kept = saved.filter(({ text }) => text.includes('policy denied PATCH'));
        assert.ok(kept.length >= 2, `the step's error was saved (${kept.map((s) => s.where).join(', ')})`);
        for (const { text } of kept) assert.match(text, /\[REDACTED\]/);
        const leaks = saved.filter(({ text }) => text.includes(proxy.token)).map(({ where }) => where);
        assert.deepEqual(leaks, [], 'the token was saved');
      } finally {
        await proxy.close();
        await bed.close();
      }
    });
  }
});
