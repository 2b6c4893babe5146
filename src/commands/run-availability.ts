/**
 * The run command's side of the availability measurement (src/run/availability/): which
 * databases it measures, when it runs (from the monitor step to the end of the databases step),
 * the `--max-unavailable` safe point before the databases step, and what the state keeps.
 */

import type { ApiClient } from '../api/client.js';
import { predictAvailability } from '../planning/availability-prediction.js';
import type { Snapshot } from '../planning/snapshot.js';
import { AvailabilityMeasurement } from '../run/availability/measurement.js';
import type { AvailabilityEntry } from '../run/availability/ledger.js';
import type { UpgradeState } from '../run/state.js';
import type { StepClock } from '../steps/deps.js';

/** The steps during which the databases are measured. */
const MEASURED_STEPS = new Set(['monitor', 'databases']);

export interface RunAvailability {
  measurement: AvailabilityMeasurement;
  /** The runner's hook: starts measuring at the monitor step; the limit's safe point before databases. */
  beforeStep(stepId: string): void;
  /** Stops measuring (the steps are over, or the run stopped) and returns the state with what it measured. */
  finish(state: UpgradeState): Promise<UpgradeState>;
  entries(): AvailabilityEntry[];
}

export function openRunAvailability(input: {
  api: ApiClient | undefined;
  snapshot: Snapshot;
  state: UpgradeState;
  clock: StepClock;
  maxUnavailableMs: number | undefined;
}): RunAvailability {
  const { snapshot } = input;
  const unreachable = !input.api || !snapshot.api.reachable;
  const databases = unreachable
    ? []
    : predictAvailability(snapshot).databases.map((db) => ({
        uid: db.uid,
        namespace: db.namespace,
        name: db.name,
      }));
  const why = `not measured: the management API was not reachable when the run started${snapshot.api.error ? ` (${snapshot.api.error})` : ''}`;
  const unmeasured = unreachable
    ? [
        ...snapshot.databases.map((db) => ({ namespace: db.namespace, name: db.name, why })),
        ...snapshot.activeActiveDatabases.map((db) => ({ namespace: db.namespace, name: db.name, why })),
      ]
    : [];
  const measurement = new AvailabilityMeasurement({
    api: input.api ?? { call: () => Promise.reject(new Error('no management API')) },
    clock: input.clock,
    databases,
    unmeasured,
    maxUnavailableMs: input.maxUnavailableMs,
    onDelete: snapshot.statefulSet?.updateStrategy === 'OnDelete',
    restored: input.state.availability,
  });
  return {
    measurement,
    beforeStep(stepId) {
      if (stepId === 'databases') {
        const over = measurement.overLimit('before the databases step');
        if (over) throw over;
      }
      if (MEASURED_STEPS.has(stepId)) measurement.start();
    },
    async finish(state) {
      await measurement.stop();
      return { ...state, availability: measurement.toState() as unknown as Record<string, unknown> };
    },
    entries: () => measurement.entries(),
  };
}
