/**
 * What the monitor does about a frozen upgrade (state Upgrade, the roll does not move): look for
 * the freeze's cause (./freeze.ts: the operator's log says when to look, the management API what
 * blocks), then either stop the step with the exact commands that lift it or, with --remediate,
 * lift it itself (./remediate.ts) and let the follower go on watching. The operator raises no
 * documented Event for a freeze (redis-facts.md §12).
 *
 * Each distinct set of blockers is acted on once: the follower looks every few seconds
 * (./monitor-timing.ts) while the state is Upgrade, and the same freeze must not be remediated
 * or warned about again on every look.
 */

import type { StepContext } from '../run/step.js';
import { dialectFields } from '../release/dialect.js';
import type { UpgradeDeps } from './deps.js';
import { diagnoseFreeze } from './freeze.js';
import { freezeGraceMs } from './monitor-timing.js';
import type { Target } from './monitor-view.js';
import { type Remediation, remediateFrozenUpgrade, syncRecordedDatabases } from './remediate.js';
import { frozenError, type RemediationContext } from './remediate-advice.js';
import { type Blocker, describeBlocker, minimumDatabaseVersion } from './remediate-blockers.js';

/** What the freeze watch needs of the follower that owns it. */
export interface FreezeWatchHooks {
  /** The follower has settled (done or failed): a look that ends after it changes nothing. */
  settled(): boolean;
  /** When the rollout last moved (the clock's ms). */
  lastProgressAt(): number;
  /** Remediation's progress is progress: it re-arms the follower's stall timer. */
  touch(): void;
  /** Trouble reading the log or the API is said once per kind, not on every look. */
  warnOnce(kind: string, message: string): void;
  /** Stops with the follower. */
  signal: AbortSignal;
}

/** Where remediation acts: the cluster, the operator, the databases the snapshot knows. */
export function remediationContextOf(deps: UpgradeDeps, target: Target): RemediationContext {
  const { settings, snapshot } = deps;
  return {
    kube: snapshot.kubeTarget,
    clusterName: target.name,
    namespace: target.namespace,
    operatorNamespace: snapshot.operator?.namespace ?? target.namespace,
    fields: dialectFields(snapshot.dialect),
    moduleFiles: settings.moduleFiles,
    targetOperator: deps.plan.target.operator,
    databaseResources: snapshot.databases.map((db) => ({
      name: db.name,
      namespace: db.namespace,
      uid: db.databaseUid,
    })),
  };
}

export class FreezeWatch {
  readonly #ctx: StepContext<UpgradeDeps>;
  readonly #target: Target;
  readonly #remediation: Remediation;
  readonly #hooks: FreezeWatchHooks;
  /**
   * The operator's log is read from here on: this attempt's start, or an earlier attempt's when
   * the step resumes (the operator may have said why the upgrade froze only once, before it).
   */
  readonly #logSince: number;
  /**
   * A resumed step looks at the management API at its first chance instead of waiting out the
   * grace: the earlier attempt stopped, maybe on a freeze whose log line is not written again.
   */
  #resumedLookPending: boolean;
  #assessedKey: string | undefined;

  constructor(
    ctx: StepContext<UpgradeDeps>,
    target: Target,
    remediation: Remediation,
    startedAt: number,
    hooks: FreezeWatchHooks,
  ) {
    this.#ctx = ctx;
    this.#target = target;
    this.#remediation = remediation;
    this.#hooks = hooks;
    const earlierStart = Date.parse(ctx.previous?.startedAt ?? '');
    this.#logSince = Number.isFinite(earlierStart) ? Math.min(earlierStart, startedAt) : startedAt;
    this.#resumedLookPending = ctx.previous !== undefined && ctx.previous.status !== 'pending';
  }

  /** One look for a freeze; a new one stops the step or, with --remediate, is lifted. */
  async look(): Promise<void> {
    const ctx = this.#ctx;
    const { api, kube, snapshot, plan, clock, settings } = ctx.deps;
    const minimum = minimumDatabaseVersion(plan.target.operator);
    const now = clock.now();
    // A resumed step's first look has no grace: it asks the management API at once.
    const graceMs = this.#resumedLookPending ? 0 : freezeGraceMs(settings.stallTimeoutMs);
    this.#resumedLookPending = false;
    const diagnosis = await diagnoseFreeze(
      {
        kube,
        api,
        snapshot,
        warn: (message) => this.#hooks.warnOnce(message.split(' (')[0] ?? message, message),
      },
      {
        clusterName: this.#target.name,
        minimumDatabaseVersion: minimum,
        sinceSeconds: (now - this.#logSince) / 1000 + 1,
        stalledMs: now - this.#hooks.lastProgressAt(),
        graceMs,
      },
    );
    if (this.#hooks.settled() || !diagnosis) return;
    const { blockers, evidence } = diagnosis;
    const key = blockers.length === 0 ? `none:${evidence.length}` : blockers.map(describeBlocker).join('; ');
    if (key === this.#assessedKey) return;
    this.#assessedKey = key;
    if (blockers.length === 0) {
      await syncRecordedDatabases(this.#innerContext(), this.#remediationContext(), this.#remediation);
      if (evidence.length > 0) {
        ctx.warn(
          `the operator's log reports: ${evidence.at(-1)}; the management API shows nothing left to fix, so ctl keeps watching`,
        );
      }
      return;
    }
    await this.#handleFrozen(blockers, evidence);
  }

  async #handleFrozen(blockers: Blocker[], evidence: string[]): Promise<void> {
    const ctx = this.#ctx;
    const { settings } = ctx.deps;
    const context = this.#remediationContext();
    if (!settings.remediate) throw frozenError(blockers, context, evidence);
    ctx.warn(
      `the cluster upgrade is frozen: ${blockers.map(describeBlocker).join('; ')}; remediating (--remediate)`,
    );
    await remediateFrozenUpgrade(this.#innerContext(), blockers, context, this.#remediation);
    if (!this.#hooks.settled())
      ctx.progress('remediation done: the operator should resume the rolling upgrade');
  }

  #remediationContext(): RemediationContext {
    return remediationContextOf(this.#ctx.deps, this.#target);
  }

  /** The step's context for remediation: its progress counts as progress, it stops with the follower. */
  #innerContext(): StepContext<UpgradeDeps> {
    const ctx = this.#ctx;
    return {
      ...ctx,
      signal: this.#hooks.signal,
      progress: (message, data) => {
        this.#hooks.touch();
        ctx.progress(message, data);
      },
      recordIntent: (intent) => ctx.recordIntent(intent),
      warn: (message, data) => ctx.warn(message, data),
    };
  }
}
