/**
 * The OLM objects of an OperatorHub install of the Redis Enterprise operator, as OLM writes
 * them. Shapes: operator-framework/api `pkg/operators/v1alpha1/*_types.go`; the ownership marks
 * OLM puts on what a CSV installs: operator-framework/operator-lifecycle-manager
 * `pkg/lib/ownerutil/util.go` (labels `olm.owner`, `olm.owner.kind`, `olm.owner.namespace`;
 * owner references with controller and blockOwnerDeletion false) and
 * `pkg/controller/install/deployment.go` (label `olm.deployment-spec-hash`).
 */

import { createHash } from 'node:crypto';
import { bundleObjects } from '../artifacts/bundles.js';
import { OPERATOR_NAME, type Platform } from '../artifacts/operator-objects.js';
import { isRecord, type KubeObject, type OwnerReference } from '../kube/types.js';
import type { SimDialect } from '../world/dialect.js';
import { defaultClusterTag } from '../world/releases.js';
import {
  channelHead,
  channelVersions,
  csvName,
  OLM_CATALOG_NAMESPACE,
  OLM_CATALOG_SOURCE,
  OLM_PACKAGE,
  olmChannels,
  PRODUCTION_CHANNEL,
} from './catalog.js';
import {
  CSV_KIND,
  INSTALL_PLAN_KIND,
  OLM_API_VERSION,
  PACKAGE_API_VERSION,
  PACKAGE_MANIFEST_KIND,
  SUBSCRIPTION_KIND,
} from './crds.js';

/** The field manager OLM's writes show in managedFields. */
export const OLM_FIELD_MANAGER = 'olm';
export const OWNER_LABEL = 'olm.owner';
export const OWNER_KIND_LABEL = 'olm.owner.kind';
export const OWNER_NAMESPACE_LABEL = 'olm.owner.namespace';
export const SPEC_HASH_LABEL = 'olm.deployment-spec-hash';

/** `operators.coreos.com/<package>.<namespace>`: OLM's label on the objects of a subscribed operator. */
export function operatorLabel(namespace: string): string {
  return `operators.coreos.com/${OLM_PACKAGE}.${namespace}`;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** A hash of a Deployment spec that ignores key order (what `olm.deployment-spec-hash` holds). */
export function specHash(spec: unknown): string {
  return createHash('sha256').update(canonical(spec)).digest('hex').slice(0, 16);
}

/**
 * The operator Deployment's spec as the CSV of `version` installs it: the bundle's Deployment,
 * with its images by digest only when `imagesByDigest` (scenario `operator.olm.operatorImageByDigest`).
 */
export function csvDeploymentSpec(
  version: string,
  dialect: SimDialect,
  platform: Platform,
  imagesByDigest = false,
): Record<string, unknown> {
  const deployment = bundleObjects(version, dialect, platform).find((object) => object.kind === 'Deployment');
  const spec = structuredClone((deployment?.spec as Record<string, unknown> | undefined) ?? {});
  if (imagesByDigest) {
    const template = isRecord(spec.template) ? spec.template : {};
    const podSpec = isRecord(template.spec) ? template.spec : {};
    for (const container of Array.isArray(podSpec.containers) ? podSpec.containers.filter(isRecord) : []) {
      if (typeof container.image === 'string') container.image = byDigest(container.image);
    }
  }
  return spec;
}

function operatorImageIn(spec: Record<string, unknown>): string | undefined {
  const template = isRecord(spec.template) ? spec.template : {};
  const podSpec = isRecord(template.spec) ? template.spec : {};
  const containers = Array.isArray(podSpec.containers) ? podSpec.containers.filter(isRecord) : [];
  const image = containers[0]?.image;
  return typeof image === 'string' ? image : undefined;
}

export interface CsvOptions {
  version: string;
  namespace: string;
  dialect: SimDialect;
  platform: Platform;
  /** The CSV this one replaces (spec.replaces). */
  replaces?: string;
  /** Its Deployment names the images by digest only. */
  operatorImageByDigest?: boolean;
}

/** A ClusterServiceVersion of the operator: one Deployment, and the images it uses. */
export function clusterServiceVersion(options: CsvOptions): KubeObject {
  // The related images are the tagged images' digests, whatever the Deployment names.
  const operatorImage = operatorImageIn(
    csvDeploymentSpec(options.version, options.dialect, options.platform),
  );
  const spec = csvDeploymentSpec(
    options.version,
    options.dialect,
    options.platform,
    options.operatorImageByDigest === true,
  );
  const clusterTag = defaultClusterTag(options.version, options.platform);
  return {
    apiVersion: OLM_API_VERSION,
    kind: CSV_KIND,
    metadata: {
      name: csvName(options.version),
      namespace: options.namespace,
      labels: { [operatorLabel(options.namespace)]: '' },
      annotations: {
        ...(operatorImage ? { containerImage: operatorImageIn(spec) ?? operatorImage } : {}),
        'olm.operatorNamespace': options.namespace,
      },
    },
    spec: {
      displayName: 'Redis Enterprise Operator',
      version: options.version,
      ...(options.replaces ? { replaces: options.replaces } : {}),
      install: { strategy: 'deployment', spec: { deployments: [{ name: OPERATOR_NAME, spec }] } },
      // By digest: a certified bundle must name its related images by digest (Red Hat's
      // certification; operator-framework `relatedImages`), which is where an OLM install's
      // REC gets the digestHash of its image specs.
      relatedImages: [
        ...(operatorImage ? [{ name: 'redis-enterprise-operator', image: byDigest(operatorImage) }] : []),
        ...(clusterTag
          ? [
              {
                name: 'redis-enterprise',
                image: byDigest(`${nodeRepository(options.platform)}:${clusterTag}`),
              },
            ]
          : []),
      ],
    },
  };
}

/**
 * The node image's repository in the certified bundle: Red Hat's registry on OpenShift ("By
 * default, the image is pulled from Red Hat's registry", DOCS
 * `kubernetes/deployment/openshift/openshift-operatorhub.md`), Docker Hub's elsewhere.
 */
export function nodeRepository(platform: Platform): string {
  return platform === 'openshift'
    ? 'registry.connect.redhat.com/redislabs/redis-enterprise'
    : 'redislabs/redis';
}

/** `repo:tag` -> `repo@sha256:...` (the simulated registry's digest of that tag). */
function byDigest(image: string): string {
  const slash = image.lastIndexOf('/');
  const colon = image.indexOf(':', slash + 1);
  const repository = colon >= 0 ? image.slice(0, colon) : image;
  return `${repository}@${imageDigest(image)}`;
}

/** CSV status phases with the reasons and messages OLM writes (clusterserviceversion_types.go). */
export const CSV_STATUS = {
  installing: (): Record<string, unknown> => ({
    phase: 'Installing',
    reason: 'InstallWaiting',
    message: 'installing: waiting for deployment redis-enterprise-operator to become ready',
  }),
  succeeded: (): Record<string, unknown> => ({
    phase: 'Succeeded',
    reason: 'InstallSucceeded',
    message: 'install strategy completed with no errors',
  }),
  replacing: (by: string): Record<string, unknown> => ({
    phase: 'Replacing',
    reason: 'BeingReplaced',
    message: `being replaced by csv: ${by}`,
  }),
};

export interface SubscriptionOptions {
  namespace: string;
  channel: string;
  approval: 'Manual' | 'Automatic';
  startingCSV: string;
}

export function subscription(options: SubscriptionOptions): KubeObject {
  return {
    apiVersion: OLM_API_VERSION,
    kind: SUBSCRIPTION_KIND,
    metadata: {
      name: OLM_PACKAGE,
      namespace: options.namespace,
      labels: { [operatorLabel(options.namespace)]: '' },
    },
    spec: {
      channel: options.channel,
      name: OLM_PACKAGE,
      source: OLM_CATALOG_SOURCE,
      sourceNamespace: OLM_CATALOG_NAMESPACE,
      installPlanApproval: options.approval,
      startingCSV: options.startingCSV,
    },
  };
}

/** An InstallPlan for one CSV, owned by the Subscription that asked for it. */
export function installPlan(options: {
  namespace: string;
  csv: string;
  approval: 'Manual' | 'Automatic';
  generation: number;
  owner: KubeObject;
}): KubeObject {
  return {
    apiVersion: OLM_API_VERSION,
    kind: INSTALL_PLAN_KIND,
    metadata: {
      generateName: 'install-',
      namespace: options.namespace,
      labels: { [operatorLabel(options.namespace)]: '' },
      ownerReferences: [ownerReference(options.owner)],
    },
    spec: {
      approval: options.approval,
      approved: options.approval === 'Automatic',
      clusterServiceVersionNames: [options.csv],
      generation: options.generation,
      source: OLM_CATALOG_SOURCE,
      sourceNamespace: OLM_CATALOG_NAMESPACE,
    },
  };
}

/** OLM's non-blocking owner reference (ownerutil.NonBlockingOwner). */
export function ownerReference(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion ?? OLM_API_VERSION,
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: false,
    blockOwnerDeletion: false,
  };
}

/** The labels OLM puts on what a CSV owns. */
export function ownerLabels(csv: string, namespace: string): Record<string, string> {
  return {
    [OWNER_LABEL]: csv,
    [OWNER_KIND_LABEL]: CSV_KIND,
    [OWNER_NAMESPACE_LABEL]: namespace,
    [operatorLabel(namespace)]: '',
  };
}

/** `sha256:` and 64 hex digits derived from an image reference (a stand-in for the registry's digest). */
export function imageDigest(image: string): string {
  return `sha256:${createHash('sha256').update(image).digest('hex')}`;
}

export { csvName };

/**
 * The package's PackageManifest as the package server shows it in `namespace`: each channel
 * with its head (currentCSV) and every CSV it holds (entries, newest first), the default
 * channel `production` (packagemanifest_types.go; the channels: catalog.ts).
 */
export function packageManifest(namespace: string): KubeObject {
  return {
    apiVersion: PACKAGE_API_VERSION,
    kind: PACKAGE_MANIFEST_KIND,
    metadata: {
      name: OLM_PACKAGE,
      namespace,
      labels: { catalog: OLM_CATALOG_SOURCE, 'catalog-namespace': OLM_CATALOG_NAMESPACE },
    },
    status: {
      catalogSource: OLM_CATALOG_SOURCE,
      catalogSourceNamespace: OLM_CATALOG_NAMESPACE,
      packageName: OLM_PACKAGE,
      defaultChannel: PRODUCTION_CHANNEL,
      channels: olmChannels().map((channel) => ({
        name: channel,
        currentCSV: csvName(channelHead(channel) ?? ''),
        entries: [...channelVersions(channel)]
          .reverse()
          .map((version) => ({ name: csvName(version), version })),
      })),
    },
  };
}
