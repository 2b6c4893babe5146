/**
 * The plan's artifact probes asked in two goes (src/planning/target-available.ts ArtifactProbes):
 * the final target's as soon as the snapshot's first answers settle the method and the platform,
 * the hops' other targets after the path is planned. Each artifact is asked for once, and the
 * answers are those probeTargetArtifacts gives in one go. The server is local; no test reaches a
 * network.
 */

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { helmAvailableReleases } from '../../../src/planning/helm-index.js';
import { ArtifactProbes, probeTargetArtifacts } from '../../../src/planning/target-available.js';
import type { OperatorBasis, Snapshot } from '../../../src/planning/snapshot.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

const NO_PROXY_ENV: NodeJS.ProcessEnv = {};

function basisOf(snapshot: Snapshot): OperatorBasis {
  return {
    namespace: snapshot.namespace,
    platform: snapshot.platform,
    operator: snapshot.operator,
    olmOwned: snapshot.olm !== undefined,
  };
}

describe('ArtifactProbes', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/charts/index.yaml') {
        // 99.0.0-1: a release newer than any catalog, for the lookup of newer releases.
        res
          .writeHead(200)
          .end('entries:\n  redis-enterprise-operator:\n    - version: 7.8.2-6\n    - version: 99.0.0-1\n');
        return;
      }
      res.writeHead(req.url?.includes('7.8.2-6') || req.url?.includes('7.6.4-8') ? 200 : 404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('the final target asked early and a hop after: each bundle once, the same answers as in one go', async () => {
    const snapshot = makeSnapshot();
    const target = makeTarget({ bundle: `${base}/bundles/{version}/bundle.yaml` });
    const hop = { ...target, operator: '7.6.4-8' };
    seen.length = 0;
    const probes = new ArtifactProbes({ env: NO_PROXY_ENV });
    probes.startFinal(target, basisOf(snapshot));
    assert.deepEqual(seen, [], 'asked, not yet answered');
    const early = await probes.answer(snapshot, [target, hop]);
    // The admission step applies webhook.yaml next to each bundle (the fixture's operator has its webhook).
    assert.deepEqual(seen.sort(), [
      'HEAD /bundles/7.6.4-8/admission/webhook.yaml',
      'HEAD /bundles/7.6.4-8/bundle.yaml',
      'HEAD /bundles/7.8.2-6/admission/webhook.yaml',
      'HEAD /bundles/7.8.2-6/bundle.yaml',
    ]);

    seen.length = 0;
    const inOneGo = await probeTargetArtifacts(snapshot, [target, hop], { env: NO_PROXY_ENV });
    assert.equal(seen.length, 4);
    assert.deepEqual(early.artifacts, inOneGo.artifacts);
    assert.deepEqual(
      early.artifacts?.map((a) => [a.key, a.found]),
      [
        [`bundle ${base}/bundles/7.8.2-6/bundle.yaml`, true],
        [`bundle ${base}/bundles/7.8.2-6/admission/webhook.yaml`, true],
        [`bundle ${base}/bundles/7.6.4-8/bundle.yaml`, true],
        [`bundle ${base}/bundles/7.6.4-8/admission/webhook.yaml`, true],
      ],
    );
  });

  it('a helm-installed operator: the repository index asked once, early; OLM: nothing asked', async () => {
    const helm = makeSnapshot((s) => {
      if (s.operator) s.operator.helmRelease = { name: 'redis-enterprise-operator', namespace: 'redis' };
    });
    const target = makeTarget({ helmRepo: `${base}/charts` });
    seen.length = 0;
    const probes = new ArtifactProbes({ env: NO_PROXY_ENV });
    probes.startFinal(target, basisOf(helm));
    const answered = await probes.answer(helm, [target]);
    assert.deepEqual(seen, ['GET /charts/index.yaml']);
    assert.equal(answered.artifacts?.[0]?.found, true);
    // The plan's look for releases newer than the catalog reads the index the probe read.
    const newer = await helmAvailableReleases(answered, { method: 'auto', helm: target.helm });
    assert.deepEqual(seen, ['GET /charts/index.yaml'], 'the index read once');
    assert.deepEqual(newer, [
      {
        operator: '99.0.0-1',
        clusterVersion: null,
        foundIn: `helm repository ${base}/charts, chart redis-enterprise-operator`,
      },
    ]);
    // Without the probe's answer it reads the index itself, and finds the same.
    assert.deepEqual(await helmAvailableReleases(helm, { method: 'auto', helm: target.helm }), newer);
    assert.deepEqual(seen, ['GET /charts/index.yaml', 'GET /charts/index.yaml']);

    const olm = makeSnapshot((s) => {
      s.olm = { csv: 'redis-enterprise-operator.v7.4.6-2', installPlans: [] };
    });
    seen.length = 0;
    const olmProbes = new ArtifactProbes({ env: NO_PROXY_ENV });
    olmProbes.startFinal(target, basisOf(olm));
    const none = await olmProbes.answer(olm, [target]);
    assert.deepEqual(seen, []);
    assert.deepEqual(none.artifacts, []);
  });
});
