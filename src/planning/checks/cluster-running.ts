/**
 * `cluster-running`: the cluster is Running (an upgrade starts only from there): reads the cluster
 * resource's status.state and status.specStatus. An upgrade already going towards the target (an
 * interrupted run) warns; any other state fails, with the wait or the place to read why.
 */

import { kubectl } from '../equivalent-commands.js';
import { type Check, type CheckInput, clusterOf, fail, type Outcome, pass, warn } from './check.js';

function checkClusterRunning(input: CheckInput): Outcome {
  const rec = clusterOf(input);
  const { resolved } = input;
  const get = kubectl(input.snapshot.kubeTarget, 'get', 'rec', rec.name, '-n', rec.namespace);
  if (rec.specStatus === 'Invalid') {
    return fail(
      `the cluster spec is Invalid (state ${rec.state ?? 'unknown'})`,
      `Read why in the operator's log: ${kubectl(input.snapshot.kubeTarget, 'logs', 'deploy/redis-enterprise-operator', '-n', input.snapshot.operator?.namespace ?? rec.namespace)} (and ${kubectl(input.snapshot.kubeTarget, 'describe', 'rec', rec.name, '-n', rec.namespace)}), and fix the spec it names.`,
    );
  }
  switch (rec.state) {
    case 'Running':
      return pass(`state Running, ${rec.nodes ?? '?'} nodes`);
    case 'Upgrade':
      // A run that was interrupted after the cluster step sees its own upgrade still going.
      if (rec.image.versionTag !== undefined && rec.image.versionTag === resolved.clusterTag.target) {
        return warn(
          `an upgrade to ${rec.image.versionTag} is in progress; the monitor step waits for it`,
          `Watch it with: ${get} -w`,
        );
      }
      return fail(
        'an upgrade is in progress (state Upgrade): the operator refuses another one until it ends',
        `Wait for state Running: ${kubectl(input.snapshot.kubeTarget, 'wait', `rec/${rec.name}`, '-n', rec.namespace, '--for=jsonpath={.status.state}=Running', '--timeout=60m')}`,
      );
    case 'InvalidUpgrade':
      return warn(
        'state InvalidUpgrade: the last upgrade request was refused (see auto-upgrade-digest and license-valid)',
        `Read why: ${kubectl(input.snapshot.kubeTarget, 'describe', 'rec', rec.name, '-n', rec.namespace)}`,
      );
    case undefined:
      return fail(
        'the cluster resource has no status yet: the operator has not reconciled it',
        `Check the operator: ${kubectl(input.snapshot.kubeTarget, 'get', 'deployment', 'redis-enterprise-operator', '-n', rec.namespace)}`,
      );
    default:
      return fail(
        `state ${rec.state}: an upgrade starts only from Running`,
        `Wait for Running or repair the cluster first: ${get}`,
      );
  }
}

export const clusterRunningCheck = {
  id: 'cluster-running',
  needsCluster: true,
  run: checkClusterRunning,
} as const satisfies Check;
