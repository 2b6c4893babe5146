/** `ctl sim capture` round trips, second half of the built-in scenarios (sim-capture.test.ts has the first). */
import 'reflect-metadata';
import { describeRoundTrips, SCENARIOS } from './sim-capture-support.js';

describeRoundTrips('second half', SCENARIOS.slice(Math.ceil(SCENARIOS.length / 2)));
