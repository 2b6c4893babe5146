import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseYamlDocuments } from '../../src/io/yaml-from-outside.js';
import {
  assertExit,
  describeEntries,
  type KubeObject,
  startUpgradeSim,
  TARGET,
  type UpgradeSim,
  writesTo,
} from './upgrade-support.js';

/**
 * The operator step's server-side apply of the bundle's CRDs leaves them as the bundle has them,
 * read back with the real kubectl. client-node's models used to strip every
 * `x-kubernetes-preserve-unknown-fields` from them (6 on the REC CRD before, 0 after), so the
 * API server would then prune the open parts of every REC (reliability.md, "Found and fixed").
 */

const REC_CRD = 'redisenterpriseclusters.app.redislabs.com';

function countKey(value: unknown, key: string): number {
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + countKey(item, key), 0);
  if (value === null || typeof value !== 'object') return 0;
  return Object.entries(value).reduce((n, [k, v]) => n + (k === key ? 1 : 0) + countKey(v, key), 0);
}

/** The simulator's artifacts server (plain http on loopback), within 10 s. */
async function download(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return response.text();
}

describe('the operator step applies the bundle CRDs intact (e2e)', () => {
  let sim: UpgradeSim;
  before(async () => {
    sim = await startUpgradeSim('happy-path');
  });
  after(async () => {
    await sim?.close();
  });

  it('ctl upgrade run --only operator keeps every x-kubernetes-preserve-unknown-fields of the bundle', async () => {
    const template = sim.env.CTL_BUNDLE ?? '';
    assert.ok(template.startsWith('http://127.0.0.1:'), `the simulator serves the bundle (${template})`);
    // Read as kubectl reads it (the published quoting included): ctl's own manifest reader.
    const bundle = (
      parseYamlDocuments(await download(template.replaceAll('{version}', TARGET))) as KubeObject[]
    ).filter((object) => object?.kind === 'CustomResourceDefinition');
    const bundled = bundle.find((crd) => crd.metadata.name === REC_CRD);
    assert.ok(bundled, 'the bundle carries the REC CRD');
    const flags = countKey(bundled, 'x-kubernetes-preserve-unknown-fields');
    assert.ok(flags > 0, 'the bundled REC CRD has open parts');

    const mark = sim.cluster.audit.entries.length;
    const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--only', 'operator']);
    assertExit(result, 0);
    for (const crd of bundle) {
      const applies = writesTo(sim, `/customresourcedefinitions/${crd.metadata.name}`, mark);
      assert.ok(
        applies.some((e) => e.method === 'PATCH' && /[?&]fieldManager=ctl(&|$)/.test(e.path)),
        `ctl applied ${crd.metadata.name}:\n${describeEntries(applies)}`,
      );
    }

    for (const crd of bundle) {
      const live = await sim.get(['crd', crd.metadata.name]);
      assert.equal(
        countKey(live, 'x-kubernetes-preserve-unknown-fields'),
        countKey(crd, 'x-kubernetes-preserve-unknown-fields'),
        `${crd.metadata.name}: the flags of the bundle`,
      );
      // The whole schema of each version, as the bundle has it (enum, default, ... included).
      assert.deepEqual(live.spec?.versions, crd.spec?.versions, `${crd.metadata.name}: versions`);
    }
    const live = await sim.get(['crd', REC_CRD]);
    assert.equal(countKey(live, 'x-kubernetes-preserve-unknown-fields'), flags);
  });
});
