/**
 * One folder or file name made from a name ctl did not choose (a kubeconfig context, a
 * namespace, a cluster): context names such as EKS ARNs carry ':' and '/', so every character
 * outside [A-Za-z0-9._-] becomes '_', and a name that would be empty, '.' or '..' becomes '_'.
 * The state file's path and the pinned CA file's path are made of these.
 */
export function pathSegment(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._-]/g, '_');
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? '_' : cleaned;
}
