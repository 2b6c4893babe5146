import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertExit, parseEvents, type SimOptions, TARGET, withUpgradeSim } from './upgrade-support.js';

/**
 * The monitor step's title names the OpenShift SCC removal on every platform: titles are the
 * plan's JSON and the run's events (CLI.md), so they stay as they are. On plain Kubernetes what a
 * person reads does not let it claim an SCC: the plan's text and the run say under it that there
 * is none to remove. On OpenShift the plan says nothing of the kind.
 */

const TITLE = 'Wait for the rolling upgrade, then remove an OpenShift SCC no longer needed';
const NOT_OPENSHIFT = 'not OpenShift: no SCC to remove after the roll';

/** The scenario's cluster as `namespace`/`name`, not the built-in redis/rec. */
function renamed(namespace: string, name: string): SimOptions {
  return { patch: (scenario) => ({ ...scenario, namespace, cluster: { ...scenario.cluster, name } }) };
}

/** The plan text's lines from the monitor step's head to the line after it. */
function monitorLines(stdout: string): string[] {
  const lines = stdout.split('\n');
  const at = lines.findIndex((line) => /^ {2}6\. monitor +/.test(line));
  assert.ok(at >= 0, stdout);
  return lines.slice(at, at + 2);
}

describe('the monitor step on Kubernetes and on OpenShift (e2e)', () => {
  it('Kubernetes: the plan and the run say there is no SCC to remove; the JSON title is unchanged', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET]);
        assertExit(plan, 0, 'the plan');
        const [head, detail] = monitorLines(plan.stdout);
        assert.equal(head, `  6. monitor          ${TITLE}`);
        assert.equal(detail, `       (${NOT_OPENSHIFT})`);
        const json = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
        const steps = (JSON.parse(json.stdout) as { steps: { id: string; title: string }[] }).steps;
        assert.equal(steps.find((step) => step.id === 'monitor')?.title, TITLE);

        const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
        assertExit(run, 0, 'the run');
        const monitor = parseEvents(run.stdout).filter((event) => event.step === 'monitor');
        assert.deepEqual(
          monitor.slice(0, 2).map((event) => [event.type, event.message]),
          [
            ['step-start', TITLE],
            ['progress', NOT_OPENSHIFT],
          ],
        );
      },
      renamed('kiosk', 'till'),
    );
  });

  it('OpenShift: the plan does not say it', async () => {
    await withUpgradeSim(
      'openshift',
      async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET]);
        assertExit(plan, 0, 'the plan');
        const [head, next] = monitorLines(plan.stdout);
        assert.equal(head, `  6. monitor          ${TITLE}`);
        assert.doesNotMatch(next ?? '', /not OpenShift/);
        assert.doesNotMatch(plan.stdout, /no SCC to remove/);
      },
      renamed('depot', 'crane'),
    );
  });
});
