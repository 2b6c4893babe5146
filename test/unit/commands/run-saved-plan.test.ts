import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  checkResumeKeepsSavedPlan,
  savedPlanRecord,
  selectionDifferences,
  selectionFlags,
  stalePlanError,
  startedFromSavedPlan,
  startedWithPlanFlag,
} from '../../../src/commands/run-saved-plan.js';
import { ExitCode, isCtlError } from '../../../src/errors.js';
import type { Plan, PlanTarget } from '../../../src/planning/plan.js';
import { newState, type UpgradeState } from '../../../src/run/state.js';
import { tempDir } from '../../helpers/temp.js';

// What `run --plan` records of its saved plan, and what a resume may do with it
// (src/commands/run-saved-plan.ts; the whole path: test/e2e/upgrade-plan-resume.test.ts).

const noWarning = (message: string): void => assert.fail(`unexpected warning: ${message}`);

const FINGERPRINT = `sha256:${'a'.repeat(64)}`;

function target(selection: Partial<NonNullable<PlanTarget['selection']>> = {}): PlanTarget {
  return {
    operator: '7.8.2-6',
    clusterVersion: '7.8.2-34',
    databaseVersion: '7.4',
    method: 'bundle',
    selection: {
      databases: { kind: 'all' },
      ignoreChecks: [],
      bundle: null,
      helm: { release: null, chart: null, repo: null },
      stateStore: 'file',
      ...selection,
    },
  };
}

/** A plan as `ctl upgrade plan --out` saves it, with what `run --plan` checks (saved-plan.ts). */
function plan(planTarget: PlanTarget = target(), fingerprint = FINGERPRINT): Plan {
  return {
    apiVersion: 'ctl/v1',
    kind: 'UpgradePlan',
    cluster: { context: 'kind', namespace: 'redis', name: 'rec' },
    target: planTarget,
    checks: [],
    steps: [],
    blocked: false,
    fingerprint,
  } as unknown as Plan;
}

function state(extra: Partial<UpgradeState> = {}): UpgradeState {
  const fresh = newState({ context: 'kind', namespace: 'redis', cluster: 'rec' }, { operator: '7.8.2-6' }, [
    'preflight',
    'operator',
  ]);
  return { ...fresh, ...extra };
}

function usageError(error: unknown, pattern: RegExp): true {
  assert.ok(isCtlError(error), String(error));
  assert.equal(error.exitCode, ExitCode.usage);
  assert.match(`${error.message}\n${error.hint ?? ''}`, pattern);
  return true;
}

describe('run --plan: the saved plan a run was started from', () => {
  it('records the plan file (absolute) and its fingerprint, nothing of its content', () => {
    const record = savedPlanRecord('plans/plan.json', plan());
    assert.equal(record.file, join(process.cwd(), 'plans/plan.json'));
    assert.deepEqual(Object.keys(record).sort(), ['file', 'fingerprint']);
    assert.equal(record.fingerprint, FINGERPRINT);
  });

  it('knows its run by the recorded plan, or by the fingerprint of a state of an earlier ctl', () => {
    const recorded = state({ savedPlan: { file: '/p.json', fingerprint: FINGERPRINT } });
    assert.equal(startedFromSavedPlan(recorded, plan(), false), true);
    assert.equal(startedFromSavedPlan(recorded, plan(), true), false, 'a finished run is not resumed');
    assert.equal(startedFromSavedPlan(recorded, plan(target(), `sha256:${'b'.repeat(64)}`), false), false);
    // An earlier ctl: no savedPlan, the fingerprint of the plan its last invocation ran.
    assert.equal(startedFromSavedPlan(state({ planFingerprint: FINGERPRINT }), plan(), false), true);
    // A recorded savedPlan decides, whatever planFingerprint a later --to resume wrote.
    const resumedWithTo = state({
      planFingerprint: FINGERPRINT,
      savedPlan: { file: '/p.json', fingerprint: `sha256:${'c'.repeat(64)}` },
    });
    assert.equal(startedFromSavedPlan(resumedWithTo, plan(), false), false);
    const otherTarget = { ...state({ planFingerprint: FINGERPRINT }), target: { operator: '7.22.0-7' } };
    assert.equal(startedFromSavedPlan(otherTarget, plan(), false), false);
  });
});

describe('run --plan: the plan to make again', () => {
  it('repeats the selection and the location, not the resolved defaults (exit 7)', () => {
    const stale = plan(
      target({
        databases: { kind: 'names', names: ['orders', 'shop/cart'] },
        ignoreChecks: ['release-advisories'],
        bundle: 'https://example.test/bundle.yaml',
        helm: { release: 'redis', chart: 'redis/redis-enterprise-operator', repo: null },
        userDefinedModules: [{ name: 'custom', source: { https: { url: 'https://example.test/m.zip' } } }],
      }),
    );
    const error = stalePlanError('plan.json', stale, ['-n', 'redis', '--context', 'kind dev']);
    assert.equal(error.exitCode, ExitCode.stalePlan);
    assert.equal(
      error.hint,
      "Make a new plan: ctl upgrade plan --to 7.8.2-6 --databases orders,shop/cart --ignore-check release-advisories --bundle https://example.test/bundle.yaml -n redis --context 'kind dev' --out plan.json (and --user-defined-modules FILE as before)",
    );
    assert.deepEqual(selectionFlags(target({ databases: { kind: 'none' } })), ['--databases', 'none']);
    // The bundle for the bundle method only, the helm flags for helm only.
    const both = {
      bundle: 'https://example.test/b.yaml',
      helm: { release: 'r', chart: 'mine/chart', repo: 'https://charts.example.test' },
    };
    assert.deepEqual(selectionFlags({ ...target(both), method: 'helm' }), [
      '--helm-release',
      'r',
      '--helm-chart',
      'mine/chart',
      '--helm-repo',
      'https://charts.example.test',
    ]);
    assert.deepEqual(selectionFlags({ ...target(both), method: 'olm' }), []);
    assert.deepEqual(selectionFlags(target()), []);
  });
});

describe('run resumed with --to: the saved plan selection', () => {
  it('names each choice that differs; the default helm chart and repository written out change nothing', () => {
    const saved = target({ databases: { kind: 'names', names: ['orders'] }, ignoreChecks: ['b', 'a'] });
    const now = target({
      ignoreChecks: ['a', 'b'],
      helm: { release: null, chart: 'redis/redis-enterprise-operator', repo: 'https://helm.redis.io' },
    });
    assert.deepEqual(selectionDifferences(saved, now), ['databases orders in the plan, all now']);
    const modules = [{ name: 'custom', source: { https: { url: 'https://example.test/a.zip' } } }];
    const otherSource = [{ name: 'custom', source: { https: { url: 'https://example.test/b.zip' } } }];
    assert.deepEqual(
      selectionDifferences(
        target({ userDefinedModules: modules }),
        target({ userDefinedModules: otherSource }),
      ),
      ["user-defined modules differ from the plan's (custom)"],
    );
    assert.deepEqual(selectionDifferences({ ...saved, clusterVersion: '7.8.2-40' }, saved), [
      'cluster version 7.8.2-40 in the plan, 7.8.2-34 now',
    ]);
  });

  it('goes on with the same selection, refuses another (exit 2) with the command that resumes', async () => {
    const dir = tempDir('ctl-saved-plan-');
    const file = join(dir, 'plan.json');
    const saved = plan(target({ databases: { kind: 'names', names: ['orders'] } }));
    await writeFile(file, JSON.stringify(saved));
    const recorded = state({
      savedPlan: { file, fingerprint: FINGERPRINT },
      resumeCommand: `ctl upgrade run --plan ${file} --yes`,
    });
    await checkResumeKeepsSavedPlan(
      recorded,
      plan(saved.target, 'sha256:fresh'),
      '/state.json',
      {},
      noWarning,
    );
    await assert.rejects(
      checkResumeKeepsSavedPlan(recorded, plan(target(), 'sha256:fresh'), '/state.json', {}, noWarning),
      (error) =>
        usageError(
          error,
          new RegExp(
            `started from the saved plan ${file}; this run would change its selection: databases orders in the plan, all now\\nResume it as it was started: ctl upgrade run --plan ${file} --yes`,
          ),
        ),
    );
    // A state without a saved plan (a --to run): nothing to keep.
    await checkResumeKeepsSavedPlan(
      state({ resumeCommand: 'ctl upgrade run --to 7.8.2-6 --yes' }),
      plan(target(), 'sha256:fresh'),
      '/state.json',
      {},
      noWarning,
    );
  });

  it('warns when a state of an earlier ctl shows a --plan it did not record, and goes on', async () => {
    const warnings: string[] = [];
    const earlier = state({ resumeCommand: "ctl upgrade run --plan '/my plans/p.json' --yes" });
    await checkResumeKeepsSavedPlan(earlier, plan(target(), 'sha256:fresh'), '/state.json', {}, (m) =>
      warnings.push(m),
    );
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0] ?? '',
      /started with --plan by an earlier ctl, which did not record the plan: .*run: ctl upgrade run --plan '\/my plans\/p\.json' --yes$/,
    );
    assert.equal(startedWithPlanFlag('ctl upgrade run --plan=p.json'), true);
    assert.equal(startedWithPlanFlag('ctl upgrade run --to 7.8.2-6 --databases orders'), false);
    assert.equal(startedWithPlanFlag('ctl upgrade run --to 7.8.2-6 --planned'), false);
  });

  it('says it cannot know when the plan file is gone or changed (exit 2)', async () => {
    const dir = tempDir('ctl-saved-plan-');
    const file = join(dir, 'plan.json');
    const recorded = state({ savedPlan: { file, fingerprint: FINGERPRINT } });
    const now = plan(target(), 'sha256:fresh');
    await assert.rejects(checkResumeKeepsSavedPlan(recorded, now, '/state.json', {}, noWarning), (error) =>
      usageError(
        error,
        /which is gone: ctl cannot tell whether this run keeps its selection\nPut that plan back/,
      ),
    );
    await writeFile(file, JSON.stringify(plan(target(), `sha256:${'d'.repeat(64)}`)));
    await assert.rejects(checkResumeKeepsSavedPlan(recorded, now, '/state.json', {}, noWarning), (error) =>
      usageError(error, /which has changed since: ctl cannot tell/),
    );
  });
});
