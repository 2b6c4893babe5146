/**
 * The fields of a database (GET /v1/bdbs, /v1/bdbs/<uid>) that ctl reads, held to the types the
 * REST reference gives them (redis/docs content/operate/rs/references/rest-api/objects/bdb:
 * `status`, `redis_version`, `action_uid` string; `crdt`, `replication` boolean; `shards_count` integer;
 * `module_list` an array of objects with `module_name`, `semantic_version` strings). A field the
 * server leaves out, or answers null, is absent; one of another type is an answer that is not the
 * management API's (`MalformedAnswerError`, the plan's exit 3), never a crash deeper in (a
 * `module_list` of "search" ended a plan in "unexpected failure: Cannot read properties of
 * undefined").
 */

import { MalformedAnswerError, NOT_THE_API_HINT } from './api-errors.js';
import { type FieldTypes, mistypedField } from './answer-fields.js';

const SCALARS = {
  status: 'string',
  redis_version: 'string',
  engine_version: 'string',
  crdt: 'boolean',
  replication: 'boolean',
  shards_count: 'number',
  // "Currently running action's UID": what a resumed remediation waits for.
  action_uid: 'string',
} as const satisfies FieldTypes;

const MODULE_FIELDS = { module_name: 'string', semantic_version: 'string' } as const satisfies FieldTypes;

/**
 * Checks the fields ctl reads of one bdb object and drops the ones answered null; `where` names it
 * for the message (`GET /v1/bdbs: item 2`).
 */
export function checkBdbShape(bdb: Record<string, unknown>, where: string): void {
  const bad = (what: string): MalformedAnswerError =>
    new MalformedAnswerError(`${where}: the management API answered a database whose ${what}`, {
      hint: NOT_THE_API_HINT,
    });
  const mistyped = mistypedField(bdb, SCALARS);
  if (mistyped) throw bad(mistyped);
  if (bdb.module_list === null) delete bdb.module_list;
  if (bdb.module_list === undefined) return;
  if (!Array.isArray(bdb.module_list)) throw bad('module_list is not a list');
  bdb.module_list.forEach((module: unknown, index) => {
    if (module === null || typeof module !== 'object' || Array.isArray(module))
      throw bad(`module_list item ${index} is not an object`);
    const fields = module as Record<string, unknown>;
    if (typeof fields.module_name !== 'string')
      throw bad(`module_list item ${index} has no string module_name`);
    const mistypedModule = mistypedField(fields, MODULE_FIELDS);
    if (mistypedModule) throw bad(`module_list item ${index}'s ${mistypedModule}`);
  });
}

/**
 * A database list names each database once: the uid is the cluster's unique id of a database
 * (objects/bdb: "Cluster unique ID of database"). A uid listed twice would be counted, judged and
 * upgraded twice, so the list is not the management API's: which uid, and where (`where` names
 * the request, `GET /v1/bdbs`).
 */
export function checkUniqueBdbUids(bdbs: readonly { uid: number }[], where: string): void {
  const first = new Map<number, number>();
  bdbs.forEach((bdb, index) => {
    const earlier = first.get(bdb.uid);
    if (earlier !== undefined)
      throw new MalformedAnswerError(
        `${where}: the management API listed database uid ${bdb.uid} twice (items ${earlier} and ${index}); a database's uid is unique in its cluster`,
        { hint: NOT_THE_API_HINT },
      );
    first.set(bdb.uid, index);
  });
}
