import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { repoRoot, runCtl, spawnCtl } from '../helpers/run-ctl.js';
import { assertExit, TARGET, withUpgradeSim } from './upgrade-support.js';

/** Issue 30, kubectl's habits: -o yaml, -v=N, TERM=dumb, and run's result on stdout. */

const yamlDocs = (text: string): unknown[] => {
  assert.match(text, /^---\n/, 'YAML documents, not JSON');
  return parseAllDocuments(text).map((d) => d.toJSON() as unknown);
};

describe("kubectl's habits (e2e)", () => {
  it('-o yaml: the same data as -o json, for plan, steps and run (one YAML document per event)', async () => {
    const steps = await runCtl(['upgrade', 'steps', '-o', 'json']);
    const stepsYaml = await runCtl(['upgrade', 'steps', '-o', 'yaml']);
    assertExit(stepsYaml, 0, 'steps -o yaml');
    assert.deepEqual(yamlDocs(stepsYaml.stdout), [JSON.parse(steps.stdout)]);
    const bad = await runCtl(['upgrade', 'steps', '-o', 'xml']);
    assertExit(bad, 2, '-o xml');
    assert.match(bad.stderr, /text, json, yaml, name or jsonpath=TEMPLATE, not/);

    await withUpgradeSim('happy-path', async (sim) => {
      const json = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      const yaml = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'yaml']);
      assertExit(yaml, 0, 'plan -o yaml');
      assert.deepEqual(yamlDocs(yaml.stdout), [JSON.parse(json.stdout)]);
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run', '-o', 'yaml']);
      assertExit(run, 0, 'run --dry-run -o yaml');
      const events = yamlDocs(run.stdout) as { type: string; ts: string }[];
      assert.ok(events.length > 7, 'an event per document');
      assert.equal(events.at(-1)?.type, 'done');
      assert.ok(events.every((e) => typeof e.ts === 'string'));
    });
  });

  it('-v=6, --v=8, -v 6: accepted as kubectl levels (6 the API calls, 8 the bodies); -v=0 is quiet', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const base = ['upgrade', 'plan', '--to', TARGET];
      const six = await sim.ctl([...base, '-v=6']);
      assertExit(six, 0, '-v=6');
      assert.match(six.stderr, /^GET \/v1\//m, 'each API call');
      const spaced = await sim.ctl([...base, '-v', '6']);
      assertExit(spaced, 0, '-v 6');
      assert.match(spaced.stderr, /^GET \/v1\//m);
      const eight = await sim.ctl([...base, '--v=8']);
      assertExit(eight, 0, '--v=8');
      assert.ok(eight.stderr.length > six.stderr.length, 'bodies too');
      const zero = await sim.ctl([...base, '-v=0']);
      assertExit(zero, 0, '-v=0');
      assert.doesNotMatch(zero.stderr, /^GET /m);
    });
  });

  it('TERM=dumb: no colour on a terminal; another TERM gets it', async () => {
    const preload = path.join(repoRoot, 'dist', 'test', 'e2e', 'terminal-preload.js');
    const env = (term: string) => ({ NO_COLOR: undefined, TERM: term });
    // A usage error prints a red "error:" on a colour terminal.
    const xterm = await spawnCtl(['upgrade', 'run'], { preload, env: env('xterm-256color') }).result;
    assert.match(xterm.stderr, /\u001b\[31m/, 'colour on xterm');
    const dumb = await spawnCtl(['upgrade', 'run'], { preload, env: env('dumb') }).result;
    assert.equal(dumb.code, xterm.code);
    assert.match(dumb.stderr, /error:/);
    assert.doesNotMatch(dumb.stderr, /\u001b\[/, 'no escape sequence on TERM=dumb');
  });

  it('text run: the summary table and the result on stdout, progress on stderr', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(result, 0, 'run');
      assert.match(result.stdout, /STEP +RESULT +DURATION/);
      assert.match(result.stdout, /verification \(management API\)/);
      assert.match(result.stdout, /^result: succeeded$/m);
      assert.doesNotMatch(result.stdout, /\[preflight\]/, 'no progress on stdout');
      assert.match(result.stderr, /\[preflight\] Check the prerequisites/);
      assert.doesNotMatch(result.stderr, /STEP +RESULT/, 'the table only once, on stdout');
    });
  });
});
