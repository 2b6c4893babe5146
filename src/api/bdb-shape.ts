/**
 * The fields of a database (GET /v1/bdbs, /v1/bdbs/<uid>) that ctl reads, held to the types the
 * REST reference gives them (redis/docs content/operate/rs/references/rest-api/objects/bdb:
 * `status`, `redis_version` string; `crdt`, `replication` boolean; `shards_count` integer;
 * `module_list` an array of objects with `module_name`, `semantic_version` strings). A field the
 * server leaves out, or answers null, is absent; one of another type is an answer that is not the
 * management API's (`MalformedAnswerError`, the plan's exit 3), never a crash deeper in (a
 * `module_list` of "search" ended a plan in "unexpected failure: Cannot read properties of
 * undefined").
 */

import { MalformedAnswerError } from './api-errors.js';

const SCALARS = {
  status: 'string',
  redis_version: 'string',
  engine_version: 'string',
  crdt: 'boolean',
  replication: 'boolean',
  shards_count: 'number',
} as const;

const MODULE_FIELDS = { module_name: 'string', semantic_version: 'string' } as const;

/**
 * Checks the fields ctl reads of one bdb object and drops the ones answered null; `where` names it
 * for the message (`GET /v1/bdbs: item 2`).
 */
export function checkBdbShape(bdb: Record<string, unknown>, where: string): void {
  const bad = (what: string): MalformedAnswerError =>
    new MalformedAnswerError(`${where}: the management API answered a database whose ${what}`, {
      hint: 'Check that --api-url points at the management API (port 9443) and not at a proxy or another service.',
    });
  for (const [field, type] of Object.entries(SCALARS)) {
    if (bdb[field] === null) delete bdb[field];
    else if (bdb[field] !== undefined && typeof bdb[field] !== type) throw bad(`${field} is not a ${type}`);
  }
  if (bdb.module_list === null) delete bdb.module_list;
  if (bdb.module_list === undefined) return;
  if (!Array.isArray(bdb.module_list)) throw bad('module_list is not a list');
  bdb.module_list.forEach((module: unknown, index) => {
    if (module === null || typeof module !== 'object' || Array.isArray(module))
      throw bad(`module_list item ${index} is not an object`);
    const fields = module as Record<string, unknown>;
    if (typeof fields.module_name !== 'string')
      throw bad(`module_list item ${index} has no string module_name`);
    for (const [field, type] of Object.entries(MODULE_FIELDS)) {
      if (fields[field] === null) delete fields[field];
      else if (fields[field] !== undefined && typeof fields[field] !== type)
        throw bad(`module_list item ${index}'s ${field} is not a ${type}`);
    }
  });
}
