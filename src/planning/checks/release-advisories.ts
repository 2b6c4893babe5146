/**
 * `release-advisories`: no published advisory applies to the target with what this cluster runs:
 * reads the catalog's advisories and the resources that trigger them. The decision lives with the
 * advisories the plan also prints (../advisories.ts).
 */

import { checkReleaseAdvisories } from '../advisories.js';
import type { Check } from './check.js';

export const releaseAdvisoriesCheck = {
  id: 'release-advisories',
  run: ({ snapshot, target }) => checkReleaseAdvisories(snapshot, target),
} as const satisfies Check;
