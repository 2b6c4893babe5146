/**
 * What a run says of its Lease renewals that fail (src/run/state-store-configmap.ts), for a person
 * at a terminal: the first failure of an outage, a cause that changes, the moment the Lease has
 * gone unrenewed for its whole duration (another run may take it over from then on), and the
 * renewal that works again, with how many failed before it. The same cause again is not said:
 * the Lease is renewed every third of its duration (10 s by default), so a credential plugin that
 * fails for a quarter of an hour printed one line every 10 s, about 90 lines, each the same.
 *
 * client-go's leader election logs every failed attempt (tools/leaderelection/leaderelection.go,
 * tryAcquireOrRenew: klog.Errorf "Failed to update lock optimistically", "error retrieving
 * resource lock") into a controller's log, where a log pipeline counts and folds them, and once
 * "failed to renew lease" when its renew deadline passes and it gives up leading. ctl writes to a
 * person's terminal, so it says the first and the changes, and the recovery with the count in
 * place of the lines it did not print. Losing the Lease to another run is not this module's: the
 * store says that, and stops the run's state writes, as before.
 *
 * A renewal still under way at the next tick (its credential plugin hangs, up to its 60 s limit)
 * is not joined by another: the store starts none while one is in flight (they queued behind it,
 * then ran back to back). One still under way RENEW_DEADLINE_TICKS ticks after it was sent
 * (two thirds of the Lease's duration, 20 s of 30 s; never under 10 s, pastRenewDeadline) is
 * judged failed (`pending`) and stopped: the store aborts its request, credential wait included,
 * and the next tick sends another, saying the Lease outliving its duration on time (`overdue`),
 * whether or not the stopped request would ever have answered. client-go's elector does the same
 * with its renew deadline: each renewal is bounded by RenewDeadline (PollUntilContextTimeout, whose
 * context, cancelled at the deadline, ends the request under way; 10 s of a 15 s LeaseDuration in
 * its core clients, two thirds too), and the next starts only after it ends
 * (wait.UntilWithContext, RetryPeriod) (tools/leaderelection/leaderelection.go, renew, at
 * kubernetes/client-go 32ce75a7d). The first such renewal of an outage is said; the cause a later
 * renewal fails with is said as a change.
 *
 * Pure: the caller gives the time; nothing here talks to Kubernetes.
 */

import { KUBE_DEADLINES } from '../kube/deadlines.js';

/** Ticks (thirds of the Lease's duration) a renewal may be under way before it counts as failed. */
export const RENEW_DEADLINE_TICKS = 2;
/**
 * And never sooner than a request's own connect deadline (deadlines.ts): before it a renewal is
 * slow, not stuck. Only a Lease shorter than 15 s meets it: with `--lease-duration 1s` a renewal
 * (two requests, and with an exec plugin two runs of it) is sent every 0.33 s, and on a busy
 * machine took up to 1.7 s, every one of them said as failed at two ticks.
 */
export const RENEW_DEADLINE_FLOOR_MS = KUBE_DEADLINES.connectMs;

/**
 * Whether a renewal sent at `startedAt` and still under way at `now`, `ticks` ticks later, has
 * passed its deadline: it counts as failed, and the store stops it.
 */
export function pastRenewDeadline(startedAt: number, now: number, ticks: number): boolean {
  return ticks >= RENEW_DEADLINE_TICKS && now - startedAt >= RENEW_DEADLINE_FLOOR_MS;
}

export class LeaseRenewalReport {
  readonly #leaseName: string;
  readonly #leaseSeconds: number;
  readonly #periodSeconds: number;
  /** Renewals in a row that failed; 0 while they work. */
  #failures = 0;
  /** The cause last said in this outage. */
  #said: string | undefined;
  #saidExpired = false;
  #lastRenewed: number;
  /** What the last renewal judged failed under way was said to wait for (pending). */
  #judged: string | undefined;

  constructor(leaseName: string, leaseSeconds: number, periodMs: number, acquiredAt: number) {
    this.#leaseName = leaseName;
    this.#leaseSeconds = leaseSeconds;
    this.#periodSeconds = Math.max(0.25, periodMs / 1000);
    this.#lastRenewed = acquiredAt;
  }

  /** Renewals in a row that failed so far. */
  get failures(): number {
    return this.#failures;
  }

  /** A renewal failed with `cause` at `now`: the line to warn with, or undefined to say nothing. */
  failed(cause: string, now: number): string | undefined {
    this.#failures += 1;
    const name = `the Lease ${this.#leaseName}`;
    if (this.#failures === 1) {
      this.#said = cause;
      return `could not renew ${name}: ${cause}; ctl tries again every ${formatSeconds(this.#periodSeconds)} and says so again only if the cause changes, or once it is renewed`;
    }
    if (cause !== this.#said) {
      this.#said = cause;
      return `could not renew ${name} (${this.#failures} failures in a row): ${cause}`;
    }
    return this.#expired(cause, now);
  }

  /**
   * A tick at `now` found the renewal sent at `startedAt`, `ticks` ticks ago, still under way (no
   * other starts meanwhile). Past its deadline (pastRenewDeadline) the tick counts it as a failed
   * renewal, said at the first of an outage, and the store stops it; the cause a later renewal
   * fails with is said when it comes (failed), as a change. Before that, only a Lease that has
   * outlived its duration in an outage already under way is said.
   */
  pending(startedAt: number, now: number, ticks: number): string | undefined {
    const waiting = `the renewal sent ${formatSeconds(Math.round((now - startedAt) / 100) / 10)} ago has no answer yet (the kubeconfig's credential plugin or the API server is slow)`;
    if (!pastRenewDeadline(startedAt, now, ticks))
      return this.#failures > 0 ? this.#expired(this.#said ?? waiting, now) : undefined;
    this.#failures += 1;
    this.#judged = waiting;
    if (this.#failures === 1) {
      return `could not renew the Lease ${this.#leaseName}: ${waiting}; ctl stopped it and sends another every ${formatSeconds(this.#periodSeconds)}, and says so again only if the cause changes, or once it is renewed`;
    }
    return this.#expired(this.#said ?? waiting, now);
  }

  /**
   * A tick at `now` sends a renewal in place of one stopped past its deadline (pending): the line
   * saying the Lease has outlived its duration, when it is due, as the tick that found the
   * renewal still under way said it (the new renewal's own outcome comes later, or not in time).
   */
  overdue(now: number): string | undefined {
    return this.#failures > 0 ? this.#expired(this.#said ?? this.#judged ?? 'no answer', now) : undefined;
  }

  /** The line saying the Lease has outlived its duration, the first time it has. */
  #expired(cause: string, now: number): string | undefined {
    const unrenewedMs = now - this.#lastRenewed;
    if (this.#saidExpired || unrenewedMs <= this.#leaseSeconds * 1000) return undefined;
    this.#saidExpired = true;
    return `the Lease ${this.#leaseName} has not been renewed for ${formatSeconds(unrenewedMs / 1000)}, longer than its duration (${formatSeconds(this.#leaseSeconds)}): another run may take it over now (${this.#failures} ${this.#failures === 1 ? 'failure' : 'failures'} in a row: ${cause})`;
  }

  /** A renewal worked at `now`: the line to say when failures came before it, else undefined. */
  renewed(now: number): string | undefined {
    const failures = this.#failures;
    this.#failures = 0;
    this.#said = undefined;
    this.#saidExpired = false;
    this.#judged = undefined;
    this.#lastRenewed = now;
    if (failures === 0) return undefined;
    return `renewed the Lease ${this.#leaseName} again after ${failures} failed ${failures === 1 ? 'renewal' : 'renewals'}`;
  }
}

function formatSeconds(seconds: number): string {
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
