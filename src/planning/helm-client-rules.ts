/**
 * Which helm client the Redis Enterprise operator chart supports (redis-facts.md §12):
 * - Redis requires helm 3.10 or later (DOCS kubernetes/deployment/helm.md);
 * - `--reset-then-reuse-values`, which the run needs to keep the values a release was installed
 *   with, came in helm 3.14.
 * Used by the plan (check helm-available) and the run (src/steps/helm-client.ts).
 */

export const MIN_HELM = [3, 10] as const;
export const HELM_WITH_RESET_THEN_REUSE = [3, 14] as const;

export const INSTALL_HELM =
  'Install helm 3.14 or later (https://helm.sh/docs/intro/install/) and point ctl at it (--helm-bin or CTL_HELM), then run the same command again';

export function below(version: readonly [number, number], floor: readonly [number, number]): boolean {
  return version[0] < floor[0] || (version[0] === floor[0] && version[1] < floor[1]);
}

export function parseHelmVersion(text: string): [number, number] | undefined {
  const match = /v?(\d+)\.(\d+)/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}
