/**
 * Best effort, after the roll: every node reports the target's software version in the
 * management API (`GET /v1/nodes`); the step's outcome lists the versions it read. A node behind
 * is a warning, not a failure: the roll itself was judged from the pods (./monitor-view.ts).
 */

import { MalformedAnswerError } from '../api/api-errors.js';
import type { ApiNode } from '../api/types.js';
import { findTlsFailure } from '../api/tls-errors.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import { judgeNodes, rsVersionOfTag } from './roll-facts.js';

/** Best effort: every node reports the target's software version (GET /v1/nodes). */
export async function verifyNodes(ctx: StepContext<UpgradeDeps>, tag: string): Promise<string[] | undefined> {
  let nodes: ApiNode[];
  try {
    nodes = await ctx.deps.api.listNodes();
  } catch (error) {
    // Best effort, but not past a certificate that stopped being trusted (docs/exit-codes.md).
    if (findTlsFailure(error)) throw error;
    // An answer not in the node object's form (src/api/node-shape.ts) names the node and the
    // field, and says what to look at.
    const hint = error instanceof MalformedAnswerError && error.hint ? ` ${error.hint}` : '';
    ctx.warn(
      `could not read the nodes' software versions from the management API: ${(error as Error).message}${hint}`,
    );
    return undefined;
  }
  const seen = judgeNodes(nodes, tag);
  if (seen.behind.length > 0) {
    ctx.warn(
      `node${seen.behind.length === 1 ? '' : 's'} ${seen.behind.join(', ')} do${seen.behind.length === 1 ? 'es' : ''} not report ${rsVersionOfTag(tag)} yet`,
    );
  }
  const { versions } = seen;
  return versions;
}
