/**
 * `release-rules`: the release notes' upgrade rules and the release lines' end of life, judged
 * on this cluster and on every Active-Active participant: reads the catalog's `rules` and
 * `releaseLines`, the cluster's modules, resources and spec fields, the running operator, and
 * each participant's RS build. A `block` rule set off fails it (exit 3); a `warn` rule, a line
 * near or past its end of life, or a participant on another or an affected operator warns. The
 * decision lives with the rules (../release-rules.ts).
 */

import { checkReleaseRules } from '../release-rules.js';
import type { Check } from './check.js';

export const releaseRulesCheck = {
  id: 'release-rules',
  run: ({ snapshot, target, resolved }) => checkReleaseRules(snapshot, target, resolved),
} as const satisfies Check;
