/**
 * Release manifests: the operator bundle (`bundle.yaml`, `openshift.bundle.yaml`) and the files
 * that sit next to it in the upstream release tree (`admission/webhook.yaml`,
 * `multi-namespace-redb/role.yaml`, `openshift/scc.yaml`). A location is a file path or an
 * http(s) URL; `{version}` in it is replaced by the target operator version, and the other
 * files are found relative to the bundle, so one `--bundle` template serves them all (the
 * simulator serves `/bundles/<version>/...` the same way).
 */

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OperationError } from '../errors.js';
import type { Io } from '../io/io.js';
import { parseYamlDocuments, yamlProblem } from '../io/yaml-from-outside.js';
import { download, isUrl, MIB } from './download.js';
import type { KubeObject } from './reads.js';

/** A file of the same release tree: `.../v7.8.2-6/bundle.yaml` + `admission/webhook.yaml`. */
export function siblingLocation(bundle: string, relative: string): string {
  if (isUrl(bundle)) return new URL(relative, bundle).toString();
  const path = bundle.startsWith('file:') ? fileURLToPath(bundle) : bundle;
  return join(dirname(path), relative);
}

export interface LoadOptions {
  /** Set on namespaced objects that carry none (as `kubectl apply -n <ns>` does). */
  namespace?: string | undefined;
  /** Text replaced before parsing, as the upstream docs' `sed s/OPERATOR_NAMESPACE/<ns>/g`. */
  replacements?: Record<string, string>;
  signal?: AbortSignal | undefined;
  io?: Io | undefined;
  /** For tests; default `process.env` (proxy variables). */
  env?: NodeJS.ProcessEnv;
}

/** Reads and parses a manifest file or URL into objects, in file order. */
export async function loadManifests(location: string, options: LoadOptions = {}): Promise<KubeObject[]> {
  const text = await readLocation(location, options);
  return parseManifests(text, location, options);
}

/** Kinds that have no namespace; everything else in a bundle is namespaced. */
export const CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set([
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'SecurityContextConstraints',
  'Namespace',
  'PriorityClass',
  'StorageClass',
  'APIService',
  'PersistentVolume',
]);

export function parseManifests(text: string, source: string, options: LoadOptions = {}): KubeObject[] {
  let replaced = text;
  for (const [from, to] of Object.entries(options.replacements ?? {}))
    replaced = replaced.replaceAll(from, to);
  let documents: unknown[];
  try {
    documents = parseYamlDocuments(replaced);
  } catch (error) {
    // Where and what, never the manifest's lines (yaml-from-outside.ts): a page served in its
    // place, or a manifest holding a Secret, may quote credentials.
    throw new OperationError(`${source} is not valid YAML: ${yamlProblem(error)}`, {
      hint: 'Check that --bundle points at a Kubernetes manifest file (not an HTML page or an archive).',
    });
  }
  const objects: KubeObject[] = [];
  for (const value of documents) {
    if (value === null || value === undefined) continue;
    for (const object of flattenList(value)) objects.push(withNamespace(object, source, options.namespace));
  }
  if (objects.length === 0) {
    throw new OperationError(`${source} holds no Kubernetes objects`, {
      hint: 'Check that --bundle points at the release manifest (bundle.yaml).',
    });
  }
  return objects;
}

function flattenList(value: unknown): KubeObject[] {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) return [value as KubeObject];
  const object = value as KubeObject;
  if (typeof object.kind === 'string' && object.kind.endsWith('List') && Array.isArray(object.items)) {
    return (object.items as unknown[]).flatMap(flattenList);
  }
  return [object];
}

function withNamespace(object: KubeObject, source: string, namespace: string | undefined): KubeObject {
  if (
    typeof object !== 'object' ||
    object === null ||
    !object.apiVersion ||
    !object.kind ||
    !object.metadata?.name
  ) {
    throw new OperationError(
      `${source}: a document is not a Kubernetes object (apiVersion, kind, metadata.name)`,
      {
        hint: 'Check that --bundle points at the release manifest (bundle.yaml).',
      },
    );
  }
  if (!namespace || CLUSTER_SCOPED_KINDS.has(object.kind) || object.metadata.namespace) return object;
  return { ...object, metadata: { ...object.metadata, namespace } };
}

/** CRDs first (the rest may be custom resources of them), then the others in file order. */
export function orderForApply(objects: readonly KubeObject[]): KubeObject[] {
  const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
  return [...crds, ...objects.filter((o) => o.kind !== 'CustomResourceDefinition')];
}

/**
 * A bundle and the files next to it: at most 32 MiB each (the upstream bundle.yaml, CRDs
 * included, is under 2 MiB), read within 60 s.
 */
export const BUNDLE_LIMITS = { what: 'the bundle', maxBytes: 32 * MIB, deadlineMs: 60_000 } as const;

/** The text of a file or an http(s) URL, within the bundle's limits (src/kube/download.ts); OperationError on failure. */
export async function readLocation(location: string, options: LoadOptions): Promise<string> {
  const { text } = await download(location, BUNDLE_LIMITS, {
    signal: options.signal,
    io: options.io,
    env: options.env,
    notFoundHint:
      'Check the version and the --bundle location (a URL may contain {version}); files next to the bundle must exist in the same release tree.',
    hint: isUrl(location)
      ? 'Check the network (and HTTPS_PROXY), or download the bundle and pass --bundle FILE.'
      : 'Pass --bundle with the path of the release bundle; files it refers to (admission/webhook.yaml, multi-namespace-redb/*.yaml) must sit next to it as in the release tree.',
  });
  return text;
}
