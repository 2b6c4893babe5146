import { groupVersion, type ResourceRegistry, type ResourceType } from './registry.js';

/**
 * API discovery in both forms (feasibility §2): the aggregated APIGroupDiscoveryList that
 * kubectl asks for first, and the legacy APIVersions / APIGroupList / APIResourceList that
 * older clients and client-node's KubernetesObjectApi still read.
 */

export type AggregatedVersion = 'v2' | 'v2beta1';

export function aggregatedContentType(version: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/** Which aggregated form the Accept header asks for, if any (v2 preferred). */
export function wantsAggregated(accept: string | undefined): AggregatedVersion | undefined {
  if (!accept) return undefined;
  const offers = accept.split(',').map((part) => part.replace(/\s+/g, ''));
  for (const offer of offers) {
    if (!offer.includes('g=apidiscovery.k8s.io') || !offer.includes('as=APIGroupDiscoveryList')) continue;
    if (offer.includes('v=v2beta1')) return 'v2beta1';
    if (offer.includes('v=v2')) return 'v2';
  }
  return undefined;
}

function scope(rt: ResourceType): 'Namespaced' | 'Cluster' {
  return rt.namespaced ? 'Namespaced' : 'Cluster';
}

const SUBRESOURCE_VERBS: Record<string, string[]> = {
  status: ['get', 'patch', 'update'],
  scale: ['get', 'patch', 'update'],
  portforward: ['create', 'get'],
  log: ['get'],
  finalize: ['update'],
};

function aggregatedResource(rt: ResourceType): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    resource: rt.plural,
    responseKind: { group: rt.group, version: rt.version, kind: rt.kind },
    scope: scope(rt),
    singularResource: rt.singular,
    verbs: rt.verbs,
  };
  if (rt.shortNames.length > 0) entry.shortNames = rt.shortNames;
  if (rt.categories.length > 0) entry.categories = rt.categories;
  if (rt.subresources.length > 0) {
    entry.subresources = rt.subresources.map((sub) => ({
      subresource: sub,
      responseKind:
        sub === 'scale'
          ? { group: 'autoscaling', version: 'v1', kind: 'Scale' }
          : { group: rt.group, version: rt.version, kind: rt.kind },
      verbs: SUBRESOURCE_VERBS[sub] ?? ['get'],
    }));
  }
  return entry;
}

/** `/api` (core: true) or `/apis` (core: false) in the aggregated form. */
export function aggregatedDiscovery(
  registry: ResourceRegistry,
  core: boolean,
  version: AggregatedVersion,
): unknown {
  const items = registry
    .groups()
    .filter((g) => (g.name === '') === core)
    .map((g) => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        resources: registry
          .inGroupVersion(g.name, v)
          .sort((a, b) => a.plural.localeCompare(b.plural))
          .map(aggregatedResource),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

export function legacyCoreVersions(serverAddress: string): unknown {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  const list = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: list, preferredVersion: list[0] };
}

export function legacyGroupList(registry: ResourceRegistry): unknown {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry
      .groups()
      .filter((g) => g.name !== '')
      .map((g) => apiGroup(g.name, g.versions)),
  };
}

export function legacyGroup(registry: ResourceRegistry, name: string): unknown | undefined {
  const group = registry.groups().find((g) => g.name === name && name !== '');
  if (!group) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group.name, group.versions) };
}

/** `/api/v1` or `/apis/<g>/<v>`: APIResourceList, subresources as `plural/sub` entries. */
export function legacyResourceList(
  registry: ResourceRegistry,
  group: string,
  version: string,
): unknown | undefined {
  const types = registry.inGroupVersion(group, version).sort((a, b) => a.plural.localeCompare(b.plural));
  if (types.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const rt of types) {
    const entry: Record<string, unknown> = {
      name: rt.plural,
      singularName: rt.singular,
      namespaced: rt.namespaced,
      kind: rt.kind,
      verbs: rt.verbs,
    };
    if (rt.shortNames.length > 0) entry.shortNames = rt.shortNames;
    if (rt.categories.length > 0) entry.categories = rt.categories;
    resources.push(entry);
    for (const sub of rt.subresources) {
      resources.push({
        name: `${rt.plural}/${sub}`,
        singularName: '',
        namespaced: rt.namespaced,
        ...(sub === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : { kind: rt.kind }),
        verbs: SUBRESOURCE_VERBS[sub] ?? ['get'],
      });
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersion({ group, version }),
    resources,
  };
}
