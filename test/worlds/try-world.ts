/**
 * One world, tried as a user would (issue 36 item 3): the simulated cluster of its scenario,
 * `ctl upgrade plan --to <target>` with a target ctl would list for it, and, when the plan says
 * Ready (exit 0), `ctl upgrade run` with the same store. The run must exit 0, and the simulator
 * (not ctl) must show the cluster at the target: the operator's image, the cluster resource's
 * versionTag and state, every database not held back at the target's database version.
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { imageDigest, parseScenario } from '../helpers/simulator.js';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import { compareDatabaseVersions } from './versions.js';
import { startUpgradeSim, type UpgradeSim } from '../e2e/upgrade-support.js';
import { pickTarget } from './targets.js';
import { scenarioYaml, type World } from './world.js';
import { writeModulePackage } from '../helpers/module-package.js';

export type WorldOutcome =
  /** No target to try, or the plan did not say Ready: the promise says nothing about the run. */
  | {
      kind: 'not-ready';
      target: string | null;
      planExit: number | null;
      why: string;
      /** The ids of the checks the plan failed (-o json); empty when it printed no plan. */
      failed: string[];
      /** The hops of the blocked plan (-o json); 1 when it printed none. */
      hops?: number;
    }
  | { kind: 'finished'; target: string; hops: number }
  /**
   * A world with `stopsThenBlocks`: a Ready plan, a run that stopped (exit 1 or 6), and the plan
   * made next, with the checks it failed (the property judges them against the world's).
   */
  | {
      kind: 'stopped';
      target: string;
      runExit: number;
      replanExit: number | null;
      replanFailed: string[];
      why: string;
    }
  /** A Ready plan, then a run that failed or a cluster not at the target: the promise broken. */
  | { kind: 'broken'; target: string; why: string };

interface PlanDatabaseAction {
  database?: { name: string; namespace: string; version: string; manual: boolean; heldBack?: string };
}

interface PlanJson {
  target: { operator: string; clusterVersion: string | null; databaseVersion: string | null };
  /** What the plan read: each database's version then. */
  current?: { databases?: { name: string; namespace: string; version?: string }[] };
  steps: { id: string; actions: PlanDatabaseAction[] }[];
  hops?: { steps: PlanJson['steps'] }[];
}

interface ReportJson {
  result?: string;
  heldBack?: { database: string }[];
}

const PLAN_TIMEOUT_MS = 90_000;
/** A run of up to three hops on fast timing; the simulator's waits are zero. */
const RUN_TIMEOUT_MS = 240_000;

/** The environment of a user without helm: no CTL_HELM, and a PATH with node alone. */
function withoutHelm(): Record<string, string | undefined> {
  return { CTL_HELM: undefined, PATH: path.dirname(process.execPath) };
}

export async function tryWorld(world: World): Promise<WorldOutcome> {
  const scenario = parseScenario(scenarioYaml(world), 'generated world');
  const target = pickTarget(scenario.operator.version, world.ctl);
  if (!target)
    return {
      kind: 'not-ready',
      target: null,
      planExit: null,
      why: 'no newer release to target',
      failed: [],
    };
  // happy-path is only the base the patch replaces: the world's own scenario is the one started,
  // with every wait at zero unless the world draws its own timing (arbitrary.ts TIMING).
  const timing = world.scenario.timing === undefined ? {} : { timing: scenario.timing };
  const sim = await startUpgradeSim('happy-path', { ...timing, patch: () => scenario });
  try {
    return await planAndRun(sim, world, target);
  } finally {
    await sim.close();
  }
}

async function planAndRun(sim: UpgradeSim, world: World, target: string): Promise<WorldOutcome> {
  const env = {
    ...(world.ctl.helm ? {} : withoutHelm()),
    // From the cluster's credentials Secret, as a user who gives none; else an admin's, exported
    // (the simulator's env file names the first user, the Secret's, whatever its role).
    ...(world.ctl.credentials === 'secret'
      ? { CTL_USERNAME: undefined, CTL_PASSWORD: undefined }
      : adminCredentials(sim)),
    ...(world.ctl.address === 'flags' ? { KUBECONFIG: contextInDefault(sim) } : {}),
  };
  const scope = [
    ...(world.ctl.stateStore === 'configmap' ? ['--state-store', 'configmap'] : []),
    ...(world.ctl.address === 'flags' ? addressFlags(sim) : []),
  ];
  // --remediate with a module package (RediSearch 2.8.13 for RHEL9, a zip with its module.json):
  // for the plan to judge (module-packages), and the run to use.
  const remediate = world.ctl.remediate
    ? [
        '--remediate',
        '--module-file',
        writeModulePackage(sim.sandbox.dir, {
          file: 'redisearch.Linux-rhel9-x86_64.2.8.13.zip',
          module: 'search',
          version: '2.8.13',
        }),
      ]
    : [];
  const planFile = path.join(sim.sandbox.dir, 'plan.json');
  const ctl = (args: string[], timeoutMs: number) =>
    runCtlInProcess(args, { env: { ...sim.env, ...env }, cwd: sim.sandbox.dir, timeoutMs });
  const plan = await ctl(
    ['upgrade', 'plan', '--to', target, '-o', 'json', '--out', planFile, ...scope, ...remediate],
    PLAN_TIMEOUT_MS,
  );
  if (plan.code !== 0) {
    const failed = failedChecks(plan.stdout);
    return {
      kind: 'not-ready',
      target,
      hops: plannedHops(plan.stdout),
      planExit: plan.code,
      why: failed.length > 0 ? failed.join(',') : lastLines(plan.stderr, 3),
      failed,
    };
  }
  const planned = JSON.parse(readFileSync(planFile, 'utf8')) as PlanJson;
  const reportFile = path.join(sim.sandbox.dir, 'report.json');
  const how = world.ctl.runWith === 'plan' ? ['--plan', planFile] : ['--to', target];
  const run = await ctl(
    ['upgrade', 'run', ...how, '--yes', '--report', reportFile, ...scope, ...remediate],
    RUN_TIMEOUT_MS,
  );
  if (run.code !== 0 && world.stopsThenBlocks && (run.code === 1 || run.code === 6)) {
    const replan = await ctl(['upgrade', 'plan', '--to', target, '-o', 'json', ...scope], PLAN_TIMEOUT_MS);
    return {
      kind: 'stopped',
      target,
      runExit: run.code,
      replanExit: replan.code,
      replanFailed: failedChecks(replan.stdout),
      why: lastLines(run.stderr, 6),
    };
  }
  if (run.code !== 0) {
    return {
      kind: 'broken',
      target,
      why: `the plan said Ready (exit 0), the run exited ${run.code}${run.signal ? ` (${run.signal})` : ''}:\n${lastLines(run.stderr, 12)}`,
    };
  }
  const report = existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, 'utf8')) as ReportJson) : {};
  const problems = [
    ...(report.result === 'succeeded' ? [] : [`the report says ${String(report.result)}`]),
    ...clusterProblems(sim, planned, report),
  ];
  if (problems.length > 0)
    return { kind: 'broken', target, why: `the run exited 0, but:\n  ${problems.join('\n  ')}` };
  return { kind: 'finished', target, hops: planned.hops?.length ?? 1 };
}

/**
 * Whether an operator image is the release's: by tag (`repo:8.2.0-18`), or by digest only
 * (`repo@sha256:...`, an OLM install for disconnected clusters), then the simulated registry's
 * digest of `repo:<release>`.
 */
function runsRelease(image: string, release: string): boolean {
  const at = image.indexOf('@');
  if (at < 0) return image.endsWith(`:${release}`);
  return image.slice(at + 1) === imageDigest(`${image.slice(0, at)}:${release}`);
}

/** What the simulator shows that is not the plan's target. */
function clusterProblems(sim: UpgradeSim, plan: PlanJson, report: ReportJson): string[] {
  const problems: string[] = [];
  const { scenario, kube, rest } = sim.cluster;
  const store = kube.store;
  const namespace = scenario.namespace;
  const operator = store
    .all(store.resolve('apps/v1', 'Deployment'), namespace)
    .find((d) => d.metadata?.name === 'redis-enterprise-operator');
  const image = (operator?.spec as { template?: { spec?: { containers?: { image?: string }[] } } })?.template
    ?.spec?.containers?.[0]?.image;
  if (!image || !runsRelease(image, plan.target.operator))
    problems.push(`the operator runs ${image ?? '(no operator Deployment)'}, not ${plan.target.operator}`);
  const rec = store.get(
    store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster'),
    namespace,
    scenario.cluster.name,
  ) as { spec?: Record<string, { versionTag?: string }>; status?: { state?: string } } | undefined;
  const imageSpec = scenario.dialect === 'redis' ? 'redisEnterpriseImageSpec' : 'engineEnterpriseImageSpec';
  const tag = rec?.spec?.[imageSpec]?.versionTag;
  // An operator that auto-upgrades without writing versionTag (scenario autoUpgradeWritesSpec:
  // false; whether the real one writes it is undocumented, src/sim/operator/cluster-upgrade.ts)
  // leaves the spec's tag behind: then the nodes' RS is what shows the cluster at the target.
  const rolledUnwritten =
    !scenario.cluster.autoUpgradeWritesSpec &&
    plan.target.clusterVersion !== null &&
    rest.model.nodes.every((node) => {
      const want = plan.target.clusterVersion!;
      return want === node.software_version || want.startsWith(`${node.software_version}.`);
    });
  if (plan.target.clusterVersion && tag !== plan.target.clusterVersion && !rolledUnwritten)
    problems.push(`the cluster resource's versionTag is ${String(tag)}, not ${plan.target.clusterVersion}`);
  if (rec?.status?.state !== 'Running') problems.push(`the cluster is ${String(rec?.status?.state)}`);
  const held = new Set((report.heldBack ?? []).map((h) => h.database));
  const wanted = databaseTargets(plan);
  const before = new Map(
    (plan.current?.databases ?? []).map((db) => [`${db.namespace}/${db.name}`, db.version]),
  );
  for (const bdb of rest.model.bdbs) {
    const key = `${bdb.namespace}/${bdb.name}`;
    const version = wanted.get(key);
    // null: the plan leaves it to the user (by hand, or held back until the participants move).
    if (version === null || held.has(key)) continue;
    // A database no action names is one the plan leaves unchanged ("databases 6.2 -> unchanged":
    // already at the version the target wants, or one the upgrade policy keeps, resolve.ts
    // desiredVersion): it must run at least what it ran when planned. Unknown to the plan: the target's.
    const at = version ?? (before.has(key) ? before.get(key) : plan.target.databaseVersion);
    if (at && compareDatabaseVersions(bdb.databaseVersion, at) < 0)
      problems.push(`database ${key} runs ${bdb.databaseVersion}, not ${at}`);
  }
  return problems;
}

/**
 * What the plan's databases steps (every hop's) say each database ends at: the version of its
 * last action, or null when an action leaves it to the user (manual, held back). A database no
 * action names is already where the target wants it.
 */
function databaseTargets(plan: PlanJson): Map<string, string | null> {
  const wanted = new Map<string, string | null>();
  const stepsOfEveryHop = plan.hops ? plan.hops.map((hop) => hop.steps) : [plan.steps];
  for (const steps of stepsOfEveryHop) {
    for (const action of steps.find((step) => step.id === 'databases')?.actions ?? []) {
      const db = action.database;
      if (!db) continue;
      const key = `${db.namespace}/${db.name}`;
      if (wanted.get(key) === null) continue;
      wanted.set(key, db.manual || db.heldBack ? null : db.version);
    }
  }
  return wanted;
}

/** The ids of the checks a blocked plan (-o json) failed; empty when it printed no plan. */
/** The number of hops of a plan printed with -o json; 1 when it has none or is no plan. */
function plannedHops(stdout: string): number {
  try {
    return (JSON.parse(stdout) as { hops?: unknown[] }).hops?.length ?? 1;
  } catch {
    return 1;
  }
}

function failedChecks(stdout: string): string[] {
  try {
    const plan = JSON.parse(stdout) as { checks?: { id: string; status: string }[] };
    return (plan.checks ?? []).filter((c) => c.status === 'fail').map((c) => c.id);
  } catch {
    return [];
  }
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

/** `-n <namespace> --cluster <name>`: the cluster resource named outright. */
function addressFlags(sim: UpgradeSim): string[] {
  const { scenario } = sim.cluster;
  return ['-n', scenario.namespace, '--cluster', scenario.cluster.name];
}

/**
 * A copy of the simulator's kubeconfig whose context has no namespace (so `default`), as a
 * kubeconfig shared across teams has: ctl must then go by `-n` alone, and so must every tool
 * it runs (helm, kubectl). Mode 0600: it holds the token.
 */
function contextInDefault(sim: UpgradeSim): string {
  const config = parse(readFileSync(sim.cluster.kubeconfigPath, 'utf8')) as {
    contexts?: { context?: { namespace?: string } }[];
  };
  for (const entry of config.contexts ?? []) delete entry.context?.namespace;
  const file = path.join(sim.sandbox.dir, 'kubeconfig-default-namespace');
  writeFileSync(file, stringify(config, { version: '1.1' }), { mode: 0o600 });
  return file;
}

/** CTL_USERNAME and CTL_PASSWORD of the scenario's first admin (by `role`, no RBAC roles) whose password works. */
function adminCredentials(sim: UpgradeSim): { CTL_USERNAME: string; CTL_PASSWORD: string } {
  const admin = sim.cluster.scenario.cluster.users.find(
    (user) => user.role === 'admin' && !user.roles && !user.passwordExpired,
  );
  if (!admin) throw new Error('the world has no admin to sign in as (test/worlds/api-users.ts adds one)');
  return { CTL_USERNAME: admin.username, CTL_PASSWORD: admin.password };
}
