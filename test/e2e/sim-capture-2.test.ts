/** `ctl sim capture` round trips, quarter 2 of the built-in scenarios (sim-capture-support.ts). */
import { describeRoundTrips, scenariosOfPart } from './sim-capture-support.js';

describeRoundTrips('2 of 4', scenariosOfPart(2));
