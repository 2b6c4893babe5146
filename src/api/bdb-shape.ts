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
  if (typeof bdb.uid === 'number' && !Number.isSafeInteger(bdb.uid)) throw inexactUid(bdb.uid, where);
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
 * The uid is an "integer; Cluster unique ID of database. Can be set during creation but cannot be
 * updated" (redis/docs content/operate/rs/references/rest-api/objects/bdb/_index.md): the
 * reference sets no maximum, and a uid given at creation may be any integer. JSON.parse reads a
 * number above 2^53 - 1 to the nearest double (9007199254740993 reads as ...992), so ctl would
 * read, count and upgrade a uid that may be another database's. Such an answer is refused,
 * naming the limit, rather than acted on with a uid ctl cannot hold exactly.
 */
function inexactUid(uid: number, where: string): MalformedAnswerError {
  return new MalformedAnswerError(
    `${where}: the management API answered a database uid above ${Number.MAX_SAFE_INTEGER} (read as ${uid}), which ctl cannot hold exactly: it might address another database`,
    {
      hint: `Upgrade the databases of this cluster by hand (POST /v1/bdbs/<uid>/upgrade with the uid as GET /v1/bdbs answers it), or ask for ctl to read uids beyond ${Number.MAX_SAFE_INTEGER}.`,
    },
  );
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
