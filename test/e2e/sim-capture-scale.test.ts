/** `ctl sim capture` round trips of the scenarios at scale, one at a time (sim-capture-support.ts: AT_SCALE). */
import assert from 'node:assert/strict';
import {
  AT_SCALE,
  describeRoundTrips,
  ROUND_TRIP_FILES,
  SCENARIOS,
  scenariosOfPart,
} from './sim-capture-support.js';

// Every built-in scenario is round-tripped once: in one of the four parts, or here.
const parts = Array.from({ length: ROUND_TRIP_FILES }, (_, index) => scenariosOfPart(index + 1));
assert.deepEqual([...parts.flat(), ...AT_SCALE].sort(), SCENARIOS);
assert.ok(AT_SCALE.length > 0, 'no scenario at scale: this file would test nothing');

describeRoundTrips('at scale, one at a time', AT_SCALE, 1);
