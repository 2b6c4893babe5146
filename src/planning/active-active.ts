/**
 * When an Active-Active database's version may be raised: only once every participating
 * cluster runs a Redis Software release that bundles the target database version. Redis's
 * procedure upgrades Redis Software on every participating cluster first and the database
 * instances after (DOCS `operate/rs/installing-upgrading/upgrading/upgrade-active-active.md`),
 * and an REAADB's `spec.globalConfigurations` applies to every participant
 * (DOCS `operate/kubernetes/active-active/global-config.md`): raising it on one cluster raises
 * it everywhere, so a participant still on an older RS would be asked to run a version it does
 * not have. The REAADB path needs operator 8.0.2-2 on every participant ("All participating
 * clusters must be running operator version 8.0.2-2 or later": redis/docs
 * content/operate/kubernetes/upgrade/upgrade-redis-cluster.md, upgrade-olm.md and
 * openshift-cli.md, "Upgrade databases"); RS 8.0.2 is the release that operator ships (the 8.0.2-2
 * release notes, release-notes/8-0-2-releases/8-0-2-2-october2025.md), so a participant on an
 * older RS is also too old.
 *
 * Each participant is also judged by the operator release that shipped its RS build
 * (src/planning/participant-judgment.ts): one affected by an advisory that an REAADB sets off,
 * or one whose build no catalogued release ships, holds the database back as well.
 *
 * The manual procedure (targets before 8.0.2-2, `rladmin upgrade db` on each participant) asks
 * the same of every participant except the REAADB path's 8.0.2-2 floor (`manual: true`): a
 * participant on an RS that does not bundle the version, or that is unknown or affected, holds
 * the database back instead of ctl printing commands for it.
 *
 * Pure: from the snapshot (src/planning/participants.ts read each participant's RS version).
 * A participant whose version is unknown (unreachable, no RERC, no Secret) holds the database
 * back too: ctl never guesses.
 */

import { bundledDatabaseVersions } from '../release/catalog.js';
import { compareReleases, databaseVersionOf, parseRsVersion } from '../release/versions.js';
import { ctlCommand } from './equivalent-commands.js';
import { participantOperatorHold } from './participant-judgment.js';
import type { RemoteClusterSnapshot } from './participants.js';
import type { ActiveActiveSnapshot, Snapshot } from './snapshot.js';

/** The RS release of operator 8.0.2-2 (ACTIVE_ACTIVE_UPGRADE_FROM), the first to upgrade through the REAADB. */
const ACTIVE_ACTIVE_UPGRADE_FROM_RS: readonly [number, number, number] = [8, 0, 2];

export interface HoldingParticipant {
  /** The RERC name, as `participatingClusters` names it. */
  participant: string;
  /** One sentence: why this participant cannot run the version yet. */
  reason: string;
}

/**
 * The participants that hold `database` back from `version`; empty when every one can run it.
 * This cluster is a participant that will run the target RS, which bundles `version` (the
 * planner chose `version` from it), so only the others are asked.
 */
export function participantsHoldingBack(
  snapshot: Pick<Snapshot, 'cluster' | 'remoteClusters'>,
  database: Pick<ActiveActiveSnapshot, 'name' | 'namespace' | 'participatingClusters'>,
  version: string,
  options: { manual?: boolean } = {},
): HoldingParticipant[] {
  const wanted = databaseVersionOf(version);
  const key = wanted ? `${wanted.major}.${wanted.minor}` : version;
  const remotes = snapshot.remoteClusters ?? [];
  const holding: HoldingParticipant[] = [];
  for (const { name } of database.participatingClusters) {
    if (name === snapshot.cluster?.name) continue;
    const rerc = remotes.find((r) => r.name === name);
    if (rerc?.local) continue;
    const reason = reasonOf(name, rerc, key, snapshot.cluster?.namespace ?? database.namespace, options);
    if (reason) holding.push({ participant: name, reason });
  }
  return holding;
}

function reasonOf(
  name: string,
  rerc: RemoteClusterSnapshot | undefined,
  version: string,
  namespace: string,
  options: { manual?: boolean },
): string | undefined {
  if (!rerc)
    return `participant ${name} has no RedisEnterpriseRemoteCluster ${name} in namespace ${namespace}`;
  if (rerc.unreachable) return `participant ${name} is unreachable: ${rerc.error ?? 'no answer'}`;
  if (!rerc.rsVersion)
    return `participant ${name}'s Redis Software version is unknown: ${rerc.error ?? 'not read'}`;
  const rs = rerc.rsVersion;
  const release = parseRsVersion(rs);
  if (!options.manual && release && compareReleases(release, [...ACTIVE_ACTIVE_UPGRADE_FROM_RS]) < 0)
    return `participant ${name} runs Redis Software ${rs}, whose operator is older than 8.0.2-2 and cannot upgrade Active-Active databases through the REAADB; upgrade it first`;
  const bundled = bundledDatabaseVersions(rs);
  if (!bundled) return `participant ${name} runs Redis Software ${rs}, a release ctl does not know`;
  if (!bundled.includes(version))
    return `participant ${name} runs Redis Software ${rs}, which does not bundle Redis ${version} (it bundles ${bundled.join(', ')}); upgrade it first`;
  return participantOperatorHold(name, rs);
}

/**
 * The command that upgrades this one database once the participants are ready: the same
 * target, only this database (`--databases <ns>/<name>`, src/planning/target.ts). It names the
 * kubeconfig ctl was given and always the context (the current one may have changed by the time
 * the participants are ready): src/kube/kube-target.ts.
 */
export function laterUpgradeCommand(
  snapshot: Pick<Snapshot, 'context' | 'cluster' | 'kubeTarget'>,
  operator: string,
  database: { name: string; namespace: string },
): string {
  const words = ['upgrade', 'run'];
  if (snapshot.cluster) words.push('-n', snapshot.cluster.namespace, '--cluster', snapshot.cluster.name);
  words.push('--to', operator, '--databases', `${database.namespace}/${database.name}`);
  return ctlCommand({ ...snapshot.kubeTarget, context: snapshot.context }, ...words);
}
