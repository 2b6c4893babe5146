/**
 * An image reference split into its parts: `registry:5000/redislabs/redis:7.8.2-60@sha256:...`
 * -> repository `registry:5000/redislabs/redis`, tag `7.8.2-60`, digest `sha256:...`. A colon
 * before the last slash belongs to a registry port, not to a tag.
 */
export interface ImageReference {
  repository: string;
  tag?: string | undefined;
  digest?: string | undefined;
}

export function parseImageReference(image: string): ImageReference {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const slash = name.lastIndexOf('/');
  const colon = name.indexOf(':', slash + 1);
  return {
    repository: colon >= 0 ? name.slice(0, colon) : name,
    tag: colon >= 0 ? name.slice(colon + 1) : undefined,
    digest: at >= 0 ? image.slice(at + 1) : undefined,
  };
}
