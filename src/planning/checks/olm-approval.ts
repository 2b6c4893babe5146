/**
 * `olm-approval`: under OLM, approval cannot carry the operator past the target: reads the
 * Subscription's approval and the head of its channel. Automatic approval with a head past the
 * target warns; on a hop before the last the fix is Manual approval alone.
 */

import { compareOperatorVersions, parseOperatorVersion } from '../../release/versions.js';
import { csvVersion, olmRoute } from '../olm.js';
import { type Check, type CheckInput, type Outcome, pass, warn } from './check.js';
import { oc } from '../equivalent-commands.js';

/**
 * Automatic approval installs whatever the subscribed channel's head is. When that head is past
 * the target, OLM can move the operator beyond it as soon as it resolves: say so, with the fix.
 */
function checkOlmApproval({ snapshot, target, resolved }: CheckInput): Outcome {
  const olm = snapshot.olm;
  const sub = olm?.subscription;
  if (resolved.method !== 'olm' || !olm || !sub) return pass('the operator is not upgraded through OLM here');
  if (sub.approval !== 'Automatic')
    return pass(`Subscription ${sub.name}: Manual approval, ctl approves only the target`);
  const route = olmRoute(olm, target.operator);
  const head = csvVersion(route.channelHead);
  const headParsed = parseOperatorVersion(head ?? '');
  const wanted = parseOperatorVersion(target.operator);
  if (head && headParsed && wanted && compareOperatorVersions(headParsed, wanted) > 0) {
    const ns = snapshot.operator?.namespace ?? snapshot.namespace;
    const manual = `Switch to Manual approval: ${oc(snapshot.kubeTarget, 'patch', 'subscription', sub.name, '-n', ns, '--type', 'merge', '-p', JSON.stringify({ spec: { installPlanApproval: 'Manual' } }))}`;
    // On a hop before the last (hops.ts hopTarget), one run goes through every hop: a run
    // `--to <head>` would end the upgrade there, short of the final target.
    const fix = target.onTheWayTo
      ? `${manual} (${target.operator} is a stop on the way to ${target.onTheWayTo}, which the same run goes on to)`
      : `${manual} — or target the head: --to ${head}`;
    return warn(
      `Subscription ${sub.name} approves automatically and the head of its channel ${sub.channel ?? '?'} is ${head}, past the target ${target.operator}: OLM may install ${head}`,
      fix,
    );
  }
  return pass(
    `Subscription ${sub.name}: Automatic approval; OLM installs the head of channel ${route.targetChannel ?? sub.channel ?? '?'} (${route.targetCsv})`,
  );
}

export const olmApprovalCheck = {
  id: 'olm-approval',
  run: checkOlmApproval,
} as const satisfies Check;
