/**
 * Situations the generator had not drawn before the last review, each one draw of its own over
 * the scenario keys the simulator already has (SIMULATOR.md, src/sim/scenario/schema.ts), and
 * each with what the plan must then do:
 *
 * - an Active-Active participant that does not answer (`remoteClusters[].reachable: false`: its
 *   API accepts connections and never answers). Nothing to block: ctl cannot read its version,
 *   so every REAADB it takes part in is held back (src/planning/active-active.ts) and the plan
 *   may still be Ready; a Ready plan must finish, within the read's bound;
 * - OLM update edges unlike the certified catalog's (`operator.olm.skips`: `none`, no newer CSV
 *   skips the installed one; `all`, every newer one does; one release only, the next one, which
 *   OLM then offers first). A catalog whose edges ctl's own copy
 *   does not know can only show itself through OLM: the Subscription stays AtLatestKnown in the
 *   channel ctl switches to. So the run may stop there, and the next plan must fail
 *   `olm-update-path` (the live Subscription is evidence the catalog cannot overrule);
 * - an OLM install that fails for good (`operator.olm.installFailure: InvalidStrategy`: the new
 *   CSV goes Failed, reason InvalidInstallStrategy, which the install does not get past by itself:
 *   operator-lifecycle-manager `pkg/controller/operators/olm/operator.go`). Nothing before the
 *   approval shows it (the CSV's install strategy is in the bundle, not in the PackageManifest),
 *   so the run may stop at the operator step, and the next plan must fail `olm-csv-healthy`;
 * - module upload disabled on the management API (`api.modulesUpload: disabled`): RS 8.2's
 *   default, the cluster setting `allow_modules_upload` (redis/docs rs-8-2-releases/_index.md:
 *   "Custom module upload is disabled by default"; rest-api/objects/cluster). Only a cluster on
 *   RS 8.2 or later has it, so only worlds that start there draw it; ctl uploads modules only
 *   for targets before RS 8 (src/planning/module-fix.ts), so a Ready plan must not notice it;
 * - image specs besides the node image pinned in the REC (`cluster.imageSpecs`: services rigger,
 *   bootstrapper, call-home client) to the starting operator's version, as a REC written out in
 *   full carries them; the operator upgrade alone would leave them there, so the cluster step
 *   moves them (src/planning/cluster-patch.ts). Under OLM they may pin a digest too
 *   (`digestHash` "is only supported for OLM deployments", DOCS
 *   kubernetes/reference/api/redis_enterprise_cluster_api.md), which the cluster step moves to the
 *   target CSV's relatedImages.
 */

import fc from 'fast-check';
import { OLM_BUNDLES } from '../helpers/simulator.js';

const OTHER_IMAGE_SPECS = ['rigger', 'bootstrapper', 'callHomeClient'] as const;
type OtherImageSpec = (typeof OTHER_IMAGE_SPECS)[number];

export interface Situations {
  /** The first remote participant's API never answers (when the world has one). */
  silentParticipant: boolean;
  /**
   * operator.olm.skips (OLM installs only); `one`: only the next release of the installed one's
   * line skips it, so OLM offers that one first.
   */
  olmSkips: 'catalog' | 'none' | 'all' | 'one';
  /** operator.olm.installFailure (OLM installs only); InstallCheckFailed is retried by OLM. */
  olmInstallFailure: 'none' | 'InstallCheckFailed' | 'InvalidStrategy';
  modulesUpload: 'enabled' | 'disabled';
  /** Image specs pinned in the REC to the starting operator's version. */
  pinnedImages: OtherImageSpec[];
  /** Under OLM, the pinned image specs also pin a digest. */
  pinnedDigest: boolean;
}

/** A sometimes-true choice: `rare` with probability 1 / (1 + against), else `usual`. */
function seldom<T>(usual: T, rare: fc.Arbitrary<T>, against: number): fc.Arbitrary<T> {
  return fc.oneof({ weight: against, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: rare });
}

export const situationsArbitrary: fc.Arbitrary<Situations> = fc.record({
  silentParticipant: seldom(false, fc.constant(true), 2),
  // OLM installs are the rarest (OpenShift, a certified bundle): their situations come often.
  olmSkips: seldom('catalog' as const, fc.constantFrom('none' as const, 'all' as const, 'one' as const), 1),
  olmInstallFailure: seldom(
    'none' as const,
    fc.constantFrom('InstallCheckFailed' as const, 'InvalidStrategy' as const),
    1,
  ),
  modulesUpload: seldom('enabled' as const, fc.constant('disabled' as const), 3),
  pinnedImages: seldom([], fc.subarray([...OTHER_IMAGE_SPECS], { minLength: 1 }), 2),
  pinnedDigest: fc.boolean(),
});

/** The checks of which one the plan after a stopped run must fail, by situation. */
const STOPS_THEN_BLOCKS = {
  olmSkipsNone: 'olm-update-path',
  invalidStrategy: 'olm-csv-healthy',
} as const;

/** The next operator release the simulated catalog has after `operator` (any line), if any. */
function nextRelease(operator: string): string | undefined {
  const key = (v: string) => v.split(/[.-]/).map(Number);
  const newer = [...OLM_BUNDLES.keys()]
    .filter((v) => compare(key(v), key(operator)) > 0)
    .sort((a, b) => compare(key(a), key(b)));
  return newer[0];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The operator releases from 8.2 on ship RS 8.2 or later (the release notes' Downloads). */
function rsAtLeast82(operator: string): boolean {
  const [major = 0, minor = 0] = operator.split('.').map(Number);
  return major > 8 || (major === 8 && minor >= 2);
}

/** A digest for an image spec pinned in a world (any 64 hex digits: the simulator checks the form). */
function digestOf(text: string): string {
  let hex = '';
  for (let i = 0; hex.length < 64; i += 1)
    hex += ((text.charCodeAt(i % text.length) * (i + 7)) % 256).toString(16).padStart(2, '0');
  return `sha256:${hex.slice(0, 64)}`;
}

/**
 * Writes the situations into a generated scenario (in place) and says which checks the plan
 * after a stopped run must fail (empty: the run must finish when the plan is Ready).
 */
export function applySituations(scenario: Record<string, unknown>, situations: Situations): string[] {
  const stopsThenBlocks: string[] = [];
  const operator = scenario.operator as {
    version: string;
    installedBy: string;
    olm?: Record<string, unknown>;
  };
  const cluster = scenario.cluster as Record<string, unknown>;
  const remotes = scenario.remoteClusters as { name: string; reachable?: boolean }[];
  if (situations.silentParticipant && remotes.length > 0) remotes[0] = { ...remotes[0]!, reachable: false };
  const olm = operator.installedBy === 'olm' ? operator.olm : undefined;
  if (olm && situations.olmSkips !== 'catalog') {
    const next = situations.olmSkips === 'one' ? nextRelease(operator.version) : undefined;
    olm.skips = next ? [next] : situations.olmSkips === 'one' ? 'none' : situations.olmSkips;
    // Fewer edges than the certified catalog's: the run may find one missing.
    if (olm.skips !== 'all') stopsThenBlocks.push(STOPS_THEN_BLOCKS.olmSkipsNone);
  }
  if (olm && situations.olmInstallFailure !== 'none') {
    olm.installFailure = situations.olmInstallFailure;
    if (situations.olmInstallFailure === 'InvalidStrategy')
      stopsThenBlocks.push(STOPS_THEN_BLOCKS.invalidStrategy);
  }
  // The setting is the cluster's RS's: its versionTag's when it lags behind the operator's.
  if (
    situations.modulesUpload === 'disabled' &&
    rsAtLeast82((cluster.versionTag as string) ?? operator.version)
  )
    scenario.api = { modulesUpload: 'disabled' };
  if (situations.pinnedImages.length > 0) {
    const digest = olm !== undefined && situations.pinnedDigest;
    cluster.imageSpecs = Object.fromEntries(
      situations.pinnedImages.map((spec) => [
        spec,
        {
          versionTag: operator.version,
          ...(digest ? { digestHash: digestOf(`${spec}:${operator.version}`) } : {}),
        },
      ]),
    );
  }
  return stopsThenBlocks;
}
