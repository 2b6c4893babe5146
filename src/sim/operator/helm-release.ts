import { gunzipSync, gzipSync } from 'node:zlib';
import type { KubeObject } from '../kube/types.js';

/**
 * The Secret in which helm 3 and 4 keep a release (storage driver "secret"), so the real helm
 * sees a seeded install as its own: `helm list` shows it, `helm upgrade` upgrades it.
 *
 * Encoding (helm pkg/storage/driver/util.go): the release JSON, gzipped, base64-encoded; the
 * Secret's `data.release` holds that text, so base64 is applied twice on the wire.
 */
export interface HelmReleaseInput {
  release: string;
  namespace: string;
  chartName: string;
  chartVersion: string;
  appVersion: string;
  /** The rendered templates, as helm stores them (`---\n# Source: ...`). */
  manifest: string;
  /** User-supplied values (`--set`), stored as the release config. */
  config?: Record<string, unknown>;
  revision?: number;
  deployedAt: Date;
}

/** The labels and annotations helm puts on every object it creates for a release. */
export function helmOwnership(
  release: string,
  namespace: string,
): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  return {
    labels: { 'app.kubernetes.io/managed-by': 'Helm' },
    annotations: { 'meta.helm.sh/release-name': release, 'meta.helm.sh/release-namespace': namespace },
  };
}

export function helmReleaseSecret(input: HelmReleaseInput): KubeObject {
  const revision = input.revision ?? 1;
  // Go's RFC 3339 with nanoseconds is what helm writes; milliseconds parse the same way.
  const time = input.deployedAt.toISOString();
  const release = {
    name: input.release,
    info: {
      first_deployed: time,
      last_deployed: time,
      deleted: '',
      description: 'Install complete',
      status: 'deployed',
    },
    chart: {
      metadata: {
        name: input.chartName,
        version: input.chartVersion,
        description: 'Redis Enterprise operator (ctl simulator chart)',
        apiVersion: 'v2',
        appVersion: input.appVersion,
        type: 'application',
      },
      lock: null,
      templates: [],
      values: {},
      schema: null,
      files: [],
    },
    config: input.config ?? {},
    manifest: input.manifest,
    version: revision,
    namespace: input.namespace,
  };
  const encoded = gzipSync(Buffer.from(JSON.stringify(release), 'utf8')).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'helm.sh/release.v1',
    metadata: {
      name: `sh.helm.release.v1.${input.release}.v${revision}`,
      namespace: input.namespace,
      labels: {
        name: input.release,
        owner: 'helm',
        status: 'deployed',
        version: String(revision),
        modifiedAt: String(Math.floor(input.deployedAt.getTime() / 1000)),
      },
    },
    data: { release: Buffer.from(encoded, 'utf8').toString('base64') },
  };
}

/** Reads a release back (tests, and anyone checking what helm will see). */
export function decodeHelmRelease(secret: KubeObject): Record<string, unknown> {
  const data = (secret.data ?? {}) as Record<string, string>;
  const text = Buffer.from(data.release ?? '', 'base64').toString('utf8');
  return JSON.parse(gunzipSync(Buffer.from(text, 'base64')).toString('utf8')) as Record<string, unknown>;
}
