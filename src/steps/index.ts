import { admissionStep } from './admission.js';
import { clusterStep } from './cluster.js';
import { databasesStep } from './databases.js';
import type { UpgradeDeps } from './deps.js';
import { monitorStep } from './monitor.js';
import { operatorStep } from './operator.js';
import { preflightStep } from './preflight.js';
import { securityContextStep } from './security-context.js';
import { withSccRemovalAfterRoll } from './security-context-removal.js';
import type { Step } from './types.js';

/** The seven steps in the documented order: the only place where order lives. */
export const STEPS: readonly Step<UpgradeDeps>[] = [
  preflightStep,
  operatorStep,
  admissionStep,
  securityContextStep,
  clusterStep,
  // The monitor step also removes the OpenShift SCC once the roll is over (7.22.0-6 and later).
  withSccRemovalAfterRoll(monitorStep),
  databasesStep,
];
