/**
 * Our own CustomResourceDefinitions for the three Operator Lifecycle Manager (OLM) kinds an
 * OperatorHub install leaves in the operator's namespace: Subscription, InstallPlan and
 * ClusterServiceVersion, group `operators.coreos.com`, version `v1alpha1`. Small schemas of the
 * fields the simulator reads or writes, with their real names; everything else is kept
 * (preserve-unknown-fields). Names, short names, category and printer columns follow
 * operator-framework/api `crds/operators.coreos.com_subscriptions.yaml`,
 * `_installplans.yaml`, `_clusterserviceversions.yaml` (and the types in
 * `pkg/operators/v1alpha1/{subscription,installplan,clusterserviceversion}_types.go`).
 */

export const OLM_GROUP = 'operators.coreos.com';
export const OLM_API_VERSION = `${OLM_GROUP}/v1alpha1`;
export const SUBSCRIPTION_KIND = 'Subscription';
export const INSTALL_PLAN_KIND = 'InstallPlan';
export const CSV_KIND = 'ClusterServiceVersion';

/** ClusterServiceVersionPhase (clusterserviceversion_types.go). */
export const CSV_PHASES = [
  'None',
  'Pending',
  'InstallReady',
  'Installing',
  'Succeeded',
  'Failed',
  'Unknown',
  'Replacing',
  'Deleting',
  'Any',
] as const;
/** InstallPlanPhase (installplan_types.go). */
export const INSTALL_PLAN_PHASES = [
  'None',
  'Planning',
  'RequiresApproval',
  'Installing',
  'Complete',
  'Failed',
] as const;
/** SubscriptionState (subscription_types.go). */
export const SUBSCRIPTION_STATES = ['None', 'Failed', 'UpgradeAvailable', 'UpgradePending', 'AtLatestKnown'];
export const APPROVALS = ['Automatic', 'Manual'] as const;

type Schema = Record<string, unknown>;
const str = (): Schema => ({ type: 'string' });
const bool = (): Schema => ({ type: 'boolean' });
const oneOf = (values: readonly string[]): Schema => ({ type: 'string', enum: [...values] });
const list = (items: Schema): Schema => ({ type: 'array', items });
const open = (properties: Record<string, Schema>, required?: string[]): Schema => ({
  type: 'object',
  ...(required ? { required } : {}),
  properties,
  'x-kubernetes-preserve-unknown-fields': true,
});
const objectRef = (): Schema =>
  open({ apiVersion: str(), kind: str(), name: str(), namespace: str(), uid: str() });

interface Column {
  name: string;
  type: 'string' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
}

function definition(
  names: { kind: string; plural: string; singular: string; shortNames: string[] },
  spec: Schema,
  status: Schema,
  columns: Column[],
): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${OLM_GROUP}` },
    spec: {
      group: OLM_GROUP,
      scope: 'Namespaced',
      names: {
        kind: names.kind,
        listKind: `${names.kind}List`,
        plural: names.plural,
        singular: names.singular,
        shortNames: names.shortNames,
        categories: ['olm'],
      },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            ...columns,
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: str(),
                kind: str(),
                metadata: { type: 'object' },
                spec,
                status,
              },
            },
          },
        },
      ],
    },
  };
}

function subscriptionDefinition(): Record<string, unknown> {
  return definition(
    {
      kind: SUBSCRIPTION_KIND,
      plural: 'subscriptions',
      singular: 'subscription',
      shortNames: ['sub', 'subs'],
    },
    open(
      {
        channel: str(),
        name: str(),
        source: str(),
        sourceNamespace: str(),
        installPlanApproval: oneOf(APPROVALS),
        startingCSV: str(),
      },
      ['name', 'source', 'sourceNamespace'],
    ),
    open({
      currentCSV: str(),
      installedCSV: str(),
      installPlanRef: objectRef(),
      installplan: open({ apiVersion: str(), kind: str(), name: str(), uuid: str() }),
      state: str(),
      lastUpdated: str(),
    }),
    [
      { name: 'Package', type: 'string', jsonPath: '.spec.name', description: 'The package subscribed to' },
      { name: 'Source', type: 'string', jsonPath: '.spec.source', description: 'The catalog source' },
      {
        name: 'Channel',
        type: 'string',
        jsonPath: '.spec.channel',
        description: 'The channel subscribed to',
      },
    ],
  );
}

function installPlanDefinition(): Record<string, unknown> {
  return definition(
    { kind: INSTALL_PLAN_KIND, plural: 'installplans', singular: 'installplan', shortNames: ['ip'] },
    open(
      {
        approval: oneOf(APPROVALS),
        approved: bool(),
        clusterServiceVersionNames: list(str()),
        source: str(),
        sourceNamespace: str(),
      },
      ['approval', 'approved', 'clusterServiceVersionNames'],
    ),
    open({ phase: oneOf(INSTALL_PLAN_PHASES), catalogSources: list(str()) }),
    [
      {
        name: 'CSV',
        type: 'string',
        jsonPath: '.spec.clusterServiceVersionNames[0]',
        description: 'The first CSV in the list of clusterServiceVersionNames',
      },
      { name: 'Approval', type: 'string', jsonPath: '.spec.approval', description: 'The approval mode' },
      { name: 'Approved', type: 'boolean', jsonPath: '.spec.approved' },
    ],
  );
}

function csvDefinition(): Record<string, unknown> {
  return definition(
    {
      kind: CSV_KIND,
      plural: 'clusterserviceversions',
      singular: 'clusterserviceversion',
      shortNames: ['csv', 'csvs'],
    },
    open(
      {
        displayName: str(),
        version: str(),
        replaces: str(),
        install: open({ strategy: str(), spec: open({ deployments: list(open({ name: str() })) }) }),
        relatedImages: list(open({ name: str(), image: str() })),
      },
      ['displayName', 'install'],
    ),
    open({ phase: oneOf(CSV_PHASES), reason: str(), message: str() }),
    [
      { name: 'Display', type: 'string', jsonPath: '.spec.displayName', description: 'The name of the CSV' },
      { name: 'Version', type: 'string', jsonPath: '.spec.version', description: 'The version of the CSV' },
      {
        name: 'Replaces',
        type: 'string',
        jsonPath: '.spec.replaces',
        description: 'The name of a CSV that this one replaces',
      },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    ],
  );
}

/** The three OLM CRDs (on a real cluster, OLM installs them cluster-wide). */
export function olmCrds(): Record<string, unknown>[] {
  return [subscriptionDefinition(), installPlanDefinition(), csvDefinition()];
}

export const PACKAGE_GROUP = 'packages.operators.coreos.com';
export const PACKAGE_API_VERSION = `${PACKAGE_GROUP}/v1`;
export const PACKAGE_MANIFEST_KIND = 'PackageManifest';

/**
 * PackageManifest (`packages.operators.coreos.com/v1`). On a real cluster OLM's package server
 * serves it as an aggregated, read-only API computed from the catalogs a namespace can see
 * (operator-framework/operator-lifecycle-manager `pkg/package-server/apis/operators/v1/
 * packagemanifest_types.go`: status.catalogSource, catalogSourceNamespace, packageName,
 * defaultChannel, channels[].{name, currentCSV, currentCSVDesc, entries[].{name, version}}).
 * Simplified here: a CRD in the operator's namespace that the simulated OLM seeds.
 */
export function packageManifestCrd(): Record<string, unknown> {
  const crd = definition(
    {
      kind: PACKAGE_MANIFEST_KIND,
      plural: 'packagemanifests',
      singular: 'packagemanifest',
      shortNames: [],
    },
    open({}),
    open({
      catalogSource: str(),
      catalogSourceNamespace: str(),
      packageName: str(),
      defaultChannel: str(),
      channels: list(
        open({
          name: str(),
          currentCSV: str(),
          entries: list(open({ name: str(), version: str() })),
        }),
      ),
    }),
    [{ name: 'Catalog', type: 'string', jsonPath: '.status.catalogSource' }],
  ) as { metadata: { name: string }; spec: Record<string, unknown> };
  crd.metadata.name = `packagemanifests.${PACKAGE_GROUP}`;
  crd.spec.group = PACKAGE_GROUP;
  const version = (crd.spec.versions as Record<string, unknown>[])[0] as Record<string, unknown>;
  version.name = 'v1';
  // Read-only on a real cluster: no status subresource to write to.
  delete version.subresources;
  crd.spec.names = { ...(crd.spec.names as Record<string, unknown>), categories: [] };
  return crd;
}
