/**
 * The fields of a node (GET /v1/nodes) that ctl reads, held to the types the REST reference gives
 * the node object (redis/docs content/operate/rs/references/rest-api/objects/node.md, the same in
 * the 7.4, 7.8, 7.22 and 8.0 pages): `uid` integer, "Cluster unique ID of node";
 * `software_version` string, "Installed Redis Software cluster software version"; `status`
 * 'active'|'decommissioning'|'down'|'provisioning'. ctl reads no other field of a node (not its
 * addresses): the plan counts the nodes, places the shards on them by uid and takes the oldest
 * software version; the run's monitor and verification compare each node's version and status
 * with the target.
 *
 * A node without an integer uid or a string software_version, a status of another type, or a uid
 * listed twice is an answer that is not the management API's (`MalformedAnswerError`: the plan's
 * api-reachable fails, exit 3; in the run the step says so), naming the item and the field.
 * Before, a `status` of 1 made the run's verification say "not active, though the monitor step
 * finished" (a failed run blamed on the operator), and a node listed twice was counted twice
 * (the roll order placed two pods on it). A status string ctl does not know is judged where it
 * is read: such a node is not `active`.
 */

import { MalformedAnswerError, NOT_THE_API_HINT } from './api-errors.js';
import { type FieldTypes, firstDuplicateUid, kindOf, mistypedField } from './answer-fields.js';

const FIELDS = {
  uid: 'integer',
  software_version: 'string',
  status: 'string',
} as const satisfies FieldTypes;

/**
 * Checks every node of a GET /v1/nodes answer, dropping the fields answered null; `where` names
 * the request (`GET /v1/nodes`).
 */
export function checkNodesShape(nodes: unknown, where: string): void {
  const bad = (what: string): MalformedAnswerError =>
    new MalformedAnswerError(`${where}: the management API answered ${what}`, { hint: NOT_THE_API_HINT });
  if (!Array.isArray(nodes)) throw bad(`${kindOf(nodes)} instead of a list`);
  nodes.forEach((node: unknown, index) => {
    if (node === null || typeof node !== 'object' || Array.isArray(node))
      throw bad(`a list whose item ${index} is ${kindOf(node)}, not a node`);
    const fields = node as Record<string, unknown>;
    const mistyped = mistypedField(fields, FIELDS);
    if (mistyped) throw bad(`a node (item ${index}) whose ${mistyped}`);
    // Every node has both: its uid names it, its version is what the upgrade changes.
    if (fields.uid === undefined) throw bad(`a node (item ${index}) without its uid`);
    if (fields.software_version === undefined)
      throw bad(`a node (item ${index}) without its software_version`);
  });
  const twice = firstDuplicateUid(nodes as { uid: number }[], (node) => String(node.uid));
  if (twice)
    throw new MalformedAnswerError(
      `${where}: the management API listed node uid ${twice.uid} twice (items ${twice.first} and ${twice.second}); a node's uid is unique in its cluster`,
      { hint: NOT_THE_API_HINT },
    );
}
