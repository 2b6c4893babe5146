/**
 * `target-available`: what the run will fetch for the target exists (the bundle file, the helm
 * chart version, the CSV in an OLM channel): reads the probes' answers made before planning.
 * Missing fails; no answer warns. The decision lives with the probes (../target-available.ts).
 */

import { checkTargetAvailable } from '../target-available.js';
import type { Check } from './check.js';

export const targetAvailableCheck = {
  id: 'target-available',
  run: ({ snapshot, resolved }) => checkTargetAvailable(snapshot, resolved),
} as const satisfies Check;
