/**
 * The files a bundle install downloads, laid out like the upstream release tree
 * (`<tag>/bundle.yaml`, `<tag>/admission/webhook.yaml`, ...) so a `{version}` URL template
 * and its relative paths work the same against the simulator and the real thing.
 */

import jsYaml from 'js-yaml';
import type { SimDialect as Dialect } from '../world/dialect.js';
import { crdsFor } from '../crds.js';
import {
  admissionService,
  admissionWebhook,
  type KubeManifest,
  operatorDeployment,
  operatorRole,
  operatorRoleBinding,
  operatorServiceAccount,
  type Platform,
  redbRole,
  redbRoleBinding,
} from './operator-objects.js';
import { sccManifest } from './openshift-scc.js';

/**
 * Multi-document YAML, one `---` before each document, like the upstream files. Written by
 * js-yaml, the reader ctl and client-node use: about a third of the `yaml` package's time for a
 * bundle's CRDs (each simulator process writes them once), and, by default, with YAML 1.1's
 * booleans (`y`, `on`, ...) quoted, as kubectl's Go reader needs.
 */
export function toMultiDocumentYaml(documents: readonly unknown[]): string {
  return documents
    .map((document) => `---\n${jsYaml.dump(document, { lineWidth: -1, noRefs: true })}`)
    .join('');
}

/** The resources of `bundle.yaml` (or `openshift.bundle.yaml`), in apply order. */
export function bundleObjects(version: string, dialect: Dialect, platform: Platform): KubeManifest[] {
  return [
    operatorRole(platform),
    operatorRoleBinding(),
    operatorServiceAccount(),
    admissionService(),
    ...(crdsFor(dialect, version) as KubeManifest[]),
    operatorDeployment(version, platform),
  ];
}

export function bundleYaml(version: string, dialect: Dialect, platform: Platform): string {
  return withUpstreamQuotedDescription(toMultiDocumentYaml(bundleObjects(version, dialect, platform)));
}

/**
 * The published bundles (redis-enterprise-k8s-docs bundle.yaml at 8.0.20-23 and at v7.22.2-40,
 * the cluster CRD's `redisEnterpriseVolumeMounts`) hold a single-quoted description whose second
 * line is indented no deeper than its key: Go's YAML parser (kubectl) and js-yaml read it, the
 * `yaml` package refuses it ("missing closing 'quote"). The served bundle writes the cluster
 * CRD's schema description the same way, so every run that applies a bundle reads one.
 */
function withUpstreamQuotedDescription(text: string): string {
  return text.replace(/^( *)openAPIV3Schema:\n/m, (line, indent: string) =>
    [
      line.trimEnd(),
      `${indent}  description: 'The schema of the cluster resource, as published.`,
      `${indent}  More info: https://redis.io/docs/latest/operate/kubernetes/'`,
      '',
    ].join('\n'),
  );
}

/** `admission/webhook.yaml`: applied separately, after `sed s/OPERATOR_NAMESPACE/<ns>/`. */
export function webhookYaml(version: string): string {
  return toMultiDocumentYaml([admissionWebhook(version)]);
}

export function redbRoleYaml(): string {
  return toMultiDocumentYaml([redbRole()]);
}

export function redbRoleBindingYaml(): string {
  return toMultiDocumentYaml([redbRoleBinding()]);
}

/**
 * The files served in this process, by path, version and dialect: each is the same text every
 * time it is made, and a run reads the bundle (plan's probe, the operator step) from every
 * simulator a test file starts (the stringify of a bundle's CRDs is about 0.1 s of CPU on a
 * 2-core runner).
 */
const fileCache = new Map<string, string>();

/** Paths below `/bundles/<version>/` and how to produce each. */
export function bundleFile(path: string, version: string, dialect: Dialect): string | undefined {
  const key = `${path}\0${version}\0${dialect}`;
  let text = fileCache.get(key);
  if (text === undefined) {
    // A path that is no file is not kept: requests name paths, and they are not bounded.
    text = makeBundleFile(path, version, dialect);
    if (text !== undefined) fileCache.set(key, text);
  }
  return text;
}

function makeBundleFile(path: string, version: string, dialect: Dialect): string | undefined {
  switch (path) {
    case 'bundle.yaml':
      return bundleYaml(version, dialect, 'kubernetes');
    case 'openshift.bundle.yaml':
      return bundleYaml(version, dialect, 'openshift');
    case 'admission/webhook.yaml':
      return webhookYaml(version);
    case 'multi-namespace-redb/role.yaml':
      return redbRoleYaml();
    case 'multi-namespace-redb/role_binding.yaml':
      return redbRoleBindingYaml();
    case 'openshift/scc.yaml':
      return toMultiDocumentYaml([sccManifest(version)]);
    default:
      return undefined;
  }
}

export const BUNDLE_FILES = [
  'bundle.yaml',
  'openshift.bundle.yaml',
  'admission/webhook.yaml',
  'multi-namespace-redb/role.yaml',
  'multi-namespace-redb/role_binding.yaml',
  'openshift/scc.yaml',
] as const;
