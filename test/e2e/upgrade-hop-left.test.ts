import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { shellQuote } from '../../src/io/shell-words.js';
import { clusterTagFor } from '../../src/release/catalog.js';
import { assertExit, assertUpgraded, TARGET, withUpgradeSim } from './upgrade-support.js';

/**
 * A run that stops with a later hop left ends with the command for it as its Next line (issue
 * 38 item 6). old-operator (operator 7.2.4-12) reaches 7.8.2-6 in two hops, through 7.4.6-12;
 * `--only preflight --only operator` leaves hop 1's cluster and databases steps, so the run must
 * not go on to hop 2 (whose operator would manage a cluster two versions behind), and its last
 * line names the run that finishes hop 1, then hop 2.
 */

const HOP = '7.4.6-12';

interface DoneEvent {
  type: string;
  message: string;
  data: { result: string; next?: string; workLeft?: { what: string; command: string }[] };
}

function doneEvent(stdout: string): DoneEvent {
  const events = stdout
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .map((line) => JSON.parse(line) as DoneEvent);
  const done = events.find((event) => event.type === 'done');
  assert.ok(done, `a done event in:\n${stdout}`);
  return done;
}

describe('ctl upgrade run: a later hop left ends as the Next line (e2e)', () => {
  it('--only leaves hop 1 unfinished: the run stops before hop 2; text, JSON and CI summary name the run that finishes it', async () => {
    await withUpgradeSim(
      'old-operator',
      async (sim) => {
        const summaryFile = `${sim.sandbox.dir}/step-summary.md`;
        const selected = ['--only', 'preflight', '--only', 'operator'];
        const base = ['upgrade', 'run', '--to', TARGET, '--yes'];
        const text = await sim.ctl([...base, ...selected], {
          env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile },
        });
        assertExit(text, 0, 'run --only preflight --only operator');
        assert.doesNotMatch(text.stderr, /starting hop 2\/2/, 'hop 2 does not start');
        // Named with the kubeconfig the run read (KUBECONFIG), for a fresh shell.
        const kube = `--kubeconfig ${shellQuote(sim.env.KUBECONFIG ?? '')}`;
        const next = `ctl ${base.join(' ')} ${kube}`;
        const lastLine = text.stdout.trimEnd().split('\n').at(-1) ?? '';
        assert.match(lastLine, /^Next: /, `the last line is the Next line:\n${text.stdout}`);
        assert.ok(
          lastLine.startsWith(`Next: ${next}  (hop 1/2 (to ${HOP}) left step(s) admission`),
          lastLine,
        );
        assert.match(lastLine, new RegExp(`then hop 2/2 \\(to ${TARGET.replace(/\./g, '\\.')}\\)`));
        assert.ok(readFileSync(summaryFile, 'utf8').includes(`Next: ${next}`), 'the CI step summary');
        const state = JSON.parse(readFileSync(sim.statePath, 'utf8')) as {
          hop?: number;
          steps: Record<string, { status: string }>;
        };
        assert.equal(state.hop ?? 0, 0, 'the state stays at hop 1');
        assert.equal(state.steps.cluster?.status, 'pending', 'hop 1 cluster step left');

        // The same selection again in JSON: nothing left to do in hop 1's operator step, the
        // done event carries the hop left as data.next.
        const json = await sim.ctl([...base, ...selected, '-o', 'json']);
        assertExit(json, 0, 'run --only again, -o json');
        const done = doneEvent(json.stdout);
        assert.equal(done.data.result, 'succeeded');
        assert.equal(
          done.data.next,
          `ctl ${base.join(' ')} -o json ${kube}`,
          'the same command line, without --only',
        );
        assert.match(done.data.workLeft?.[0]?.what ?? '', /hop 2\/2/);
        assert.match(done.message, /not complete/, 'the done message does not claim the upgrade');

        // The Next line, run as printed, finishes hop 1 and runs hop 2 to the target.
        const finished = await sim.ctl(next.split(' ').slice(1));
        assertExit(finished, 0, 'the Next command');
        assert.match(finished.stderr, /hop 2\/2/);
        assert.doesNotMatch(finished.stdout, /^Next: /m, 'nothing left');
        await assertUpgraded(sim, { operator: TARGET, tag: clusterTagFor(TARGET) ?? '', dbVersion: '7.4' });
      },
      { patch: (scenario) => ({ ...scenario, cluster: { ...scenario.cluster, name: 'stepwise-rec' } }) },
    );
  });
});
