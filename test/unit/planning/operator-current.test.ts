import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { operatorAtTargetNotReady, operatorStepIsDone } from '../../../src/planning/operator-current.js';

const at = (current: string | undefined, target = '7.8.2-6') => ({ operator: { current, target } });
const ready = { replicas: 1, readyReplicas: 1 };
const down = { replicas: 1, readyReplicas: 0 };

describe('operator-current', () => {
  it('an operator at the target but not ready is not done', () => {
    assert.equal(operatorAtTargetNotReady(down, at('7.8.2-6')), true);
    assert.equal(operatorStepIsDone(down, at('7.8.2-6')), false);
    assert.equal(operatorStepIsDone(ready, at('7.8.2-6')), true);
  });

  it('readiness matters only at the target: older is upgraded anyway, newer is never downgraded', () => {
    assert.equal(operatorAtTargetNotReady(down, at('7.4.6-2')), false);
    assert.equal(operatorStepIsDone(down, at('7.4.6-2')), false);
    assert.equal(operatorAtTargetNotReady(down, at('8.0.2-2')), false);
    assert.equal(operatorStepIsDone(down, at('8.0.2-2')), true);
    assert.equal(operatorAtTargetNotReady(undefined, at('7.8.2-6')), false);
    assert.equal(operatorAtTargetNotReady(down, at(undefined)), false);
  });
});
