/**
 * JSON from outside nested deeper than ctl reads (MAX_JSON_DEPTH, src/json-read.ts): JSON.parse
 * takes any depth, but what ctl then does with the value recurses, and the stack ends at a few
 * thousand levels. A state file whose step outcome held 20,000 nested lists (40 KB) ended
 * `ctl upgrade status -o json` with "unexpected failure: Maximum call stack size exceeded". Each
 * source is driven here through the built ctl: a Kubernetes answer (a proxy in front of the
 * simulated cluster), the state in its ConfigMap (the same proxy), a management API answer (a
 * rewriting server), and the state file; each ends with an error naming where the JSON came
 * from, no stack trace. A state nested just within the bound prints as JSON and YAML.
 */

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MAX_JSON_DEPTH } from '../../src/json-read.js';
import { startKubeProxy, type KubeProxy } from './kube-proxy.js';
import { RawAnswer, startRewritingApi, type RewritingApi } from './rewriting-api.js';
import { type Bed, runOnBed, STACK_TRACE, startBed, TARGET, UPGRADE } from './support.js';

/** A JSON value nested `depth` lists deep: `[[[...]]]`. */
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const HOSTILE = 20_000;
const TOO_DEEP = new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`);

function assertNoCrash(result: { stdout: string; stderr: string }): void {
  const said = result.stdout + result.stderr;
  assert.doesNotMatch(said, /Maximum call stack|unexpected failure/);
  assert.doesNotMatch(result.stderr, STACK_TRACE);
}

describe('JSON from outside nested past the bound: a clear error naming the source, never a stack overflow', () => {
  let bed: Bed;
  let proxy: KubeProxy;
  let api: RewritingApi;
  /** What the proxy answers instead of the simulator, by request path (GET, not watch). */
  const kubeAnswers = new Map<RegExp, string>();
  let met = 0;

  before(async () => {
    bed = await startBed('happy-path');
    proxy = await startKubeProxy(bed, (req, res) => {
      if (req.method !== 'GET' || /[?&]watch=(true|1)\b/.test(req.url ?? '')) return false;
      const pathname = (req.url ?? '').split('?')[0] ?? '';
      const answer = [...kubeAnswers].find(([pattern]) => pattern.test(pathname))?.[1];
      if (answer === undefined) return false;
      met += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      return true;
    });
    api = await startRewritingApi('ctl-deep-json-');
  });
  after(async () => {
    await api?.close();
    await proxy?.close();
    await bed?.close();
  });

  test('a Kubernetes answer: the plan ends (exit 1) naming the request', async () => {
    kubeAnswers.clear();
    kubeAnswers.set(
      /\/redisenterpriseclusters$/,
      `{"apiVersion":"app.redislabs.com/v1","kind":"RedisEnterpriseClusterList","metadata":{},"items":[{"metadata":{"name":"rec","namespace":"redis"},"spec":{"deep":${nested(HOSTILE)}}}]}`,
    );
    met = 0;
    const plan = await runOnBed(bed, ['upgrade', 'plan', '--to', TARGET, '-o', 'json'], {
      env: { KUBECONFIG: proxy.kubeconfig },
    });
    assert.ok(met > 0, 'the deep answer was met');
    assert.equal(plan.code, 1, plan.stderr);
    assert.match(
      plan.stderr,
      /GET \/apis\/app\.redislabs\.com\/[^:]*\/redisenterpriseclusters[^:]*: the JSON is nested deeper/,
    );
    assertNoCrash(plan);
  });

  test('the state in its ConfigMap (anyone who may write ConfigMaps there): status ends naming it', async () => {
    kubeAnswers.clear();
    kubeAnswers.set(
      /\/configmaps\/ctl-upgrade-state-rec$/,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'ctl-upgrade-state-rec', namespace: 'redis', resourceVersion: '1' },
        data: { 'state.json': `{"steps":${nested(HOSTILE)}}` },
      }),
    );
    met = 0;
    const status = await runOnBed(
      bed,
      ['upgrade', 'status', '--state-store', 'configmap', '--cluster', 'rec', '-o', 'json'],
      { env: { KUBECONFIG: proxy.kubeconfig } },
    );
    assert.ok(met > 0, 'the deep ConfigMap was met');
    assert.equal(status.code, 1, status.stderr);
    assert.match(
      status.stderr,
      /ConfigMap configmap\/redis\/ctl-upgrade-state-rec is not a valid ctl state: it is nested deeper than 512 levels/,
    );
    assertNoCrash(status);
  });

  test('a management API answer: the plan says which request, and does not crash', async () => {
    api.use(bed.env, {
      '/v1/bdbs': () => new RawAnswer(`[{"uid":1,"name":"cache","deep":${nested(HOSTILE)}}]`),
    });
    const plan = await runOnBed(bed, ['upgrade', 'plan', '--to', TARGET, '-o', 'json'], { env: api.env });
    assert.match(plan.stdout + plan.stderr, /GET \/v1\/bdbs[^:]*: the JSON is nested deeper than 512 levels/);
    assertNoCrash(plan);
  });

  describe('the state file', () => {
    /** A state file of a finished run on the bed, its databases outcome replaced by `deep`. */
    let statePath: string;
    before(async () => {
      const run = await runOnBed(bed, UPGRADE);
      assert.equal(run.code, 0, run.stderr);
      statePath = path.join(bed.dir, 'deep-state.json');
    });
    const withOutcome = (depth: number): void => {
      const text = readFileSync(bed.statePath, 'utf8').replace(
        '"steps": {',
        `"steps": {"extra": {"status": "done", "outcome": {"deep": ${nested(depth)}}},`,
      );
      assert.ok(text.includes('"extra"'), 'the outcome was put in');
      writeFileSync(statePath, text);
    };

    test('nested past the bound: status -o json ends (exit 1) naming the file', async () => {
      withOutcome(HOSTILE);
      const status = await runOnBed(bed, ['upgrade', 'status', '--state', statePath, '-o', 'json']);
      assert.equal(status.code, 1, status.stderr);
      assert.ok(status.stderr.includes(statePath), status.stderr);
      assert.match(status.stderr, TOO_DEEP);
      assertNoCrash(status);
    });

    test('nested just within the bound: status prints it as JSON and as YAML', async () => {
      withOutcome(MAX_JSON_DEPTH - 10);
      for (const output of ['json', 'yaml']) {
        const status = await runOnBed(bed, ['upgrade', 'status', '--state', statePath, '-o', output]);
        assert.equal(status.code, 0, `-o ${output}: ${status.stderr}`);
        // YAML writes nested lists as `- - - ...`.
        assert.ok(
          status.stdout.includes(output === 'json' ? '[[[[[' : '- - - - -'),
          `-o ${output} printed the outcome`,
        );
        assertNoCrash(status);
      }
    });
  });
});
