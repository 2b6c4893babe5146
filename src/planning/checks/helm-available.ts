/**
 * `helm-available`: when the method is helm, the helm client the run will call is there and is
 * a version the operator chart supports (src/planning/helm-client-rules.ts: 3.10 or later, 3.14
 * for `--reset-then-reuse-values`). Reads what `<helm> version` answered before planning
 * (src/exec/helm-probe.ts: `--helm-bin`, CTL_HELM, else helm on the PATH). Missing or too old
 * fails, naming helm; the fix installs helm: a helm-managed operator is upgraded with helm, so
 * it never suggests another method. Older than 3.14 warns (the run stops if the release was
 * installed with values of its own).
 */

import {
  below,
  HELM_WITH_RESET_THEN_REUSE,
  INSTALL_HELM,
  MIN_HELM,
  parseHelmVersion,
} from '../helm-client-rules.js';
import { type Check, type CheckInput, fail, type Outcome, pass, warn } from './check.js';

function checkHelmAvailable({ snapshot, resolved }: CheckInput): Outcome {
  if (resolved.method !== 'helm') return pass('the operator is not upgraded with helm');
  const client = snapshot.helmClient;
  // Asked by `plan` and `run` before planning; a re-read inside the run (the preflight step)
  // does not ask again: the preflight step runs helm version itself before any change.
  if (!client) return pass('the helm client is asked by the preflight step, before any change');
  if (!client.found) {
    return fail(
      `helm was not found (${client.binary}: ${client.error ?? 'not found'}): the operator step upgrades release ${resolved.helm.release} with helm`,
      `${INSTALL_HELM}.`,
    );
  }
  const version = client.version ? parseHelmVersion(client.version) : undefined;
  if (!version) {
    return warn(
      `cannot read the version of ${client.binary}${client.error ? ` (${client.error})` : client.version ? ` ("${client.version}")` : ''}`,
      `Check it: ${client.binary} version (helm 3.10 or later is needed, 3.14 or later keeps the release's values).`,
    );
  }
  const shown = `${version[0]}.${version[1]}`;
  if (below(version, MIN_HELM)) {
    return fail(
      `helm ${shown} (${client.binary}) is older than 3.10, the oldest the Redis Enterprise operator chart supports`,
      `${INSTALL_HELM}.`,
    );
  }
  if (below(version, HELM_WITH_RESET_THEN_REUSE)) {
    return warn(
      `helm ${shown} (${client.binary}) has no --reset-then-reuse-values (3.14+): the run stops if release ${resolved.helm.release} was installed with values of its own`,
      `${INSTALL_HELM}.`,
    );
  }
  return pass(`helm ${client.version} (${client.binary})`);
}

export const helmAvailableCheck = {
  id: 'helm-available',
  run: checkHelmAvailable,
} as const satisfies Check;
