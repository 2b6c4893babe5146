/**
 * The OLM objects of an OperatorHub install of the Redis Enterprise operator, as OLM writes
 * them. Shapes: operator-framework/api `pkg/operators/v1alpha1/*_types.go`; the ownership marks
 * OLM puts on what a CSV installs: operator-framework/operator-lifecycle-manager
 * `pkg/lib/ownerutil/util.go` (labels `olm.owner`, `olm.owner.kind`, `olm.owner.namespace`;
 * owner references with controller and blockOwnerDeletion false) and
 * `pkg/controller/install/deployment.go` (label `olm.deployment-spec-hash`). The CSV's own
 * shape (skips, relatedImages, webhookdefinitions): Red Hat's certified bundle,
 * certified-operators `operators/redis-enterprise-operator-cert/7.22.0-11.2/manifests/redis-enterprise-operator-cert.clusterserviceversion.yaml`.
 */

import { createHash } from 'node:crypto';
import { bundleObjects } from '../artifacts/bundles.js';
import { OPERATOR_NAME, type Platform } from '../artifacts/operator-objects.js';
import { isRecord, type KubeObject, type OwnerReference } from '../kube/types.js';
import type { SimDialect } from '../world/dialect.js';
import { OLM_CATALOG_NAMESPACE, OLM_CATALOG_SOURCE, OLM_PACKAGE, type OlmCatalog } from './catalog.js';
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
  /** Names the CSV and its spec.skips. */
  catalog: OlmCatalog;
  /** Its Deployment names the images by digest only. */
  operatorImageByDigest?: boolean;
}

/** The certified CSV's webhook: its generateName, the name of its one entry. */
export const OLM_WEBHOOK_GENERATE_NAME = 'redisenterprise.admission.redislabs';
/** OLM's label naming the webhook description a webhook configuration was made from (install/webhook.go). */
export const WEBHOOK_DESCRIPTION_LABEL = 'olm.webhook-description-generate-name';

/** spec.webhookdefinitions of the certified CSV: one validating webhook on the v1alpha1 resources. */
function webhookDefinitions(): Record<string, unknown>[] {
  return [
    {
      generateName: OLM_WEBHOOK_GENERATE_NAME,
      type: 'ValidatingAdmissionWebhook',
      deploymentName: OPERATOR_NAME,
      containerPort: 8443,
      sideEffects: 'None',
      timeoutSeconds: 30,
      failurePolicy: 'Fail',
      matchPolicy: 'Exact',
      admissionReviewVersions: ['v1beta1'],
      rules: [
        {
          operations: ['CREATE', 'UPDATE'],
          apiGroups: ['app.redislabs.com'],
          apiVersions: ['v1alpha1'],
          resources: [
            'redisenterprisedatabases',
            'redisenterpriseactiveactivedatabases',
            'redisenterpriseremoteclusters',
          ],
        },
      ],
      webhookPath: '/admission',
    },
  ];
}

/**
 * The ValidatingWebhookConfiguration OLM makes from the CSV's webhookdefinitions (not the
 * operator, not the bundle's webhook.yaml): a generated name, OLM's owner labels, the entry
 * calling the Service OLM puts in front of the Deployment (`<deploymentName>-service`, port 443
 * to the containerPort). operator-framework/operator-lifecycle-manager
 * `pkg/controller/install/webhook.go`, `pkg/controller/install/certresources.go`.
 */
export function olmWebhookConfiguration(csv: string, namespace: string, caBundle: string): KubeObject {
  const [definition] = webhookDefinitions();
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: {
      generateName: `${OLM_WEBHOOK_GENERATE_NAME}-`,
      labels: { ...ownerLabels(csv, namespace), [WEBHOOK_DESCRIPTION_LABEL]: OLM_WEBHOOK_GENERATE_NAME },
    },
    webhooks: [
      {
        name: OLM_WEBHOOK_GENERATE_NAME,
        clientConfig: {
          service: { name: `${OPERATOR_NAME}-service`, namespace, path: '/admission', port: 443 },
          caBundle,
        },
        rules: definition?.rules,
        sideEffects: definition?.sideEffects,
        timeoutSeconds: definition?.timeoutSeconds,
        failurePolicy: definition?.failurePolicy,
        matchPolicy: definition?.matchPolicy,
        admissionReviewVersions: definition?.admissionReviewVersions,
      },
    ],
  };
}

/**
 * The repositories of the certified CSV's relatedImages by name (services-rigger is
 * `services-manager`, the node `redis-enterprise`); off OpenShift, the same images' Docker Hub
 * repositories (DOCS `deployment/helm.md`, as world's image specs).
 */
function relatedRepositories(platform: Platform): Record<string, string> {
  if (platform === 'openshift')
    return {
      operator: 'registry.connect.redhat.com/redislabs/redis-enterprise-operator',
      rigger: 'registry.connect.redhat.com/redislabs/services-manager',
      callHome: 'registry.connect.redhat.com/redislabs/call-home-client',
    };
  return {
    operator: 'redislabs/operator',
    rigger: 'redislabs/k8s-controller',
    callHome: 'redislabs/re-call-home-client',
  };
}

/** A ClusterServiceVersion of the operator: one Deployment, the images it uses, what it skips, its webhook. */
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
  const operatorTagged =
    operatorImage ?? `${relatedRepositories(options.platform).operator}:${options.version}`;
  return {
    apiVersion: OLM_API_VERSION,
    kind: CSV_KIND,
    metadata: {
      name: options.catalog.csvName(options.version),
      namespace: options.namespace,
      labels: { [operatorLabel(options.namespace)]: '' },
      annotations: {
        ...(operatorImage ? { containerImage: operatorImageIn(spec) ?? operatorImage } : {}),
        'olm.operatorNamespace': options.namespace,
      },
    },
    spec: {
      displayName: 'Redis Enterprise Operator',
      version: options.catalog.bundleVersion(options.version),
      // No `replaces`: the certified CSVs list the older CSVs they upgrade in spec.skips.
      skips: options.catalog.skipsOf(options.version),
      install: { strategy: 'deployment', spec: { deployments: [{ name: OPERATOR_NAME, spec }] } },
      webhookdefinitions: webhookDefinitions(),
      // By digest: a certified bundle names its related images by digest (Red Hat's
      // certification; operator-framework `relatedImages`), which is where an OLM install's
      // REC gets the digestHash of its image specs. The six names of the certified CSV.
      relatedImages: relatedImages(options.version, options.platform, options.catalog, operatorTagged),
    },
  };
}

/**
 * The six (from 8.0.18-11 on seven: `redis-enterprise-node-minimal`, certified-operators
 * `8.0.18-11.0` on) relatedImages of the certified CSV, each by digest. The RS tag itself is
 * named nowhere in the CSV.
 */
function relatedImages(
  version: string,
  platform: Platform,
  catalog: OlmCatalog,
  operatorTagged = `${relatedRepositories(platform).operator}:${version}`,
): { name: string; image: string }[] {
  const repositories = relatedRepositories(platform);
  const clusterTag = catalog.world.defaultClusterTag(version, platform);
  const node = (tag: string) => byDigest(`${nodeRepository(platform)}:${tag}`);
  return [
    { name: 'redis-enterprise-operator', image: byDigest(operatorTagged) },
    { name: 'admission', image: byDigest(operatorTagged) },
    { name: 'bootstrapper', image: byDigest(operatorTagged) },
    { name: 'services-rigger', image: byDigest(`${repositories.rigger}:${version}`) },
    ...(clusterTag ? [{ name: 'redis-enterprise-node', image: node(clusterTag) }] : []),
    ...(clusterTag && catalog.world.variantsOf(version).includes('minimal')
      ? [{ name: 'redis-enterprise-node-minimal', image: node(`${clusterTag}.minimal`) }]
      : []),
    { name: 'call-home-client', image: byDigest(`${repositories.callHome}:${version}`) },
  ];
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
  /**
   * The reasons and messages of OLM's operator (operator-lifecycle-manager olm/operator.go). The
   * scenario's `InvalidStrategy` is OLM's CSVReasonInvalidStrategy, whose value is
   * `InvalidInstallStrategy` (operator-framework/api clusterserviceversion_types.go).
   */
  failed: (failure: 'InstallCheckFailed' | 'InvalidStrategy'): Record<string, unknown> => ({
    phase: 'Failed',
    reason: failure === 'InstallCheckFailed' ? 'InstallCheckFailed' : 'InvalidInstallStrategy',
    message:
      failure === 'InstallCheckFailed'
        ? 'install timeout'
        : 'install strategy invalid: deployment redis-enterprise-operator: spec.template is invalid',
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

/**
 * The package's PackageManifest as the package server shows it in `namespace`: each channel
 * with its head (currentCSV) and every CSV it holds (entries, newest first), the default
 * channel `production` (packagemanifest_types.go; the channels: catalog.ts).
 */
export function packageManifest(namespace: string, catalog: OlmCatalog, platform: Platform): KubeObject {
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
      defaultChannel: catalog.defaultChannel(),
      // Entries name and version only: the package server shows no skips.
      channels: catalog.channels().map((channel) => ({
        name: channel,
        currentCSV: catalog.csvName(catalog.channelHead(channel) ?? ''),
        // The head's description as the package server gives it (CSVDescription: its
        // relatedImages as image strings, by digest like the CSV's).
        currentCSVDesc: {
          displayName: 'Redis Enterprise Operator',
          version: catalog.bundleVersion(catalog.channelHead(channel) ?? ''),
          relatedImages: relatedImages(catalog.channelHead(channel) ?? '', platform, catalog).map(
            (r) => r.image,
          ),
        },
        entries: [...catalog.channelVersions(channel)]
          .reverse()
          .map((version) => ({ name: catalog.csvName(version), version: catalog.bundleVersion(version) })),
      })),
    },
  };
}
