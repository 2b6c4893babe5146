/**
 * What helm accepts as a release name (helm v3 and v4, pkg/chartutil validate_name.go
 * `ValidateReleaseName`): lowercase letters, digits, `-` and `.` in DNS-1123 subdomain form,
 * at most 53 characters (a Kubernetes name is 63; helm keeps 10 for what charts add to it).
 * ctl checks it before a name reaches helm's argv or a label selector: a name from the operator
 * Deployment's `meta.helm.sh/release-name` annotation is whatever the cluster holds, and one such
 * as `--post-renderer=...` or `x,owner!=helm` would be read as something else than a name.
 */

const RELEASE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_RELEASE_NAME = 53;

/** Why `name` is not a helm release name, or undefined when it is one. */
export function helmReleaseNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > MAX_RELEASE_NAME)
    return `it has ${name.length} characters, and helm takes at most ${MAX_RELEASE_NAME}`;
  if (!RELEASE_NAME.test(name))
    return "helm takes only lowercase letters, digits, '-' and '.', beginning and ending with a letter or digit";
  return undefined;
}

const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Why a helm release's name or namespace cannot be given to helm, or undefined: the name by
 * helm's rule above, the namespace as a Kubernetes namespace (a DNS-1123 label, at most 63).
 */
export function helmReleaseLocationProblem(
  release: string,
  namespace: string,
): { part: 'name' | 'namespace'; problem: string } | undefined {
  const nameProblem = helmReleaseNameProblem(release);
  if (nameProblem) return { part: 'name', problem: `release name: ${nameProblem}` };
  if (namespace.length > 63 || !NAMESPACE.test(namespace))
    return {
      part: 'namespace',
      problem:
        'release namespace: not a Kubernetes namespace name (lowercase letters, digits and -, at most 63)',
    };
  return undefined;
}
