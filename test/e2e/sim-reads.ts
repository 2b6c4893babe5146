import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { parse as parseYaml } from 'yaml';
import type { ResourceType, SimulatedCluster } from '../helpers/simulator.js';

/**
 * `kubectl get <resource> [name] [-n ns | -A] [-l selector] -o json` as the tests' reads of the
 * cluster after ctl (`sim.get`, `sim.list` in ./upgrade-support.ts), answered by the same API
 * server over HTTPS with the kubeconfig's token, from the test's process. A kubectl process cost
 * about 0.18 s of CPU, and the upgrade tests read the cluster some 450 times a run
 * (docs/reliability.md, "The suite's time"); what kubectl does to the cluster (apply, patch,
 * rollout, wait, ...) and what it reads in the simulator's own tests still go through kubectl.
 *
 * What it gives is what kubectl prints: the object without metadata.managedFields (kubectl hides
 * them unless --show-managed-fields), a list as kubectl's `List` with each item's apiVersion and
 * kind. A resource is named as kubectl names it (plural, singular, kind, short name, with or
 * without `.group`), found in the server's groups in discovery order, at the group's preferred
 * version. Anything else (a missing object, an unknown resource, another flag) fails the test
 * with what was asked, as a kubectl that exits non-zero does in `sim.kubectl`.
 */
/** An object as the API server answers it, or kubectl's List of them. */
type KubeObject = { metadata?: { managedFields?: unknown } & Record<string, unknown> } & Record<
  string,
  unknown
>;

export interface SimReader {
  get(args: readonly string[]): Promise<KubeObject>;
  close(): Promise<void>;
}

export function simReader(cluster: SimulatedCluster): SimReader {
  const kubeconfig = parseYaml(readFileSync(cluster.kubeconfigPath, 'utf8')) as {
    users?: { user?: { token?: string } }[];
    contexts?: { context?: { namespace?: string } }[];
  };
  const token = kubeconfig.users?.[0]?.user?.token;
  const defaultNamespace = kubeconfig.contexts?.[0]?.context?.namespace ?? 'default';
  assert.ok(token, `the simulator's kubeconfig ${cluster.kubeconfigPath} has no token`);
  const dispatcher = new Agent({ connect: { ca: cluster.kube.caPem } });

  const get = async (args: readonly string[]): Promise<KubeObject> => {
    const what = `kubectl get ${args.join(' ')} -o json (read through the API)`;
    const asked = readArgs(args, what);
    const rt = resourceNamed(cluster, asked.resource);
    assert.ok(rt, `${what}: the server has no resource type "${asked.resource}"`);
    const namespace = rt.namespaced && !asked.all ? (asked.namespace ?? defaultNamespace) : undefined;
    const base = rt.group === '' ? `/api/${rt.version}` : `/apis/${rt.group}/${rt.version}`;
    const collection = `${base}${namespace ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${rt.plural}`;
    const path =
      asked.name !== undefined
        ? `${collection}/${encodeURIComponent(asked.name)}`
        : `${collection}${asked.selector ? `?labelSelector=${encodeURIComponent(asked.selector)}` : ''}`;
    const response = await request(`${cluster.kubeUrl}${path}`, {
      dispatcher,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200)
      assert.fail(`${what}: GET ${path} answered ${response.statusCode}: ${text}`);
    const answer = JSON.parse(text) as KubeObject & { items?: KubeObject[] };
    if (asked.name !== undefined) return withoutManagedFields(answer);
    const apiVersion = rt.group === '' ? rt.version : `${rt.group}/${rt.version}`;
    return {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: '' },
      items: (answer.items ?? []).map((item) => withoutManagedFields({ apiVersion, kind: rt.kind, ...item })),
    };
  };

  return { get, close: () => dispatcher.close() };
}

interface Asked {
  resource: string;
  name?: string;
  namespace?: string;
  all: boolean;
  selector?: string;
}

function readArgs(args: readonly string[], what: string): Asked {
  const words: string[] = [];
  const asked: Omit<Asked, 'resource'> = { all: false };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '-n' || arg === '--namespace') asked.namespace = args[++i];
    else if (arg.startsWith('--namespace=')) asked.namespace = arg.slice('--namespace='.length);
    else if (arg === '-l' || arg === '--selector') asked.selector = args[++i];
    else if (arg === '-A' || arg === '--all-namespaces') asked.all = true;
    else if (arg.startsWith('-')) assert.fail(`${what}: the flag ${arg} is not read here; use sim.kubectl`);
    else words.push(arg);
  }
  // kubectl's `kind/name` form.
  const [first = '', second] = words.length === 1 && words[0]?.includes('/') ? words[0].split('/', 2) : words;
  assert.ok(first && words.length <= 2, `${what}: one resource and at most one name`);
  return { resource: first, ...(second !== undefined ? { name: second } : {}), ...asked };
}

/** The resource type kubectl would take `name` for: the first group in discovery order, its preferred version. */
function resourceNamed(cluster: SimulatedCluster, name: string): ResourceType | undefined {
  const lower = name.toLowerCase();
  const dot = lower.indexOf('.');
  const bare = dot === -1 ? lower : lower.slice(0, dot);
  const group = dot === -1 ? undefined : lower.slice(dot + 1);
  const registry = cluster.kube.registry;
  for (const info of registry.groups()) {
    if (group !== undefined && info.name !== group) continue;
    for (const version of info.versions) {
      const found = registry
        .inGroupVersion(info.name, version)
        .find(
          (rt) =>
            !rt.createOnly &&
            (rt.plural === bare ||
              rt.singular === bare ||
              rt.kind.toLowerCase() === bare ||
              rt.shortNames.includes(bare)),
        );
      if (found) return found;
    }
  }
  return undefined;
}

function withoutManagedFields(object: KubeObject): KubeObject {
  if (!object.metadata || !('managedFields' in object.metadata)) return object;
  const { managedFields: _hidden, ...metadata } = object.metadata;
  return { ...object, metadata };
}
