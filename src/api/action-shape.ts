/**
 * The answers a run acts on when it changes the cluster through the management API, held to the
 * shapes the REST reference gives them:
 *
 * - The action (GET /v1/actions/<uid>; redis/docs content/operate/rs/references/rest-api/
 *   requests/actions/_index.md "Get a specific action v1", and objects/action.md): `action_uid`,
 *   `name`, `status` strings ("each action contains the following attributes: name, action_uid,
 *   status, and progress"); `progress` a float 0-100, though the page's own example answers it
 *   as text ("progress": "100"), so a number in text is read as that number; `error_code`,
 *   `error_message` strings ("When a task fails, the error_code and error_message fields
 *   describe the error"); v2's `additional_info` an object.
 * - The answer that starts one: POST /v2/modules "Returns a module object with an additional
 *   action_uid field" (requests/modules/_index.md "Upload module v2", RS 7.4 to 7.22 pages; the
 *   8.0+ pages drop the request), and POST /v1/bdbs/<uid>/upgrade, whose action_uid, when it
 *   gives one, is what the run waits for.
 *
 * Why: the run waited for `action_uid` of the upload's answer without looking at it; an answer
 * without one made it ask for /v1/actions/undefined, whose 404 reads as "the action is over", and
 * the run went on as if the module were installed. A `status` of another type, or an action
 * other than the one asked for, is no status at all. Each is now a `MalformedAnswerError` naming
 * the request and the field; the step that waits says what it could not tell (exit 1).
 */

import { oneLine } from '../io/safe-text.js';
import { MalformedAnswerError, NOT_THE_API_HINT } from './api-errors.js';
import { type FieldTypes, kindOf, mistypedField } from './answer-fields.js';
import { checkModuleShape } from './module-shape.js';

const ACTION_FIELDS = {
  action_uid: 'string',
  name: 'string',
  status: 'string',
  progress: ['number', 'string'],
  error_code: 'string',
  error_message: 'string',
  additional_info: 'object',
} as const satisfies FieldTypes;

/**
 * Checks an action answered for `uid`, dropping the fields answered null and reading a progress
 * in text as its number; `where` names the request (`GET /v1/actions/<uid>`).
 */
export function checkActionShape(action: unknown, uid: string, where: string): void {
  const bad = (what: string): MalformedAnswerError =>
    new MalformedAnswerError(`${where}: the management API answered ${what}`, { hint: NOT_THE_API_HINT });
  if (action === null || typeof action !== 'object' || Array.isArray(action))
    throw bad(`${kindOf(action)} instead of an action`);
  const fields = action as Record<string, unknown>;
  const mistyped = mistypedField(fields, ACTION_FIELDS);
  if (mistyped) throw bad(`an action whose ${mistyped}`);
  if (fields.status === undefined) throw bad('an action without its status');
  if (fields.action_uid !== undefined && fields.action_uid !== uid)
    throw bad(`the action ${quote(fields.action_uid as string)}, not the one asked for`);
  if (typeof fields.progress === 'string') {
    const progress = fields.progress.trim() === '' ? Number.NaN : Number(fields.progress);
    if (!Number.isFinite(progress))
      throw bad(`an action whose progress is not a number (it is the text ${quote(fields.progress)})`);
    fields.progress = progress;
  }
}

/**
 * Checks the answer of POST /v2/modules: a module (its fields as in GET /v1/modules) with the
 * action_uid of the upload; `where` names the request and the file.
 */
export function checkModuleUploadAnswer(answer: unknown, where: string): void {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer))
    throw new MalformedAnswerError(
      `${where}: the management API answered ${kindOf(answer)} instead of the module it uploads`,
      { hint: NOT_THE_API_HINT },
    );
  const fields = answer as Record<string, unknown>;
  checkModuleShape(fields, where);
  if (typeof fields.module_name !== 'string' || typeof fields.semantic_version !== 'string')
    throw new MalformedAnswerError(
      `${where}: the management API answered a module without its module_name and semantic_version`,
      { hint: NOT_THE_API_HINT },
    );
  checkStartedAction(fields, where, true);
}

/**
 * The `action_uid` of an answer that starts an action: a string that is not empty; `required`
 * when the request is documented to start one always (an upload), else only when given.
 */
export function checkStartedAction(answer: Record<string, unknown>, where: string, required: boolean): void {
  const uid = answer.action_uid;
  if (uid === undefined || uid === null) {
    if (!required) return;
    throw new MalformedAnswerError(
      `${where}: the management API answered without the action_uid of the action it started`,
      { hint: NOT_THE_API_HINT },
    );
  }
  if (typeof uid !== 'string' || uid.trim() === '')
    throw new MalformedAnswerError(
      `${where}: the management API answered an action_uid that is ${typeof uid === 'string' ? 'empty' : kindOf(uid)}, not the text of an action's uid`,
      { hint: NOT_THE_API_HINT },
    );
}

/** The server's words, on one line and short. */
function quote(text: string): string {
  const line = oneLine(text);
  return `"${line.length <= 80 ? line : `${line.slice(0, 79)}…`}"`;
}
