/**
 * fast-check's generator of worlds (world.ts) from the scenario keys (docs/simulator.md,
 * "Scenario keys for real-world situations"): operator version and install method, OLM channel
 * and approval, platform and version, databases and their versions, modules and their builds,
 * Active-Active participants and their RS, helm on the PATH or not, the state store. Names and
 * namespaces vary too: nothing may depend on `redis/rec`.
 *
 * Every generated scenario is one the simulator accepts (arbitrary.test.ts loads hundreds);
 * whether ctl may upgrade it is for the plan to say.
 */

import fc from 'fast-check';
import { OLM_BUNDLES } from '../../src/sim/world/olm-bundles.js';
import { bundledDatabaseVersions, defaultClusterTag } from '../../src/sim/world/releases.js';
import { worldOf } from '../../src/sim/world/world.js';
import type { UserSide, World } from './world.js';

/** Starting operators: every line the catalog knows from 6.4.2 on, old and newest builds, holes included. */
export const START_OPERATORS = [
  '6.4.2-8',
  '7.2.4-12',
  '7.2.4-16',
  '7.4.6-2',
  '7.4.6-7',
  '7.4.6-12',
  '7.8.2-6',
  '7.8.6-13',
  '7.8.6-20',
  '7.22.0-17',
  '7.22.2-43',
  '8.0.20-26',
  '8.2.0-13',
] as const;

const KUBERNETES = ['1.26', '1.28', '1.30', '1.32'] as const;
const OPENSHIFT = ['4.12', '4.14', '4.16', '4.18'] as const;
const NAMESPACES = ['redis', 'prod-data', 'team-a'] as const;
const CLUSTER_NAMES = ['rec', 'cache-cluster', 'rs1'] as const;
/** RS versions an Active-Active participant may run (GET /v1/nodes software_version). */
const PARTICIPANT_RS = ['7.4.6-102', '7.8.6-315', '7.22.2-179', '8.0.20-108', '8.2.0-78'] as const;

/** Modules and their builds: with a rhel9 build, or rhel8 only (frozen by a RHEL9 cluster image). */
const MODULES = [
  { name: 'search', version: '2.8.4', platforms: ['rhel8/x86_64', 'rhel9/x86_64'] },
  { name: 'ReJSON', version: '2.6.6', platforms: ['rhel8/x86_64', 'rhel9/x86_64'] },
  { name: 'graph', version: '2.10.12', platforms: ['rhel8/x86_64'] },
] as const;

const DATABASE_NAMES = ['orders', 'sessions', 'cache', 'ledger'] as const;

function releaseLine(operator: string): string {
  return operator.split('-')[0] ?? operator;
}

const userSide: fc.Arbitrary<UserSide> = fc.record({
  helm: fc.boolean(),
  stateStore: fc.constantFrom('file' as const, 'configmap' as const),
  runWith: fc.constantFrom('to' as const, 'plan' as const),
  targetFrom: fc.constantFrom('listed' as const, 'catalog' as const),
  targetPick: fc.nat({ max: 40 }),
});

/**
 * The platform and its version: mostly one the starting operator supports (as clusters run),
 * sometimes any of a fixed few (an old cluster on a new platform, or the other way round).
 */
function platform(operator: string): fc.Arbitrary<{ platform: 'kubernetes' | 'openshift'; version: string }> {
  const supported = worldOf(undefined).platformsOf(operator);
  const of = (which: 'kubernetes' | 'openshift', versions: readonly string[]) =>
    fc.record({ platform: fc.constant(which), version: fc.constantFrom(...versions) });
  const choices = [
    { weight: 1, arbitrary: of('kubernetes', KUBERNETES) },
    { weight: 1, arbitrary: of('openshift', OPENSHIFT) },
  ];
  if (supported.kubernetes.supported.length > 0)
    choices.push({ weight: 3, arbitrary: of('kubernetes', supported.kubernetes.supported) });
  if (supported.openshift.supported.length > 0)
    choices.push({ weight: 3, arbitrary: of('openshift', supported.openshift.supported) });
  return fc.oneof(...choices);
}

interface Install {
  installedBy: 'bundle' | 'helm' | 'olm';
  olm?: { channel: string; approval: 'Manual' | 'Automatic' };
}

/** How the operator was installed: OLM only on OpenShift, from a certified bundle's channels. */
function install(operator: string, onOpenShift: boolean): fc.Arbitrary<Install> {
  const methods: fc.Arbitrary<Install>[] = [
    fc.constant({ installedBy: 'bundle' as const }),
    fc.constant({ installedBy: 'helm' as const }),
  ];
  const bundle = OLM_BUNDLES.get(operator);
  if (onOpenShift && bundle) {
    const channels = [releaseLine(operator), ...(bundle.production ? ['production'] : [])];
    methods.push(
      fc.record({
        installedBy: fc.constant('olm' as const),
        olm: fc.record({
          channel: fc.constantFrom(...channels),
          approval: fc.constantFrom('Manual' as const, 'Automatic' as const),
        }),
      }),
    );
  }
  return fc.oneof(...methods);
}

interface DatabaseDraft {
  version: string;
  module: number | null;
  activeActive: boolean;
  participants: number[];
}

function databases(versions: readonly string[], remotes: number): fc.Arbitrary<DatabaseDraft[]> {
  const draft: fc.Arbitrary<DatabaseDraft> = fc.record({
    version: fc.constantFrom(...versions),
    // Mostly modules with a rhel9 build; the last one (rhel8 only) now and then.
    module: fc.option(
      fc.oneof(
        { weight: 4, arbitrary: fc.nat({ max: MODULES.length - 2 }) },
        { weight: 1, arbitrary: fc.constant(MODULES.length - 1) },
      ),
      { nil: null },
    ),
    activeActive: remotes > 0 ? fc.boolean() : fc.constant(false),
    participants: fc.uniqueArray(fc.nat({ max: Math.max(remotes - 1, 0) }), {
      minLength: remotes > 0 ? 1 : 0,
      maxLength: remotes,
    }),
  });
  return fc.array(draft, { minLength: 0, maxLength: DATABASE_NAMES.length });
}

/** One world: the scenario and the user's side. */
export const worldArbitrary: fc.Arbitrary<World> = fc
  .record({
    operator: fc.constantFrom(...START_OPERATORS),
    namespace: fc.constantFrom(...NAMESPACES),
    clusterName: fc.constantFrom(...CLUSTER_NAMES),
    dialect: fc.constantFrom('engine' as const, 'redis' as const),
    remotes: fc.array(fc.constantFrom(...PARTICIPANT_RS), { maxLength: 2 }),
    ctl: userSide,
  })
  .chain((partial) => platform(partial.operator).map((on) => ({ ...partial, platform: on })))
  .chain((base) => {
    const onOpenShift = base.platform.platform === 'openshift';
    const tag = defaultClusterTag(base.operator, base.platform.platform) ?? '';
    const versions = bundledDatabaseVersions(tag);
    return fc
      .record({
        install: install(base.operator, onOpenShift),
        databases: databases(versions.length > 0 ? versions : ['7.2'], base.remotes.length),
      })
      .map(({ install: how, databases: drafts }) => buildWorld(base, how, drafts));
  });

function buildWorld(
  base: {
    operator: string;
    platform: { platform: 'kubernetes' | 'openshift'; version: string };
    namespace: string;
    clusterName: string;
    dialect: 'engine' | 'redis';
    remotes: string[];
    ctl: UserSide;
  },
  how: Install,
  drafts: DatabaseDraft[],
): World {
  const onOpenShift = base.platform.platform === 'openshift';
  const remoteClusters = base.remotes.map((rsVersion, i) => ({ name: `participant-${i + 1}`, rsVersion }));
  const used = new Set<number>();
  const databaseEntries = drafts.map((draft, i) => {
    if (draft.module !== null) used.add(draft.module);
    const module = draft.module === null ? undefined : MODULES[draft.module];
    return {
      name: DATABASE_NAMES[i],
      version: draft.version,
      ...(module ? { modules: [{ name: module.name, version: module.version }] } : {}),
      ...(draft.activeActive
        ? {
            activeActive: true,
            participants: draft.participants.map((p) => remoteClusters[p]!.name),
          }
        : {}),
    };
  });
  const scenario: Record<string, unknown> = {
    name: 'generated-world',
    description: `generated: operator ${base.operator} by ${how.installedBy} on ${base.platform.platform} ${base.platform.version}`,
    dialect: base.dialect,
    platform: base.platform.platform,
    namespace: base.namespace,
    ...(onOpenShift
      ? { openshiftVersion: base.platform.version }
      : { kubernetesVersion: base.platform.version }),
    operator: {
      version: base.operator,
      installedBy: how.installedBy,
      ...(how.olm ? { olm: how.olm } : {}),
    },
    cluster: {
      name: base.clusterName,
      ...(onOpenShift ? { repository: 'registry.connect.redhat.com/redislabs/redis-enterprise' } : {}),
    },
    modules: [...used].sort().map((i) => ({ ...MODULES[i]!, platforms: [...MODULES[i]!.platforms] })),
    databases: databaseEntries,
    remoteClusters,
  };
  // helm is only asked for by a helm install: elsewhere its absence decides nothing.
  const ctl = { ...base.ctl, helm: how.installedBy === 'helm' ? base.ctl.helm : true };
  return { ctl, scenario };
}
