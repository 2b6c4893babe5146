/**
 * What each step did, in a few words, from the outcome it verified: the step's last progress
 * line says it (`✔ Upgrade the operator: 7.8.2-6 running (4s)`), the NDJSON `step-done`
 * message too, instead of a bare `done` (issue 34: each step's final line states what
 * happened). Read from the outcome only, so it can never say more than was verified.
 */

import type { Step, StepResult } from '../run/step.js';

type Outcome = Record<string, unknown>;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const count = (value: unknown): number => (Array.isArray(value) ? value.length : 0);
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const DESCRIBE: Record<string, (outcome: Outcome, dryRun: boolean) => string | undefined> = {
  preflight: (o) => {
    const checks = o.checks as { pass?: unknown; warn?: unknown } | undefined;
    if (!checks || typeof checks.pass !== 'number') return undefined;
    const warn =
      typeof checks.warn === 'number' && checks.warn > 0 ? `, ${plural(checks.warn, 'warning')}` : '';
    const backup = text(o.backup) ? `; cluster resource saved to ${text(o.backup)}` : '';
    return `${plural(checks.pass, 'check')} passed${warn}${backup}`;
  },
  operator: (o) => {
    if (o.dryRun === true) return `would upgrade from ${text(o.from) ?? '?'} to ${text(o.to) ?? '?'}`;
    const version = text(o.operatorVersion);
    return version ? `operator ${version} running and ready` : undefined;
  },
  admission: (o) => {
    const webhook = text(o.webhook);
    if (!webhook) return undefined;
    if (o.dryRun === true) return `would reapply ${webhook}`;
    return `${webhook} trusts the operator's certificate${o.legacyDeleted === true ? '; the old webhook removed' : ''}`;
  },
  'security-context': (o) => {
    const scc = text(o.scc);
    if (!scc) return undefined;
    if (o.dryRun === true) return `would apply ${scc}`;
    return `${scc} applied${text(o.bound) ? ` and bound to ${text(o.bound)}` : ''}`;
  },
  cluster: (o) => {
    const tag = text(o.versionTag);
    if (!tag) return undefined;
    const from = text(o.previous) ? ` (was ${text(o.previous)})` : '';
    return o.dryRun === true ? `would set the version to ${tag}${from}` : `version set to ${tag}${from}`;
  },
  monitor: (o) => {
    const tag = text(o.versionTag);
    if (!tag) return undefined;
    if (o.dryRun === true) return `already ${tag}, Running`;
    const pods = typeof o.replicas === 'number' ? ` on ${plural(o.replicas, 'pod')}` : '';
    return `cluster Running ${tag}${pods}`;
  },
  databases: (o, dryRun) => {
    const parts = [dryRun ? `would upgrade ${count(o.upgraded)}` : `${count(o.upgraded)} upgraded`];
    if (count(o.skipped) > 0) parts.push(`${count(o.skipped)} left as they were`);
    if (count(o.manual) > 0) parts.push(`${count(o.manual)} to upgrade by hand`);
    if (count(o.heldBack) > 0) parts.push(`${count(o.heldBack)} held back`);
    return parts.join(', ');
  },
};

/** The summary of a step's result: its own, else the one its outcome gives. */
export function summarize(stepId: string, result: StepResult, dryRun = false): StepResult {
  if (result.summary !== undefined || result.skipped !== undefined || !result.outcome) return result;
  const summary = DESCRIBE[stepId]?.(result.outcome, dryRun);
  return summary === undefined ? result : { ...result, summary };
}

/** The step, its result carrying what it did (above). */
export function withSummary<S extends Step<D>, D>(step: S): S {
  return { ...step, run: async (ctx) => summarize(step.id, await step.run(ctx), ctx.dryRun) };
}
