/** Group 4 of the unit test files in one process (./groups.ts says why). */
import { importUnitGroup } from './groups.js';

await importUnitGroup(4);
