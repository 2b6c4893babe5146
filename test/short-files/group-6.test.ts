/** Group 6 of the short test files in one process (./groups.ts says why). */
import { importShortGroup } from './groups.js';

await importShortGroup(6);
