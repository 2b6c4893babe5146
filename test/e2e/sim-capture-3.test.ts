/** `ctl sim capture` round trips, quarter 3 of the built-in scenarios (sim-capture-support.ts). */
import { describeRoundTrips, scenariosOfPart } from './sim-capture-support.js';

describeRoundTrips('3 of 4', scenariosOfPart(3));
