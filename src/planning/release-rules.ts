/**
 * Check `release-rules` (CLI.md "Check ids"): the release notes' upgrade rules and the release
 * lines' end of life (the catalog's `rules` and `releaseLines`, src/release/rules.ts), judged
 * on this cluster and on every Active-Active participant.
 *
 * - A rule applies to the target release (`appliesTo`) and one of its triggers is found in the
 *   cluster: effect `block` fails the check (exit 3), `warn` warns. Each message names the rule,
 *   what set it off, and its source. The triggers are read generically, so a rule the notes add
 *   later is a data change:
 *   - `user-defined-modules`: a module that RS 8 does not bundle, in use by a database (management
 *     API, or the REDB's module list) or listed in REC `spec.userDefinedModules`; the API's
 *     `is_bundled` decides where it says (a custom build named like a bundled module is custom),
 *     the name list only where it does not (module-fix.ts isBundledModule);
 *   - `uploaded-modules`: a module in use that the management API reports as uploaded
 *     (`is_bundled: false`); nothing where the API does not say;
 *   - `deprecated-modules`: one of the named modules installed on the cluster or in use;
 *   - `REAADB`, `REDB`: the cluster holds one; `secret-changed`: the cluster holds an REAADB
 *     whose named Secrets a change would touch (a warning: the change is the user's);
 *   - `field-used`: the named spec field is set on the REC, an REDB or an REAADB;
 *   - `field-value`: the named spec field holds one of the listed values (only those are read);
 *   - `platform`: Kubernetes or OpenShift (optionally of the listed x.y versions);
 *   - `install-method`: the operator was installed by OLM, helm or the bundle;
 *   - `modules-in-use`: a database uses a module (any, or one of those named), bundled or not;
 *   - `all-of`: every one of its triggers is set off (a rule's own list is any-of);
 *   - `upgrade`: the upgrade itself (with `appliesTo.runningOperators`: a path the notes rule out).
 * - End of life: the cluster's RS line, or the target's, is near (90 days) or past its end of
 *   life: a warning, which names a target on a supported line.
 * - Each remote participant (src/planning/participant-judgment.ts): one on another operator
 *   release than the target (the docs recommend the same operator on every participant), one
 *   affected by an Active-Active advisory or whose build no catalogued release ships (the
 *   databases step holds its REAADB back), one on a line near or past its end of life: warnings.
 *   They never fail the check: the rest of the upgrade goes ahead, the REAADB waits.
 */

import { clusterTagFor, knownOperatorVersions, releaseEntryFor } from '../release/catalog.js';
import type { RuleTrigger } from '../release/catalog-data.js';
import {
  describeAppliesTo,
  describeEndOfLife,
  endOfLifeOf,
  isNearEndOfLife,
  type Rule,
  rulesFor,
} from '../release/rules.js';
import {
  compareOperatorVersions,
  parseOperatorVersion,
  parseRsVersion,
  rsVersionOfTag,
} from '../release/versions.js';
import { type CtlTarget, ctlPlanTo, ctlRunTo, ctlTargetOf } from './equivalent-commands.js';
import { isBundledModule, reportedBundled } from './module-fix.js';
import { participantOperator, participantOperatorHold } from './participant-judgment.js';
import type { ResolvedUpgrade } from './resolve.js';
import type { Snapshot } from './snapshot.js';
import type { Target } from './target.js';

interface Outcome {
  status: 'pass' | 'warn' | 'fail';
  message: string;
  fix: string;
}

interface Finding {
  effect: 'block' | 'warn';
  message: string;
  fix: string;
}

function list(items: readonly string[], max = 5): string {
  const unique = [...new Set(items)];
  return unique.length <= max
    ? unique.join(', ')
    : `${unique.slice(0, max).join(', ')} and ${unique.length - max} more`;
}

interface ModuleUse {
  name: string;
  databases: string[];
  /** The API's `is_bundled` for the builds in use; undefined where it does not say. */
  isBundled: boolean | undefined;
}

/**
 * Modules in use by a database: from the management API when it answered, else the REDBs' lists.
 * A custom build and a bundled one of the same name are two uses: the API tells them apart by
 * `is_bundled`, matched on name and version.
 */
function modulesInUse(snapshot: Snapshot): ModuleUse[] {
  // Indexed once: a plan may hold thousands of databases (scale scenarios).
  const buildsByName = new Map<string, Snapshot['api']['modules']>();
  for (const m of snapshot.api.modules) {
    const key = m.module_name.toLowerCase();
    const builds = buildsByName.get(key) ?? [];
    builds.push(m);
    buildsByName.set(key, builds);
  }
  const uses = new Map<string, { name: string; databases: Set<string>; isBundled: boolean | undefined }>();
  const add = (name: string, version: string | undefined, database: string) => {
    const builds = (buildsByName.get(name.toLowerCase()) ?? []).filter(
      (m) => version === undefined || m.semantic_version === undefined || m.semantic_version === version,
    );
    const isBundled = reportedBundled(builds);
    const key = `${name.toLowerCase()} ${String(isBundled)}`;
    const use = uses.get(key) ?? { name, databases: new Set<string>(), isBundled };
    use.databases.add(database);
    uses.set(key, use);
  };
  for (const bdb of snapshot.api.bdbs)
    for (const m of bdb.module_list ?? []) add(m.module_name, m.semantic_version, bdb.name);
  for (const db of snapshot.databases) for (const m of db.modules) add(m.name, m.version, db.name);
  return [...uses.values()].map((use) => ({ ...use, databases: [...use.databases] }));
}

/** Whether the management API that answered runs RS 8 or later (its is_bundled is then RS 8's word). */
function apiRunsRs8(snapshot: Snapshot): boolean {
  const majors = snapshot.api.nodes
    .map((node) => (node.software_version ? parseRsVersion(node.software_version)?.[0] : undefined))
    .filter((major): major is number => major !== undefined);
  return majors.length > 0 && majors.every((major) => major >= 8);
}

/** What in the cluster sets off one trigger, in words; empty when nothing does. */
export function triggerFindings(trigger: RuleTrigger, snapshot: Snapshot): string[] {
  const rec = snapshot.cluster;
  switch (trigger.kind) {
    case 'upgrade':
      return [`the upgrade from operator ${snapshot.operator?.version ?? 'unknown'}`];
    case 'user-defined-modules': {
      const rs8 = apiRunsRs8(snapshot);
      const found = modulesInUse(snapshot)
        .filter((use) => !isBundledModule(use.name, use.isBundled, rs8))
        .map((use) => `module ${use.name} (used by ${list(use.databases, 3)})`);
      if (rec && rec.userDefinedModules.length > 0)
        found.push(`spec.userDefinedModules of REC ${rec.name} (${rec.userDefinedModules.join(', ')})`);
      return found;
    }
    case 'uploaded-modules':
      // Only the API's word: a module known from a database resource alone is not guessed at.
      return modulesInUse(snapshot)
        .filter((use) => use.isBundled === false)
        .map((use) => `module ${use.name}, uploaded (used by ${list(use.databases, 3)})`);
    case 'deprecated-modules': {
      const wanted = new Set(trigger.modules.map((m) => m.toLowerCase()));
      const installed = snapshot.api.modules
        .filter((m) => wanted.has(m.module_name.toLowerCase()))
        .map((m) => `module ${m.module_name} ${m.semantic_version} (installed)`);
      const used = modulesInUse(snapshot)
        .filter((use) => wanted.has(use.name.toLowerCase()))
        .map((use) => `module ${use.name} (used by ${list(use.databases, 3)})`);
      const listed = (rec?.userDefinedModules ?? [])
        .filter((m) => wanted.has(m.toLowerCase()))
        .map((m) => `module ${m} (spec.userDefinedModules)`);
      return [...new Set([...used, ...installed, ...listed])];
    }
    case 'REAADB':
      return snapshot.activeActiveDatabases.map((db) => `REAADB ${db.namespace}/${db.name}`);
    case 'REDB':
      return snapshot.databases.map((db) => `REDB ${db.namespace}/${db.name}`);
    case 'secret-changed':
      return snapshot.activeActiveDatabases.map(
        (db) => `REAADB ${db.namespace}/${db.name} (a change to ${trigger.secrets.join(' or ')})`,
      );
    case 'field-used': {
      const field = trigger.field;
      const has = (fields: readonly string[] | undefined) =>
        (fields ?? []).some((f) => f === field || f.startsWith(`${field}.`));
      if (trigger.resource === 'REC')
        return rec && has(rec.specFields) ? [`${field} of REC ${rec.namespace}/${rec.name}`] : [];
      if (trigger.resource === 'REDB')
        return snapshot.databases
          .filter((db) => has(db.specFields))
          .map((db) => `${field} of REDB ${db.namespace}/${db.name}`);
      return snapshot.activeActiveDatabases
        .filter((db) => has(db.specFields))
        .map((db) => `${field} of REAADB ${db.namespace}/${db.name}`);
    }
    case 'field-value': {
      // The value printed is the rule's own (rule-field-values.ts keeps only listed values).
      const { field, resource } = trigger;
      const holds = (values: Record<string, unknown> | undefined) =>
        values && Object.hasOwn(values, field) ? `${field}: ${String(values[field])}` : undefined;
      const found: string[] = [];
      if (resource === 'REC' && rec) {
        const value = holds(rec.ruleFieldValues);
        if (value) found.push(`${value} on REC ${rec.namespace}/${rec.name}`);
      }
      const databases =
        resource === 'REDB'
          ? snapshot.databases
          : resource === 'REAADB'
            ? snapshot.activeActiveDatabases
            : [];
      for (const db of databases) {
        const value = holds(db.ruleFieldValues);
        if (value) found.push(`${value} on ${resource} ${db.namespace}/${db.name}`);
      }
      return found;
    }
    case 'platform':
      return platformFindings(trigger, snapshot);
    case 'install-method': {
      const method = installMethodOf(snapshot);
      return method && trigger.methods.includes(method)
        ? [`an operator installed by ${METHOD_WORDS[method]}`]
        : [];
    }
    case 'modules-in-use': {
      const wanted = trigger.modules?.map((m) => m.toLowerCase());
      return modulesInUse(snapshot)
        .filter((use) => !wanted || wanted.includes(use.name.toLowerCase()))
        .map((use) => `module ${use.name} (used by ${list(use.databases, 3)})`);
    }
    case 'all-of': {
      const each = trigger.triggers.map((t) => triggerFindings(t, snapshot));
      return each.every((found) => found.length > 0) ? each.flat() : [];
    }
  }
}

const METHOD_WORDS = { olm: 'OLM (OperatorHub)', helm: 'helm', bundle: 'the bundle' } as const;

/** How the operator was installed, as scenario-capture.ts names it; undefined without an operator. */
function installMethodOf(snapshot: Snapshot): 'olm' | 'helm' | 'bundle' | undefined {
  if (snapshot.olm) return 'olm';
  if (!snapshot.operator) return undefined;
  return snapshot.operator.helmRelease ? 'helm' : 'bundle';
}

/** `4.7.12` or `v1.30.2` -> `4.7`, `1.30`. */
function minorOf(version: string | undefined): string | undefined {
  const m = /(\d+)\.(\d+)/.exec(version ?? '');
  return m ? `${Number(m[1])}.${Number(m[2])}` : undefined;
}

function platformFindings(trigger: Extract<RuleTrigger, { kind: 'platform' }>, snapshot: Snapshot): string[] {
  if (snapshot.platform !== trigger.platform) return [];
  const version = trigger.platform === 'openshift' ? snapshot.openshiftVersion : snapshot.kubernetesVersion;
  const name = trigger.platform === 'openshift' ? 'OpenShift' : 'Kubernetes';
  if (!trigger.versions) return [`${name}${version ? ` ${version}` : ''}`];
  // A version that cannot be read does not set a versioned trigger off: no rule on a guess.
  const minor = minorOf(version);
  return minor && trigger.versions.some((v) => minorOf(v) === minor) ? [`${name} ${version}`] : [];
}

function ruleFinding(rule: Rule, snapshot: Snapshot, target: string): Finding | undefined {
  const found = rule.triggers.flatMap((trigger) => triggerFindings(trigger, snapshot));
  if (found.length === 0) return undefined;
  return {
    effect: rule.effect,
    message: `rule ${rule.id} (${describeAppliesTo(rule.appliesTo)}): ${rule.summary}; it applies to ${target}, and this cluster has ${list(found)} (source: ${rule.source.join('; ')})`,
    fix: rule.fix,
  };
}

/** The newest catalogued release whose RS line is not near its end of life. */
function newestOnSupportedLine(today: Date): string | undefined {
  return [...knownOperatorVersions()].reverse().find((operator) => {
    const tag = clusterTagFor(operator);
    const rs = tag ? rsVersionOfTag(tag) : undefined;
    return rs !== undefined && !isNearEndOfLife(endOfLifeOf(rs, today));
  });
}

function endOfLifeFindings(
  resolved: ResolvedUpgrade,
  target: string,
  today: Date,
  kube: CtlTarget,
  onTheWayTo: string | undefined,
): Finding[] {
  const findings: Finding[] = [];
  const better = newestOnSupportedLine(today);
  const instead = better ? ctlPlanTo(kube, better) : 'a release on a supported line';
  const current = resolved.currentRs ? endOfLifeOf(resolved.currentRs, today) : undefined;
  const targetEol = resolved.targetRs ? endOfLifeOf(resolved.targetRs, today) : undefined;
  if (isNearEndOfLife(current) && current.line !== targetEol?.line)
    findings.push({
      effect: 'warn',
      message: `this cluster runs Redis Software ${current.line}, which ${describeEndOfLife(current)} (source: ${current.source.join('; ')})`,
      fix: `Upgrading to ${target} leaves that line.`,
    });
  // A hop before the last is a stop the path needs (multi-hop.md), left for the final target as
  // soon as its roll ends: proposing another target for it would propose the one already chosen.
  // The last hop judges the line the cluster stays on.
  if (isNearEndOfLife(targetEol) && onTheWayTo === undefined)
    findings.push({
      effect: 'warn',
      message: `the target ${target} runs Redis Software ${targetEol.line}, which ${describeEndOfLife(targetEol)}: it gets no security patches or fixes after that day (source: ${targetEol.source.join('; ')})`,
      fix: `Prefer a target on a supported line: ${instead}.`,
    });
  return findings;
}

/**
 * `runTo`: the --to of the run to propose again, the final target on a hop before the last (one
 * run does every hop); `onTheWayTo` set, the same-operator advice is left to the last hop, which
 * judges the release the participants should match.
 */
function participantFindings(
  snapshot: Snapshot,
  target: string,
  today: Date,
  onTheWayTo: string | undefined,
): Finding[] {
  const findings: Finding[] = [];
  const targetVersion = parseOperatorVersion(target);
  for (const participant of snapshot.remoteClusters ?? []) {
    if (participant.local || !participant.rsVersion) continue;
    const { name, rsVersion } = participant;
    const hold = participantOperatorHold(name, rsVersion);
    if (hold) {
      findings.push({
        effect: 'warn',
        message: `${hold}; the databases step holds its Active-Active databases back`,
        fix: `Upgrade ${name} first; then run ${ctlRunTo(ctlTargetOf(snapshot), onTheWayTo ?? target)} again for those databases.`,
      });
      continue;
    }
    const { operators } = participantOperator(rsVersion);
    const same = operators.some((operator) => {
      const parsed = parseOperatorVersion(operator);
      return parsed && targetVersion && compareOperatorVersions(parsed, targetVersion) === 0;
    });
    if (!same && onTheWayTo === undefined)
      findings.push({
        effect: 'warn',
        message: `participant ${name} runs operator ${operators.join(' or ')} (Redis Software ${rsVersion}), not ${target}: the upgrade docs recommend that all participating clusters run the same operator version (source: redis/docs content/operate/kubernetes/upgrade/upgrade-redis-cluster.md)`,
        fix: `Upgrade ${name} to ${target} as well.`,
      });
    const rs = parseRsVersion(rsVersion);
    const eol = rs ? endOfLifeOf(rs, today) : undefined;
    if (isNearEndOfLife(eol))
      findings.push({
        effect: 'warn',
        message: `participant ${name} runs Redis Software ${eol.line}, which ${describeEndOfLife(eol)} (source: ${eol.source.join('; ')})`,
        fix: `Upgrade ${name} to a release on a supported line.`,
      });
  }
  return findings;
}

export function checkReleaseRules(
  snapshot: Snapshot,
  target: Pick<Target, 'operator' | 'onTheWayTo'>,
  resolved: Pick<ResolvedUpgrade, 'currentRs' | 'targetRs'>,
  today: Date = new Date(),
): Outcome {
  const operator = target.operator;
  const targetRs = resolved.targetRs ?? rsOfOperator(operator);
  const rules = rulesFor({ operator, rs: targetRs, running: snapshot.operator?.version });
  const findings: Finding[] = [
    ...rules.flatMap((rule) => ruleFinding(rule, snapshot, operator) ?? []),
    ...endOfLifeFindings(
      { ...resolved, targetRs } as ResolvedUpgrade,
      operator,
      today,
      ctlTargetOf(snapshot),
      target.onTheWayTo,
    ),
    ...participantFindings(snapshot, operator, today, target.onTheWayTo),
  ];
  const blocking = findings.filter((f) => f.effect === 'block');
  const warnings = findings.filter((f) => f.effect === 'warn');
  if (blocking.length > 0)
    return {
      status: 'fail',
      message: [...blocking, ...warnings].map((f) => f.message).join('; '),
      fix: `${[...new Set(blocking.map((f) => f.fix))].join(' ')} Or pass --ignore-check release-rules to accept the risk.`,
    };
  if (warnings.length > 0)
    return {
      status: 'warn',
      message: warnings.map((f) => f.message).join('; '),
      fix: [...new Set(warnings.map((f) => f.fix))].join(' '),
    };
  return {
    status: 'pass',
    message:
      rules.length === 0
        ? `no release rule applies to ${operator}`
        : `${rules.map((r) => r.id).join(', ')} ${rules.length === 1 ? 'applies' : 'apply'} to ${operator}, and nothing in this cluster sets ${rules.length === 1 ? 'it' : 'them'} off`,
    fix: '',
  };
}

function rsOfOperator(operator: string) {
  const tag = releaseEntryFor(operator) ? clusterTagFor(operator) : undefined;
  return tag ? rsVersionOfTag(tag) : undefined;
}
