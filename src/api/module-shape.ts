/**
 * The fields of a module (GET /v1/modules) that ctl reads, held to the types the REST reference
 * gives the module object (redis/docs content/operate/rs/7.4/references/rest-api/objects/module.md,
 * the same in the 7.8 and 7.22 pages): `uid` string, "Cluster unique ID of module"; `module_name`, `display_name`, `semantic_version` strings;
 * `is_bundled` boolean; `platforms` a "platforms object", "Mapping operating system and
 * architecture to module information", keyed like `rhel9/x86_64` (each value the build's
 * `dependencies` and `sha256`). The current page lists no `platforms`: left out, it is absent,
 * and modules-compatible says it cannot tell.
 *
 * `platforms` answered as a list (`["rhel9/x86_64"]`) read as an object has the keys `0`, `1`:
 * the plan said a module had "platforms: 0" and no RHEL9 build. Now such a module, like a field
 * of any other type, is an answer that is not the management API's (`MalformedAnswerError`: the
 * plan's api-reachable check fails, exit 3), naming the module and the field.
 */

import { oneLine } from '../io/safe-text.js';
import { MalformedAnswerError, NOT_THE_API_HINT } from './api-errors.js';
import { type FieldTypes, firstDuplicateUid, kindOf, mistypedField } from './answer-fields.js';

const FIELDS = {
  uid: 'string',
  module_name: 'string',
  display_name: 'string',
  semantic_version: 'string',
  is_bundled: 'boolean',
} as const satisfies FieldTypes;

/**
 * Checks the fields ctl reads of one module object and drops the ones answered null; `where`
 * names its place in the answer (`GET /v1/modules: item 2`), to which the module's name and
 * version are added once they are known to be text.
 */
export function checkModuleShape(module: Record<string, unknown>, where: string): void {
  const mistyped = mistypedField(module, FIELDS);
  const bad = (what: string): MalformedAnswerError =>
    new MalformedAnswerError(
      `${where}${moduleLabel(module)}: the management API answered a module whose ${what}`,
      {
        hint: NOT_THE_API_HINT,
      },
    );
  if (mistyped) throw bad(mistyped);
  const platforms = module.platforms;
  if (platforms === null) delete module.platforms;
  else if (platforms !== undefined && (typeof platforms !== 'object' || Array.isArray(platforms)))
    throw bad(`platforms is ${kindOf(platforms)}, not an object keyed by platform (such as rhel9/x86_64)`);
}

/** ` (search 2.8.4)`: the module's own words, on one line and short, when they are text. */
function moduleLabel(module: Record<string, unknown>): string {
  const words = [module.module_name, module.semantic_version].filter(
    (word): word is string => typeof word === 'string' && word !== '',
  );
  if (words.length === 0) return '';
  const label = oneLine(words.join(' '));
  return ` (${label.length <= 80 ? label : `${label.slice(0, 79)}…`})`;
}

/**
 * A module list names each module once: the uid is the cluster's unique id of a module (objects/
 * module). Two builds of one module version (its RHEL8 and RHEL9 packages) are two modules with
 * two uids; one uid listed twice would count a module twice and leave which of its two platform
 * lists is true to the order of the answer (a RHEL9 build seen, or not, that the cluster may not
 * have), so the list is not the management API's: which uid, and where (`where` names the
 * request, `GET /v1/modules`).
 */
export function checkUniqueModuleUids(modules: readonly { uid?: unknown }[], where: string): void {
  const twice = firstDuplicateUid(modules, (module) =>
    typeof module.uid === 'string' ? module.uid : undefined,
  );
  if (twice)
    throw new MalformedAnswerError(
      `${where}: the management API listed module uid ${oneLine(twice.uid).slice(0, 80)} twice (items ${twice.first} and ${twice.second}); a module's uid is unique in its cluster`,
      { hint: NOT_THE_API_HINT },
    );
}
