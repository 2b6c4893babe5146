import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';

/**
 * The young generation's bound (src/io/young-generation.ts) in a process of its own (a V8 flag is
 * process-wide): a program that keeps 400,000 small objects, with and without the bound, reports
 * the largest size of V8's new space it saw. Sizes, not times: V8's own heap statistics.
 */
function peakNewSpaceMb(bound: boolean): { start: number; peak: number } {
  const module = new URL('../../../src/io/young-generation.js', import.meta.url).href;
  const script = `
    import v8 from 'node:v8';
    import { boundYoungGeneration } from ${JSON.stringify(module)};
    const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const start = newSpace();
    if (${bound}) boundYoungGeneration();
    const kept = [];
    let peak = start;
    for (let i = 0; i < 400000; i++) {
      kept.push({ i, name: 'db-' + i, tags: [i] });
      if (i % 1000 === 0) peak = Math.max(peak, newSpace());
    }
    console.log(JSON.stringify({ start: start / 1048576, peak: peak / 1048576, kept: kept.length }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out) as { start: number; peak: number };
}

describe('young generation bound (issue 39: peak RSS of a plan of 10,000 databases on Node 24)', () => {
  const major = Number(process.versions.node.split('.')[0]);

  it(`Node ${major}: ${major >= 24 ? 'the new space stays near its size at the call' : 'nothing changes (Node 22 keeps its 16 MB semi-spaces)'}`, () => {
    const free = peakNewSpaceMb(false);
    const bounded = peakNewSpaceMb(true);
    if (major >= 24) {
      // Unbounded, Node 24 grows it to 64 MB for this program; bounded it stays at a few MB (at most half of that: V8 may still grow it once).
      assert.ok(free.peak >= 16, `without the bound the new space grew to ${free.peak} MB only`);
      assert.ok(
        bounded.peak <= free.peak / 2,
        `bounded, the new space grew to ${bounded.peak} MB (unbounded: ${free.peak} MB)`,
      );
    } else {
      assert.equal(bounded.peak, free.peak);
    }
  });
});
