/**
 * Bounded inputs: the plan reads the operator's helm release record (the Secret
 * `sh.helm.release.v1.<release>.v<n>`, base64 of gzip) for a pinned operator image
 * (src/planning/helm-values.ts). Whoever can write Secrets in the namespace can make that record
 * a gzip bomb: under helm's 1 MiB it inflated to 700 MiB, and `ctl upgrade plan` rose from about
 * 150 MB to 1.5 GB of memory, enough for a CI runner to kill it. Now the record inflates to at most
 * MAX_RELEASE_BYTES, and a larger one is left unread like any unreadable record.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createGzip } from 'node:zlib';
import { MAX_RELEASE_BYTES } from '../../src/planning/helm-values.js';
import { figure, resultAndPeakMemory, spawnOnBed, startBed, TARGET } from './support.js';

const MIB = 1024 * 1024;
const INFLATED_MIB = 700;

/** gzip of `mib` MiB of spaces, made a MiB at a time (the test never holds the inflated text). */
async function gzipBomb(mib: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => parts.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  const block = Buffer.alloc(MIB, 0x20);
  for (let i = 0; i < mib; i += 1) {
    if (!gzip.write(block)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await done;
  return Buffer.concat(parts);
}

describe('a helm release record that is a gzip bomb', () => {
  test(`inflating to ${INFLATED_MIB} MiB: the plan reads at most ${MAX_RELEASE_BYTES / MIB} MiB of it`, async () => {
    const bed = await startBed('helm-installed');
    try {
      const bomb = await gzipBomb(INFLATED_MIB);
      assert.ok(bomb.length < MIB, `the bomb is ${bomb.length} bytes, under helm's 1 MiB`);
      const { store } = bed.cluster.kube;
      const secrets = store.resolve('v1', 'Secret');
      const record = store
        .all(secrets, bed.cluster.scenario.namespace)
        .find((secret) => (secret.metadata.labels as Record<string, string> | undefined)?.owner === 'helm');
      assert.ok(record, 'the helm release record exists');
      // helm's Secret driver: data.release = base64(base64(gzip(release JSON))).
      const release = Buffer.from(bomb.toString('base64')).toString('base64');
      store.update(secrets, { ...record, data: { ...(record.data as object), release } });

      const plan = spawnOnBed(bed, ['upgrade', 'plan', '--to', TARGET, '-o', 'json'], { timeoutMs: 90_000 });
      const { result, peak } = await resultAndPeakMemory(plan, 10);
      figure(
        `helm record bomb (${INFLATED_MIB} MiB inflated): plan peak memory ${Math.round(peak / MIB)} MiB`,
      );
      assert.ok([0, 3].includes(result.code ?? -1), `plan exit ${result.code}: ${result.stderr.slice(-800)}`);
      assert.ok(JSON.parse(result.stdout).checks.length > 0, 'the plan was made');
      assert.ok(peak > 0, 'the memory of ctl was read');
      assert.ok(peak < 400 * MIB, `ctl held ${Math.round(peak / MIB)} MiB at its peak`);
    } finally {
      await bed.close();
    }
  });
});
