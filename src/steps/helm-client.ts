/**
 * The helm client ctl runs for a helm-installed operator, checked before anything changes:
 * - Redis requires helm 3.10 or later (DOCS kubernetes/deployment/helm.md): older fails;
 * - `--reset-then-reuse-values` needs helm 3.14: without it, the first `--set` ctl gives
 *   (openshift.mode, operator.image.tag) makes helm drop every value the user set at install, so
 *   a release with user values fails here too; one without gets a warning.
 * (redis-facts.md §12.)
 */

import type { Helm } from '../exec/helm.js';
import {
  below,
  HELM_WITH_RESET_THEN_REUSE,
  INSTALL_HELM,
  MIN_HELM,
  parseHelmVersion,
} from '../planning/helm-client-rules.js';

export type HelmClientVerdict = { ok: true; warning?: string } | { ok: false; message: string; fix: string };

/** `helm version`, as major and minor; undefined when helm does not say. */
export async function readHelmVersion(helm: Helm): Promise<[number, number] | undefined> {
  const { stdout } = await helm.read(['version', '--template', '{{.Version}}']);
  return parseHelmVersion(stdout);
}

/** `helm get values <release> -n <ns> -o json`: the user-supplied values only (not the chart's defaults). */
export async function readHelmValues(helm: Helm, release: string, namespace: string): Promise<string> {
  const { stdout } = await helm.read([
    'get',
    'values',
    release,
    '--namespace',
    namespace,
    '--output',
    'json',
  ]);
  return stdout;
}

export async function checkHelmClient(
  helm: Helm,
  release: string,
  namespace: string,
): Promise<HelmClientVerdict> {
  const version = await readHelmVersion(helm);
  if (!version)
    return { ok: true, warning: 'cannot read the helm version (helm version --template {{.Version}})' };
  const shown = `${version[0]}.${version[1]}`;
  if (below(version, MIN_HELM)) {
    return {
      ok: false,
      message: `helm ${shown} is older than 3.10, the oldest the Redis Enterprise operator chart supports`,
      fix: `${INSTALL_HELM}.`,
    };
  }
  if (!below(version, HELM_WITH_RESET_THEN_REUSE)) return { ok: true };
  const userValues = parseValues(await readHelmValues(helm, release, namespace));
  if (userValues.length > 0) {
    return {
      ok: false,
      message: `helm ${shown} has no --reset-then-reuse-values (3.14+), so the values release ${release} was installed with (${userValues.join(', ')}) would be lost in the upgrade`,
      fix: `${INSTALL_HELM}.`,
    };
  }
  return {
    ok: true,
    warning: `helm ${shown} has no --reset-then-reuse-values (3.14+); release ${release} has no user values, so nothing is lost`,
  };
}

/** The top-level keys of `helm get values -o json` (never their values: they may be secrets). */
function parseValues(stdout: string): string[] {
  try {
    const parsed = JSON.parse(stdout.trim() || 'null') as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.keys(parsed) : [];
  } catch {
    return ['(unreadable)'];
  }
}
