/** `ctl sim capture` round trips, quarter 4 of the built-in scenarios (sim-capture-support.ts). */
import { describeRoundTrips, scenariosOfPart } from './sim-capture-support.js';

describeRoundTrips('4 of 4', scenariosOfPart(4));
