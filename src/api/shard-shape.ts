/**
 * The fields of a shard (GET /v1/shards) that ctl reads, held to the types the REST reference
 * gives the shard object (redis/docs content/operate/rs/references/rest-api/objects/shard):
 * `bdb_uid` integer; `role` 'master'|'slave', `status` 'active'|'inactive'|'trimming',
 * `detailed_status` 'ok'|'down'|..., `assigned_slots`, `uid` and `node_uid` strings. A uid
 * answered as an integer is the same uid (nodes are numbered by integers: objects/node), so it
 * is read too. A field left out or answered null is absent; one of another type is an answer
 * that is not the management API's (`MalformedAnswerError`).
 *
 * Why it matters: a `role` of 1 is neither master nor slave, so the run's availability
 * measurement skipped the shard and saw its database "up" whatever the shard's state, and a
 * `status` of 0 is not `active`, so the database would have been seen "down" by an answer that
 * says nothing. Values of the right type that ctl does not know (a role other than master and
 * slave) are judged where they are read: such a shard cannot be placed (the plan) and its
 * database cannot be seen (the run).
 */

import { MalformedAnswerError, NOT_THE_API_HINT } from './api-errors.js';
import { type FieldTypes, firstDuplicateUid, kindOf, mistypedField, uidText } from './answer-fields.js';

const FIELDS = {
  uid: ['string', 'integer'],
  bdb_uid: 'integer',
  node_uid: ['string', 'integer'],
  role: 'string',
  assigned_slots: 'string',
  status: 'string',
  detailed_status: 'string',
} as const satisfies FieldTypes;

/**
 * Checks every shard of a GET /v1/shards answer (each field ctl reads), dropping the fields
 * answered null; `where` names the request (`GET /v1/shards`).
 */
export function checkShardsShape(shards: unknown, where: string): void {
  if (!Array.isArray(shards))
    throw new MalformedAnswerError(
      `${where}: the management API answered ${kindOf(shards)} instead of a list`,
      {
        hint: NOT_THE_API_HINT,
      },
    );
  shards.forEach((shard: unknown, index) => checkShardShape(shard, `${where}: item ${index}`));
  // The uid is the cluster's unique id of a shard (objects/shard): one listed twice would count
  // its database's shards twice in the plan's prediction and, in the run, let one of its two
  // states (up, down) decide whether its database serves, by the order of the answer.
  const twice = firstDuplicateUid(shards, uidText);
  if (twice)
    throw new MalformedAnswerError(
      `${where}: the management API listed shard uid ${twice.uid} twice (items ${twice.first} and ${twice.second}); a shard's uid is unique in its cluster`,
      { hint: NOT_THE_API_HINT },
    );
}

/** Checks one shard; `where` names it (`GET /v1/shards: item 3`). */
export function checkShardShape(shard: unknown, where: string): void {
  const bad = (what: string): MalformedAnswerError =>
    new MalformedAnswerError(`${where}: the management API answered ${what}`, { hint: NOT_THE_API_HINT });
  if (shard === null || typeof shard !== 'object' || Array.isArray(shard))
    throw bad(`${kindOf(shard)} instead of a shard`);
  const fields = shard as Record<string, unknown>;
  // Every shard belongs to a database: one without its bdb_uid cannot be counted for any.
  if (fields.bdb_uid === undefined || fields.bdb_uid === null) throw bad('a shard without its bdb_uid');
  const mistyped = mistypedField(fields, FIELDS);
  if (mistyped) throw bad(`a shard whose ${mistyped}`);
}
