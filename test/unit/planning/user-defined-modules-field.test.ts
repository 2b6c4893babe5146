/**
 * `--user-defined-modules` and the CRD the cluster step writes through (check
 * modules-compatible, src/planning/user-defined-modules-field.ts): the list is kept only where
 * the cluster resource's CRD declares spec.userDefinedModules. When the operator step installs
 * the target's CRD, nothing more is asked; when it does not run (--skip, --only, or the operator
 * already on the target), the CRD read by the plan decides: fail where it lacks the field, warn
 * where it could not be read.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runChecks } from '../../../src/planning/checks/index.js';
import { type ClusterCrdFacts, clusterCrdFacts } from '../../../src/planning/cluster-crd.js';
import { runsStep } from '../../../src/planning/step-selection.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import type { Target } from '../../../src/planning/target.js';
import type { KubeObject } from '../../../src/kube/reads.js';
import { resumeCommandFor } from '../../../src/commands/run-state-choice.js';
import type { RunCommandInput } from '../../../src/commands/run-input.js';
import type { Plan } from '../../../src/planning/plan.js';
import { shellQuote } from '../../../src/io/shell-words.js';
import { crdsFor } from '../../../src/sim/crds.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

const TARGET = '8.0.6-8';
const MODULES = [{ name: 'quillmark', source: { https: { url: 'https://mirror.example/quillmark.zip' } } }];

function recCrd(operatorVersion: string): KubeObject {
  const crd = crdsFor('redis', operatorVersion).find(
    (c) => (c as KubeObject).metadata?.name === 'redisenterpriseclusters.app.redislabs.com',
  );
  assert.ok(crd);
  return crd as KubeObject;
}

function modulesCheck(options: {
  operator: string;
  crd?: ClusterCrdFacts | undefined;
  steps?: Target['steps'];
  to?: string;
  ignore?: boolean;
}) {
  const snapshot: Snapshot = makeSnapshot((s) => {
    if (s.operator) {
      s.operator.version = options.operator;
      s.operator.image = `redislabs/operator:${options.operator}`;
    }
    if (options.crd) s.clusterCrd = options.crd;
  });
  const target: Target = {
    ...makeTarget({
      to: options.to ?? TARGET,
      ...(options.ignore ? { ignoreCheck: 'modules-compatible' } : {}),
    }),
    userDefinedModules: MODULES,
    steps: options.steps,
  };
  const check = runChecks(snapshot, target, { required: REQUIRED_PERMISSIONS }).find(
    (c) => c.id === 'modules-compatible',
  );
  assert.ok(check);
  return check;
}

const OLD = clusterCrdFacts(recCrd('7.22.2-43'));
const NEW = clusterCrdFacts(recCrd(TARGET));

describe('the REC CRD and spec.userDefinedModules', () => {
  it('reads the declaration per served version', () => {
    assert.deepEqual(OLD, { read: true, declaresUserDefinedModules: { v1: false, v1alpha1: false } });
    assert.deepEqual(NEW, { read: true, declaresUserDefinedModules: { v1: true, v1alpha1: true } });
  });

  it('the operator step installs the target CRD: the live one is not judged', () => {
    const check = modulesCheck({ operator: '7.22.2-43', crd: OLD });
    assert.equal(check.status, 'pass', check.message);
    assert.doesNotMatch(check.message, /CRD/);
  });

  it('--skip operator on a CRD without the field: a fail --ignore-check cannot get past', () => {
    const check = modulesCheck({ operator: '7.22.2-43', crd: OLD, steps: { only: [], skip: ['operator'] } });
    assert.equal(check.status, 'fail');
    assert.equal(check.ignorable, false);
    assert.match(
      check.message,
      /CRD redisenterpriseclusters\.app\.redislabs\.com does not declare spec\.userDefinedModules \(version v1\) and the operator step does not run/,
    );
    assert.match(check.message, /drop the list \(quillmark\)/);
    assert.match(check.fix, /drop --skip operator/);
    assert.match(check.fix, /v8\.0\.6-8\/crds\/rec_crd\.yaml/);
  });

  it('--only without the operator step is the same', () => {
    const check = modulesCheck({ operator: '7.22.2-43', crd: OLD, steps: { only: ['cluster'], skip: [] } });
    assert.equal(check.status, 'fail');
  });

  it('--skip operator on a CRD with the field passes and says so', () => {
    const check = modulesCheck({ operator: '7.22.2-43', crd: NEW, steps: { only: [], skip: ['operator'] } });
    assert.equal(check.status, 'pass', check.message);
    assert.match(check.message, /declares spec\.userDefinedModules/);
  });

  it('an operator already on the target with an old CRD (upgraded without its CRDs) fails', () => {
    const check = modulesCheck({ operator: TARGET, crd: OLD });
    assert.equal(check.status, 'fail');
    assert.match(check.message, /the operator already runs 8\.0\.6-8, so the run installs no CRD/);
    assert.match(check.fix, /Apply the cluster resource's CRD of operator 8\.0\.6-8/);
  });

  it('a CRD that could not be read: cannot tell (warn), not pass', () => {
    const check = modulesCheck({
      operator: '7.22.2-43',
      crd: { read: false, error: 'get crd redisenterpriseclusters.app.redislabs.com: forbidden' },
      steps: { only: [], skip: ['operator'] },
    });
    assert.equal(check.status, 'warn');
    assert.match(
      check.message,
      /cannot tell whether the CRD .* declares spec\.userDefinedModules \(.*forbidden\)/,
    );
    assert.match(check.fix, /kubectl get crd redisenterpriseclusters\.app\.redislabs\.com/);
  });

  it('--ignore-check modules-compatible leaves it failing and says why', () => {
    const check = modulesCheck({
      operator: '7.22.2-43',
      crd: OLD,
      steps: { only: [], skip: ['operator'] },
      ignore: true,
    });
    assert.equal(check.status, 'fail');
    assert.equal(check.ignored, undefined);
    assert.equal(check.ignorable, false);
    assert.match(
      check.message,
      /\(--ignore-check modules-compatible cannot get past it: the API server drops spec\.userDefinedModules whatever ctl ignores\)$/,
    );
  });

  it('runsStep follows the runner: --only first, then --skip', () => {
    assert.equal(runsStep(undefined, 'operator'), true);
    assert.equal(runsStep({ only: [], skip: ['operator'] }, 'operator'), false);
    assert.equal(runsStep({ only: ['cluster'], skip: [] }, 'operator'), false);
    assert.equal(runsStep({ only: ['operator', 'cluster'], skip: ['cluster'] }, 'cluster'), false);
  });
});

describe('the resume command without argv', () => {
  it('repeats --user-defined-modules and the other plan flags', () => {
    const input = {
      globals: {},
      env: {},
      argv: undefined,
      statePath: undefined,
      stateStore: 'file',
      remediate: false,
      moduleFiles: [],
      yes: true,
      planArgs: {
        location: [],
        plan: ['--user-defined-modules', './modules list.yaml', '--databases', 'none'],
      },
    } as unknown as RunCommandInput;
    const plan = { target: { operator: TARGET } } as Plan;
    const command = resumeCommandFor(
      input,
      { context: 'ctx', namespace: 'scriptorium', cluster: 'codex' },
      plan,
      '/state.json',
    );
    // A relative file is printed absolute (from the folder the run was started in), so that the
    // line pastes from any folder (src/commands/next-command.ts pastedRunCommand).
    const file = shellQuote(path.resolve('modules list.yaml'));
    assert.ok(command.includes(`--to 8.0.6-8 --user-defined-modules ${file} --databases none `), command);
    assert.match(command, / -n scriptorium --cluster codex /);
  });
});
