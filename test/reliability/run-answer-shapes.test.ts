/**
 * The answers `ctl upgrade run` acts on, of other shapes than the REST reference gives them: the
 * module upload's answer (POST /v2/modules, a module with its action_uid), the action it then
 * polls (GET /v1/actions/<uid>), and the nodes read after the roll (GET /v1/nodes). The run's
 * step stops (exit 1) saying what it cannot tell and what to look at; it never waits on an
 * action it was not given, never takes such an answer for "done", and a run afterwards, with the
 * answers right again, finishes without uploading twice. An action's status of a text the
 * reference does not list is warned about once, and the run goes on. A node's status of another type after
 * the roll is said as such, not blamed on the operator.
 *
 * The API is the simulator's behind a server of this test that rewrites the answers
 * (./rewriting-api.ts); the frozen upgrade is the module-without-rhel9 scenario's
 * (e2e/upgrade-blocked.test.ts).
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import { rsVersionOfTag } from '../../src/steps/roll-facts.js';
import { assertExit, readState, TARGET, type UpgradeSim, withUpgradeSim } from '../e2e/upgrade-support.js';
import { type RewritingApi, type Rewrites, startRewritingApi } from './rewriting-api.js';
import { rejsonRhel9Package } from '../helpers/module-package.js';
import { FAST_TIMING } from '../helpers/simulator.js';

type Item = Record<string, unknown>;

const noCrash = (result: { stdout: string; stderr: string }) =>
  assert.doesNotMatch(result.stdout + result.stderr, /unexpected failure|TypeError|\n\s+at /);

// The three cases side by side, each with its own simulator and rewriting server: each waits on
// its simulated roll most of the time (issue 39: the suite's time).
describe(
  'answers the run acts on, of other shapes than documented (e2e)',
  { timeout: 600_000, concurrency: true },
  () => {
    /** `body` with a rewriting server of its own, closed after. */
    async function withRewritingApi<T>(body: (api: RewritingApi) => Promise<T>): Promise<T> {
      const api = await startRewritingApi('ctl-run-answer-shapes-');
      try {
        return await body(api);
      } finally {
        await api.close();
      }
    }

    const base = ['upgrade', 'run', '--to', TARGET, '--yes', '--ignore-check', 'modules-compatible'];

    /**
     * module-without-rhel9 with the upload's action taking 3 s (the simulator's databaseUpgrade),
     * the rest no time. With the fast timing's 0 s the module was installed, and the roll over,
     * as soon as the upload was answered: on a loaded machine the roll could end before ctl's read
     * of the answer under test came back through the rewriting server, and the run ended done
     * without ever judging it (run 47 of docs/reliability.md).
     */
    const withFrozenSim = <T>(body: (sim: UpgradeSim) => Promise<T>): Promise<T> =>
      withUpgradeSim('module-without-rhel9', body, {
        timing: { ...FAST_TIMING, databaseUpgrade: 3 },
      });

    /** The frozen upgrade of module-without-rhel9, then `--remediate` through the rewriting server. */
    async function remediateThrough(
      api: RewritingApi,
      sim: UpgradeSim,
      rewrites: Rewrites,
    ): Promise<{ remediated: Awaited<ReturnType<UpgradeSim['ctl']>>; remediate: string[] }> {
      const frozen = await sim.ctl(base);
      assertExit(frozen, 1, 'the frozen run');
      assert.match(frozen.stderr, /the cluster upgrade is frozen/);
      // The simulated API reads a package's metadata from its file name (e2e/upgrade-blocked.test.ts).
      const moduleFile = rejsonRhel9Package(sim.sandbox.dir);
      const remediate = [...base, '--remediate', '--module-file', moduleFile];
      api.use(sim.env, rewrites);
      const remediated = await sim.ctl(remediate, { env: api.env });
      return { remediated, remediate };
    }

    test("the upload's answer without its action_uid: the step stops (exit 1) saying so; the next run finishes, one upload", async () => {
      await withRewritingApi((api) =>
        withFrozenSim(async (sim) => {
          const { remediated, remediate } = await remediateThrough(api, sim, {
            '/v2/modules': (body) => {
              const { action_uid: _dropped, ...module } = body as Item;
              return module;
            },
          });
          assertExit(remediated, 1, 'the remediating run, its upload answered without action_uid');
          assert.match(
            remediated.stderr,
            /the upload of rejson\.Linux-rhel9-x86_64\.2\.6\.10\.zip cannot be followed: POST \/v2\/modules \(rejson\.Linux-rhel9-x86_64\.2\.6\.10\.zip\): the management API answered without the action_uid of the action it started/,
          );
          assert.match(
            remediated.stderr,
            /The upload may have started: look at the cluster's modules \(curl .*\/v1\/modules/,
          );
          assert.match(remediated.stderr, /--api-url points at the management API/);
          // Nothing waited on an action it was not given (GET /v1/actions/undefined read as done).
          assert.equal(sim.cluster.audit.filter('GET', '/v1/actions/undefined').length, 0);
          assert.doesNotMatch(remediated.stderr, /module ReJSON 2\.6\.10 installed|remediation done/);
          noCrash(remediated);
          const state = readState(sim);
          assert.equal(state.steps.monitor?.status, 'failed');
          assert.notEqual(state.result, 'succeeded');

          // The answers right again: the run looks before it uploads, and finishes.
          const fixed = await sim.ctl(remediate);
          assertExit(fixed, 0, 'the run after it');
          assert.equal(sim.cluster.audit.filter('POST', '/v2/modules').length, 1, 'one upload in all');
          assert.equal(readState(sim).result, 'succeeded');
        }),
      );
    });

    test("the action's status as a number: the step stops (exit 1), never taken for done; the next run finishes", async () => {
      await withRewritingApi((api) =>
        withFrozenSim(async (sim) => {
          const { remediated, remediate } = await remediateThrough(api, sim, {
            '/v1/actions/*': (body) => ({ ...(body as Item), status: 1 }),
          });
          assertExit(remediated, 1, 'the remediating run, its action answered with a status of 1');
          assert.match(
            remediated.stderr,
            /cannot tell whether the upload of rejson\.Linux-rhel9-x86_64\.2\.6\.10\.zip finished: GET \/v1\/actions\/[\w-]+: the management API answered an action whose status is not a string \(it is a number\)/,
          );
          assert.match(remediated.stderr, /Look at the action with curl .*\/v1\/actions\/[\w-]+/);
          assert.doesNotMatch(remediated.stderr, /module ReJSON 2\.6\.10 installed|remediation done/);
          noCrash(remediated);
          assert.equal(readState(sim).steps.monitor?.status, 'failed');

          const fixed = await sim.ctl(remediate);
          assertExit(fixed, 0, 'the run after it');
          assert.equal(sim.cluster.audit.filter('POST', '/v2/modules').length, 1, 'one upload in all');
        }),
      );
    });

    test("the action's status a text the reference does not list: one warning naming it, the wait goes on, the run finishes", async () => {
      await withRewritingApi((api) =>
        withFrozenSim(async (sim) => {
          // The first answers say "weird", then the simulator's own come through (the action over:
          // completed, or no longer known, which the wait takes for done and verifies).
          let weird = 0;
          const { remediated } = await remediateThrough(api, sim, {
            '/v1/actions/*': (body) => (weird++ < 3 ? { ...(body as Item), status: 'weird' } : body),
          });
          assertExit(remediated, 0, 'the remediating run, its action first answered "weird"');
          assert.ok(weird >= 1, 'the action answered "weird"');
          const warnings =
            remediated.stderr.match(
              /the action [\w-]+ reports the status "weird", which the REST reference does not list .*keeps waiting, within --stall-timeout and --timeout/g,
            ) ?? [];
          assert.equal(warnings.length, 1, remediated.stderr);
          // Neither failed nor taken for done: the roll the upload unfroze ended the wait (the
          // unit test of waitForAction follows it through several such answers).
          assert.doesNotMatch(remediated.stderr, /failed \(action|cannot tell whether/);
          noCrash(remediated);
          assert.equal(readState(sim).result, 'succeeded');
        }),
      );
    });

    test("a node's status as a number after the roll: said as such, not blamed on the operator", async () => {
      await withRewritingApi((api) =>
        withUpgradeSim('happy-path', async (sim) => {
          const target = rsVersionOfTag(clusterTagFor(TARGET) ?? '');
          assert.ok(target, 'the target has a cluster tag');
          // Before the roll the nodes answer as documented (the plan reads them); at the target, not.
          api.use(sim.env, {
            '/v1/nodes': (body) =>
              (body as Item[]).map((node) =>
                String(node.software_version).startsWith(target) ? { ...node, status: 1 } : node,
              ),
          });
          const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes'], { env: api.env });
          assertExit(run, 0, 'the run, its nodes answered with a status of 1 after the roll');
          assert.match(
            run.stderr,
            /could not read the nodes' software versions from the management API: GET \/v1\/nodes: the management API answered a node \(item 0\) whose status is not a string \(it is a number\)/,
          );
          assert.match(
            run.stderr + run.stdout,
            /verification: could not be made: GET \/v1\/nodes: .*status is not a string/,
          );
          assert.doesNotMatch(run.stderr + run.stdout, /though the monitor step finished/);
          noCrash(run);
        }),
      );
    });
  },
);
