/**
 * The plan for people: what runs now and what it becomes, the checks with their fixes, and the
 * steps with their commands or skip reasons.
 *
 * Names, versions and check messages come from the cluster: each goes through oneLine before it
 * is styled, so it stays on its line and drives nothing. Commands give `io.color`, whose styles
 * the Io turns into colours after it has escaped the text (src/io/style.ts); `true` writes ANSI
 * codes directly.
 */

import { targetReached } from './target-reached.js';
import { oneLine } from '../io/safe-text.js';
import type { Paint } from '../io/style.js';
import { renderAvailabilityPrediction } from './render-availability.js';
import { describeCatalog } from './catalog-notes.js';
import { describePlanChanges } from './plan-changes.js';
import type { CheckStatus } from './checks/index.js';
import { describeParticipants } from './participants.js';
import type { Plan } from './plan.js';

const ansi = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const COLOR: Paint = {
  bold: ansi(1, 22),
  dim: ansi(2, 22),
  green: ansi(32, 39),
  yellow: ansi(33, 39),
  red: ansi(31, 39),
  cyan: ansi(36, 39),
};
const identity = (s: string) => s;
const PLAIN: Paint = {
  bold: identity,
  dim: identity,
  green: identity,
  yellow: identity,
  red: identity,
  cyan: identity,
};

/** The styles of `color`: ANSI codes for true, none for false, the Io's own otherwise. */
export function paintOf(color: boolean | Paint): Paint {
  return color === true ? COLOR : color === false ? PLAIN : color;
}

/**
 * `next`: the command that runs this plan (src/commands/next-command.ts builds it with the
 * user's flags); null when the plan is shown by the command that is about to run it.
 */
export function renderPlan(
  plan: Plan,
  color: boolean | Paint,
  options: { next?: string | null } = {},
): string {
  const p = paintOf(color);
  const s = oneLine;
  const out: string[] = [];
  const { cluster, current, target } = plan;

  out.push(
    p.bold(`Upgrade plan for ${s(cluster.name || '(no cluster)')}`) +
      p.dim(
        `  namespace ${s(cluster.namespace)}, context ${s(cluster.context || '-')}, ${s(cluster.platform)}${dialectNote(cluster.dialect)}`,
      ),
  );
  out.push('');
  const rows: [string, string, string][] = [
    ['operator', s(current.operator ?? '?'), `${s(target.operator)} (${s(target.method)})`],
    ['cluster', s(current.clusterVersion ?? '?'), s(target.clusterVersion ?? '?')],
    ['databases', summarizeDatabaseVersions(plan), targetDatabaseVersions(plan)],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, from, to] of rows) {
    const arrow = from === to ? p.dim('(no change)') : `-> ${p.bold(to)}`;
    out.push(`  ${name.padEnd(width)}  ${from}  ${arrow}`);
  }
  const databases = describePlanChanges(plan).databases;
  if (databases) out.push(`  ${p.yellow(databases)}`);

  if (plan.catalog) {
    out.push('');
    for (const line of describeCatalog(plan.catalog))
      out.push(`  ${line.level === 'warn' ? p.yellow(s(line.text)) : p.dim(s(line.text))}`);
  }

  if (plan.participants) {
    out.push('');
    for (const line of describeParticipants(plan.participants)) out.push(`  ${p.dim(s(line))}`);
  }

  if (plan.olm) {
    const sub = plan.olm.subscription;
    out.push(
      '',
      sub
        ? `  installed by OLM: Subscription ${s(sub.name)} (channel ${s(sub.channel ?? '?')}, approval ${s(sub.approval ?? '?')}, source ${s(sub.source ?? '?')}), installed CSV ${s(plan.olm.installedCSV)}`
        : `  installed by OLM: CSV ${s(plan.olm.installedCSV)} (no Subscription found)`,
    );
    for (const pending of plan.olm.pendingInstallPlans) {
      out.push(`  InstallPlan ${s(pending.name)} waits for approval (CSV ${s(pending.csv ?? '?')})`);
    }
    const olm = plan.olm;
    out.push(
      olm.channelHasTarget
        ? `  target CSV ${s(olm.targetCSV)}: the head of channel ${s(sub?.channel ?? '?')}`
        : olm.targetChannel
          ? `  target CSV ${s(olm.targetCSV)}: not the head of channel ${s(sub?.channel ?? '?')} (${s(olm.channelHead ?? '?')}); channel ${s(olm.targetChannel)} has it`
          : `  target CSV ${s(olm.targetCSV)}: no channel known to have it as its head`,
    );
  }

  if (plan.hops) {
    out.push(
      '',
      p.bold(`${plan.hops.length} hops`) +
        p.dim(
          '  (each a full upgrade; hop 2 on is planned from the cluster as the hop before leaves it, and re-checked when it starts)',
        ),
    );
    for (const hop of plan.hops) {
      out.push(
        '',
        p.bold(
          `Hop ${hop.hop}: operator ${s(hop.current.operator ?? '?')} -> ${s(hop.target.operator)}, cluster ${s(hop.current.clusterVersion ?? '?')} -> ${s(hop.target.clusterVersion ?? '?')}`,
        ) + (hop.reason ? p.dim(`  (${s(hop.reason)})`) : ''),
      );
      renderChecksAndSteps(out, hop, p, cluster.platform);
    }
  } else {
    renderChecksAndSteps(out, plan, p, cluster.platform);
  }

  if (plan.availability && plan.availability.databases.length > 0)
    out.push('', ...renderAvailabilityPrediction(plan.availability, p));

  out.push('');
  if (plan.blocked) {
    const failed = plan.checks.filter((c) => c.status === 'fail');
    const failing = failed.map((c) => s(c.id));
    // --ignore-check only where ignoring can work (a check's `ignorable: false` says it cannot).
    const ignorable = failed.filter((c) => c.ignorable !== false).map((c) => `--ignore-check ${s(c.id)}`);
    const them = failed.length === 1 ? 'it' : 'them';
    out.push(
      p.red(p.bold(`Blocked: ${failing.join(', ')} failed.`)) +
        (ignorable.length > 0
          ? ` Fix ${them}, or pass ${ignorable.join(' ')} to accept the risk.`
          : ` Fix ${them}.`),
    );
  } else if (targetReached(plan)) {
    // The run of this plan would only re-check: `ctl upgrade run` says the same and stops.
    out.push(p.green(p.bold(`Already at ${s(target.operator)}: nothing to do.`)));
  } else {
    const ignored = plan.checks.filter((c) => c.ignored).map((c) => s(c.id));
    out.push(
      p.green(p.bold('Ready to run.')) +
        (ignored.length > 0 ? p.yellow(` Ignored checks: ${ignored.join(', ')}.`) : '') +
        (options.next === null
          ? ''
          : ` Next: ${s(options.next ?? `ctl upgrade run --to ${target.operator}`)}${plan.hops ? ` (runs the ${plan.hops.length} hops)` : ''}`),
    );
  }
  out.push(p.dim(`fingerprint ${s(plan.fingerprint)}`));
  return `${out.join('\n')}\n`;
}

/**
 * What a step's title names that only OpenShift has: the titles are the plan's and the run's
 * events' (CLI.md), the same on every platform, so on another platform the text says under the
 * title that this part does not happen (the run says it too: src/steps/security-context-removal.ts).
 */
const OPENSHIFT_ONLY: Readonly<Record<string, string>> = {
  monitor: 'not OpenShift: no SCC to remove after the roll',
};

function renderChecksAndSteps(
  out: string[],
  plan: Pick<Plan, 'checks' | 'steps'>,
  p: Paint,
  platform: Plan['cluster']['platform'],
): void {
  const s = oneLine;
  out.push('', p.bold('Checks'));
  const idWidth = Math.max(...plan.checks.map((c) => c.id.length));
  for (const check of plan.checks) {
    out.push(`  ${statusMark(check.status, p)} ${s(check.id).padEnd(idWidth)}  ${s(check.message)}`);
    if (check.status !== 'pass' && check.fix) out.push(`      ${p.dim('fix:')} ${s(check.fix)}`);
  }

  out.push('', p.bold('Steps'));
  plan.steps.forEach((step, index) => {
    const head = `  ${index + 1}. ${s(step.id).padEnd(16)} ${s(step.title)}`;
    if (step.skip !== null) {
      out.push(`${p.dim(head)}  ${p.dim(`skip: ${s(step.skip)}`)}`);
      return;
    }
    out.push(head);
    const notHere = platform === 'openshift' ? undefined : OPENSHIFT_ONLY[step.id];
    if (notHere) out.push(`       ${p.dim(`(${notHere})`)}`);
    for (const action of step.actions) {
      out.push(`       - ${s(action.description)}`);
      out.push(`         ${p.cyan(`$ ${s(action.command)}`)}`);
    }
  });
}

function statusMark(status: CheckStatus, p: Paint): string {
  if (status === 'pass') return p.green('ok  ');
  if (status === 'warn') return p.yellow('warn');
  return p.red('FAIL');
}

/**
 * What the databases step writes (the last hop's): `7.4`, `7.4 (2 unchanged)` when the plan
 * leaves some alone (a version the operator chooses, a policy, --databases), `unchanged` when
 * it moves none: the target database version alone would promise what the step will not do.
 */
function targetDatabaseVersions(plan: Plan): string {
  if (plan.current.databases.length === 0) return 'none';
  const steps = plan.hops?.at(-1)?.steps ?? plan.steps;
  const moving = (steps.find((step) => step.id === 'databases')?.actions ?? []).flatMap((action) =>
    action.database ? [action.database.version] : [],
  );
  if (moving.length === 0) return 'unchanged';
  const left = plan.current.databases.length - moving.length;
  const versions = [...new Set(moving)].map(oneLine).join(', ');
  return left > 0 ? `${versions} (${left} unchanged)` : versions;
}

/** `7.2 (3), 7.4 (1)`: how many databases run each version. */
function summarizeDatabaseVersions(plan: Plan): string {
  const databases = plan.current.databases;
  if (databases.length === 0) return 'none';
  const counts = new Map<string, number>();
  for (const db of databases) counts.set(db.version ?? '?', (counts.get(db.version ?? '?') ?? 0) + 1);
  return [...counts].map(([version, count]) => `${oneLine(version)} (${count})`).join(', ');
}

/**
 * A real cluster speaks the product's own field names (redisEnterpriseImageSpec, redisVersion):
 * nothing to say. Only a simulated cluster in the neutral names gets a word, so that the
 * engineEnterpriseImageSpec in its commands is not taken for a real field.
 */
function dialectNote(dialect: string): string {
  return dialect === 'redis' ? '' : `, ${oneLine(dialect)} dialect (the simulator's neutral field names)`;
}
