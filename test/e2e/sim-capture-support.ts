import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { latestOperatorVersion } from '../../src/release/catalog.js';
import { builtInScenarioDir, parseScenario, type Scenario } from '../helpers/simulator.js';
import {
  assertExit,
  assertNoChanges,
  startUpgradeSim,
  type UpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * `ctl sim capture` round trips (issue 16, item 3): for every built-in scenario, start it,
 * capture it with the BUILT binary, check the capture against the simulator's own scenario
 * parser, start the capture, and plan an upgrade to the newest release on both: the plans are the
 * same apart from the context's name, URLs with ports, dates and the fingerprint (which hashes
 * object uids). The capture changes nothing in the cluster it reads, and no secret of it (Secret
 * data: passwords, the licence, certificates and keys; the CA) appears in the captured file.
 */

export const TARGET = latestOperatorVersion();
export const SCENARIOS = readdirSync(builtInScenarioDir())
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => file.slice(0, -'.yaml'.length))
  .sort();
/**
 * Scenarios whose plans are compared only in their shape (checks and steps), and why:
 * - flaky-api: its faults are fault injection a live cluster cannot show (the capture leaves
 *   them out, docs/simulator.md), and they may make a plan's read of the original fail or retry.
 */
const SHAPE_ONLY = new Set(['flaky-api']);
/** Captured once more with --anonymize and started: one of each install method and of multi-namespace. */
const ANONYMIZE = new Set([
  'helm-installed',
  'multi-namespace',
  'olm-manual',
  'openshift-shared-scc',
  'redis-dialect',
]);
export const TIMEOUT = { timeout: 240_000 };

/**
 * The round trips are spread over four test files (sim-capture.test.ts, -2, -3, -4) and the
 * scenarios at scale over a fifth (AT_SCALE): 34 scenarios in one or two files outlasted the
 * runner's per-file limit (5 minutes) when the suite kept both cores busy.
 */
export const ROUND_TRIP_FILES = 4;

/**
 * The scenarios of thousands of databases, round-tripped one at a time in a file of their own
 * (sim-capture-scale.test.ts). Seeding one, parsing its capture and planning it in-process each
 * hold the test's process for seconds, and the simulators and in-process runs of a round trip
 * beside it share that process: with a second suite running, the plan of scale-1000 beside
 * scale-10000's round trip missed its 10 s deadline for an answer of its simulator.
 */
export const AT_SCALE = SCENARIOS.filter((name) => name.startsWith('scale-'));

/** The `part`-th (1-based) of ROUND_TRIP_FILES slices of the scenarios, AT_SCALE aside. */
export function scenariosOfPart(part: number): string[] {
  const others = SCENARIOS.filter((name) => !AT_SCALE.includes(name));
  const size = Math.ceil(others.length / ROUND_TRIP_FILES);
  return others.slice((part - 1) * size, part * size);
}

interface PlanRun {
  code: number | null;
  plan: Record<string, unknown>;
}

export async function planOf(sim: UpgradeSim): Promise<PlanRun> {
  const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
  assert.ok(result.code === 0 || result.code === 3, `plan exited ${result.code}:\n${result.stderr}`);
  return { code: result.code, plan: JSON.parse(result.stdout) as Record<string, unknown> };
}

/** What legitimately differs between two simulated clusters: the context, ports, clocks, uids, generated names. */
export function normalized(plan: Record<string, unknown>): unknown {
  const text = JSON.stringify({ ...plan, fingerprint: '<fingerprint>' })
    .replace(/https?:\/\/127\.0\.0\.1:\d+/g, '<url>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<date>')
    // The commands name each simulator's own kubeconfig (docs/upgrade-plan.md, "The commands
    // name your cluster"), in its own folder.
    .replace(/--kubeconfig [^\s"'\\]+/g, '--kubeconfig <kubeconfig>')
    // OLM names each InstallPlan with a random suffix (operator-lifecycle-manager GenerateName).
    .replace(/\binstall-[a-z0-9]{5}\b/g, 'install-<random>')
    // ... and the webhook it makes from the CSV's webhookdefinitions (generateName too).
    .replace(
      /\bredisenterprise\.admission\.redislabs-[a-z0-9]{5}\b/g,
      'redisenterprise.admission.redislabs-<random>',
    );
  const copy = JSON.parse(text) as { cluster: Record<string, unknown> };
  copy.cluster = { ...copy.cluster, context: '<context>' };
  return copy;
}

interface PlanShape {
  checks: { id: string; status: string }[];
  steps: { id: string; skipped: boolean; actions: number }[];
  blocked: unknown;
  target: unknown;
}

/** The plan without names: for a capture with --anonymize, and for fault-injected scenarios. */
function shape(plan: Record<string, unknown>): PlanShape {
  const checks = plan.checks as { id: string; status: string }[];
  const steps = plan.steps as { id: string; skip: unknown; actions: unknown[] }[];
  const target = { ...(plan.target as Record<string, unknown>), selection: undefined };
  return {
    checks: checks.map((c) => ({ id: c.id, status: c.status })),
    steps: steps.map((s) => ({ id: s.id, skipped: s.skip !== null, actions: s.actions.length })),
    blocked: plan.blocked,
    target,
  };
}

/**
 * Every Secret value of the cluster (decoded, and as stored), the CA, besides user names. Read
 * from the simulator's store, as the API server holds them (what a kubectl get would print):
 * this is the test's list of what must not leak, not a test of kubectl.
 */
function secretsOf(sim: UpgradeSim): string[] {
  const store = sim.cluster.kube.store;
  const secrets = store.all(store.resolve('v1', 'Secret'));
  const values = secrets.flatMap((secret) =>
    Object.entries((secret.data as Record<string, string> | undefined) ?? {})
      .filter(([key]) => key !== 'username')
      .flatMap(([, value]) => [value, Buffer.from(value, 'base64').toString('utf8')]),
  );
  const passwords = sim.cluster.scenario.cluster.users.map((user) => user.password);
  const ca = readFileSync(sim.cluster.caPath, 'utf8');
  return [...values, ...passwords, ca, sim.env.CTL_PASSWORD ?? ''].filter(
    (value) => value.trim().length >= 6,
  );
}

function assertNoSecret(captured: string, secrets: string[], what: string): void {
  assert.doesNotMatch(captured, /-----BEGIN/, `${what}: a PEM block`);
  assert.doesNotMatch(captured, /^\s*-?\s*password:/m, `${what}: a password field`);
  for (const secret of secrets) {
    for (const line of secret.split('\n').filter((l) => l.trim().length >= 6)) {
      assert.ok(
        !captured.includes(line.trim()),
        `${what} holds a secret of the original: ${line.slice(0, 12)}…`,
      );
    }
  }
}

export function describeRoundTrips(part: string, names: readonly string[], concurrency = 2): void {
  describe(`ctl sim capture: the built-in scenarios round trip (${part})`, { concurrency }, () => {
    for (const name of names) {
      it(`${name}: the capture starts and plans as the original does`, TIMEOUT, async () => {
        const { file, anonymized, original, secrets, originalNames } = await withUpgradeSim(
          name,
          async (sim) => {
            const file = path.join(sim.sandbox.dir, `${name}-capture.yaml`);
            const before = sim.cluster.audit.entries.length;
            const captured = await sim.ctl(['sim', 'capture', '--out', file]);
            assertExit(captured, 0, 'ctl sim capture');
            assert.equal(captured.stdout, '', 'with --out, nothing on stdout');
            const anonymized = ANONYMIZE.has(name)
              ? await sim.ctl(['sim', 'capture', '--anonymize'])
              : undefined;
            if (anonymized) assertExit(anonymized, 0, 'ctl sim capture --anonymize');
            assertNoChanges(sim, before, 'ctl sim capture');
            const { scenario } = sim.cluster;
            return {
              file: readFileSync(file, 'utf8'),
              anonymized: anonymized?.stdout,
              original: await planOf(sim),
              secrets: secretsOf(sim),
              originalNames: {
                namespaces: [scenario.namespace, ...scenario.operator.watchNamespaces],
                cluster: scenario.cluster.name,
                databases: scenario.databases.map((d) => d.name),
              },
            };
          },
        );

        // The simulator's own parser accepts it (it throws a ScenarioError naming the field
        // otherwise); the capture's simulator starts from this parse, as `ctl sim up --scenario`
        // starts from its own.
        const capture = parseScenario(file, `${name}-capture.yaml`);
        assertNoSecret(file, secrets, `the capture of ${name}`);

        const capturedPlan = await withCapture(name, capture, planOf);
        assert.equal(capturedPlan.code, original.code, 'the same exit code');
        if (SHAPE_ONLY.has(name)) assert.deepEqual(shape(capturedPlan.plan), shape(original.plan));
        else assert.deepEqual(normalized(capturedPlan.plan), normalized(original.plan));

        if (anonymized !== undefined) {
          const anonymizedScenario = parseScenario(anonymized, `${name}-anonymized.yaml`);
          assertNoSecret(anonymized, secrets, `the anonymized capture of ${name}`);
          const doc = parse(anonymized) as {
            namespace: string;
            cluster: { name: string };
            operator: { installedBy?: string };
            databases: { name: string; namespace: string }[];
          };
          assert.ok(!originalNames.namespaces.includes(doc.namespace), 'the namespace is replaced');
          // Under OLM the cluster must be named rec, so the capture keeps that name.
          if (doc.operator.installedBy === 'olm') assert.equal(doc.cluster.name, 'rec');
          else assert.notEqual(doc.cluster.name, originalNames.cluster, 'the cluster name is replaced');
          for (const database of doc.databases) {
            assert.ok(
              !originalNames.databases.includes(database.name),
              `database ${database.name} is replaced`,
            );
            assert.ok(
              !originalNames.namespaces.includes(database.namespace),
              `namespace ${database.namespace} is replaced`,
            );
          }
          const anonymizedPlan = await withCapture(name, anonymizedScenario, planOf);
          assert.equal(anonymizedPlan.code, original.code, 'the same exit code (anonymized)');
          assert.deepEqual(shape(anonymizedPlan.plan), shape(original.plan));
        }
      });
    }
  });
}

/**
 * Starts a captured scenario as `ctl sim up --scenario <file>` loads a file (parseScenario: the
 * YAML text, or the scenario a caller already parsed from it), in a sandbox named after the
 * original, then runs `body` on it.
 */
export async function withCapture<T>(
  original: string,
  capture: string | Scenario,
  body: (sim: UpgradeSim) => Promise<T>,
): Promise<T> {
  const scenario = typeof capture === 'string' ? parseScenario(capture, `${original}-capture.yaml`) : capture;
  const sim = await startUpgradeSim(original, { patch: () => scenario });
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}
