/**
 * `ctl upgrade run --report <file>`: one JSON document for any CI system, written however the
 * run ends: after a success, after a failed step, and after a failure before any plan. Mode
 * 0600 whatever the umask; no password, token or kubeconfig credential in it.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import { repoRoot, runCtl } from '../helpers/run-ctl.js';
import { STEP_IDS } from './upgrade-support.js';

interface Report {
  apiVersion: string;
  kind: string;
  ctlVersion: string;
  command: string;
  cluster: { context: string | null; namespace: string | null; name: string | null };
  target: { operator: string; clusterVersion: string | null } | null;
  dryRun: boolean;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  result: string;
  exitCode: number;
  error: { message: string; hint?: string; exitCode: number } | null;
  failedStep: string | null;
  steps: { id: string; title: string; result: string; durationMs: number; startedAt?: string }[];
  state: { store: string; location: string } | null;
  resumeCommand: string | null;
  nextCommand?: string;
  plan: { apiVersion: string; kind: string; fingerprint: string } | null;
}

const packageVersion = (
  JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }
).version;

describe('ctl upgrade run --report', () => {
  let dir: string;
  const clusters: Record<string, SimulatedCluster> = {};

  const envFor = (cluster: SimulatedCluster) => ({
    ...cluster.env,
    XDG_STATE_HOME: path.join(dir, 'state'),
  });

  /** The report as text and parsed, after checking its mode and that no credential leaked into it. */
  const readReport = (file: string, cluster: SimulatedCluster): { text: string; report: Report } => {
    assert.equal(statSync(file).mode & 0o777, 0o600, 'mode 0600');
    const text = readFileSync(file, 'utf8');
    const kubeconfig = readFileSync(cluster.kubeconfigPath, 'utf8');
    const token = /token: (\S+)/.exec(kubeconfig)?.[1];
    for (const secret of [cluster.env.CTL_PASSWORD, token]) {
      assert.ok(secret && !text.includes(secret), 'no credential in the report');
    }
    return { text, report: JSON.parse(text) as Report };
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-report-'));
    for (const name of ['happy-path', 'module-without-rhel9']) {
      clusters[name] = await startSimulatedCluster({
        scenario: loadScenario(name),
        dir: path.join(dir, name),
        fast: true,
      });
    }
  });
  after(async () => {
    for (const cluster of Object.values(clusters)) await cluster.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a successful run: plan, seven steps with results and times, result, version', async () => {
    const cluster = clusters['happy-path']!;
    const file = path.join(dir, 'reports', 'nested', 'success.json');
    // A restrictive umask must not make the report private: CI uploads it as an artifact.
    const umask = process.umask(0o077);
    let result;
    try {
      result = await runCtl(['upgrade', 'run', '--to', '7.8.2-6', '--yes', '-o', 'json', '--report', file], {
        env: envFor(cluster),
        cwd: dir,
      });
    } finally {
      process.umask(umask);
    }
    assert.equal(result.code, 0, result.stderr);
    // NDJSON on stdout is unchanged by --report.
    const last = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { type: string };
    assert.equal(last.type, 'done');

    const { report } = readReport(file, cluster);
    assert.equal(report.apiVersion, 'ctl/v1');
    assert.equal(report.kind, 'UpgradeReport');
    assert.equal(report.ctlVersion, packageVersion);
    assert.equal(report.command, 'upgrade run');
    assert.deepEqual(report.cluster, { context: 'ctl-sim-happy-path', namespace: 'redis', name: 'rec' });
    assert.equal(report.target?.operator, '7.8.2-6');
    assert.equal(report.target?.clusterVersion, '7.8.2-60');
    assert.equal(report.dryRun, false);
    assert.equal(report.result, 'succeeded');
    assert.equal(report.exitCode, 0);
    assert.equal(report.error, null);
    assert.equal(report.failedStep, null);
    assert.equal(report.resumeCommand, null);
    assert.equal(report.nextCommand, undefined, 'a run that changed the cluster has no Next line');
    assert.equal(report.plan?.kind, 'UpgradePlan');
    assert.match(report.plan?.fingerprint ?? '', /^sha256:/);
    assert.deepEqual(
      report.steps.map((s) => s.id),
      STEP_IDS,
    );
    for (const step of report.steps) {
      assert.ok(['done', 'skipped'].includes(step.result), `${step.id}: ${step.result}`);
      assert.equal(typeof step.durationMs, 'number');
      assert.equal(typeof step.title, 'string');
    }
    assert.ok(report.steps.find((s) => s.id === 'operator')?.startedAt, 'a step that ran has its start time');
    assert.ok(Date.parse(report.startedAt) <= Date.parse(report.finishedAt));
    assert.ok(report.durationMs >= 0);
    assert.equal(report.state?.store, 'file');
    assert.equal(
      report.state?.location,
      path.join(dir, 'state', 'ctl', 'ctl-sim-happy-path', 'redis', 'rec.json'),
    );
  });

  test('a failed step: exit code, message, hint, the failed step and the command that resumes', async () => {
    const cluster = clusters['module-without-rhel9']!;
    const file = path.join(dir, 'failure.json');
    const result = await runCtl(['upgrade', 'run', '--to', '7.8.2-6', '--yes', '--report', file], {
      env: envFor(cluster),
      cwd: dir,
    });
    assert.equal(result.code, 3, result.stderr);
    const { report } = readReport(file, cluster);
    assert.equal(report.result, 'failed');
    assert.equal(report.exitCode, 3);
    assert.equal(report.failedStep, 'preflight');
    assert.equal(report.error?.exitCode, 3);
    assert.match(report.error?.message ?? '', /modules-compatible/);
    // The scenario's one blocker: a module whose RHEL9 build is to be uploaded, no release rule.
    assert.match(
      report.error?.message ?? '',
      /ReJSON 2\.6\.10 \(platforms: rhel8\/x86_64; used by profiles\)/,
    );
    assert.doesNotMatch(report.error?.message ?? '', /release-rules/);
    // A preflight that stopped changed nothing: the plan's Next line, not "resume with" (issue 36).
    assert.match(report.error?.hint ?? '', /Nothing was changed\. Next: ctl upgrade run --to 7\.8\.2-6/);
    assert.doesNotMatch(report.error?.hint ?? '', /resume with/);
    assert.match(report.resumeCommand ?? '', /^ctl upgrade run --to 7\.8\.2-6 /);
    // The Next line itself, for a pipeline: the run to make (without --yes and --report).
    // Named with the kubeconfig the run read (KUBECONFIG): a pipeline's next job has not set it.
    assert.equal(report.nextCommand, `ctl upgrade run --to 7.8.2-6 --kubeconfig ${cluster.env.KUBECONFIG}`);
    assert.deepEqual(
      report.steps.map((s) => s.result),
      ['failed', 'not run', 'not run', 'not run', 'not run', 'not run', 'not run'],
    );
    assert.equal(report.plan?.kind, 'UpgradePlan');
  });

  test('a failure before any plan (an unknown context) is reported too', async () => {
    const cluster = clusters['happy-path']!;
    const file = path.join(dir, 'usage.json');
    const result = await runCtl(
      ['upgrade', 'run', '--to', '7.8.2-6', '--yes', '--context', 'nowhere', '--report', file],
      { env: envFor(cluster), cwd: dir },
    );
    assert.equal(result.code, 2, result.stderr);
    const { report } = readReport(file, cluster);
    assert.equal(report.result, 'failed');
    assert.equal(report.exitCode, 2);
    assert.match(report.error?.message ?? '', /--context nowhere: no such context/);
    assert.match(report.error?.hint ?? '', /Known contexts: ctl-sim-happy-path/);
    assert.equal(report.plan, null);
    assert.deepEqual(report.steps, []);
    assert.equal(report.target?.operator, '7.8.2-6');
  });
});
