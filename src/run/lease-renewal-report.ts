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
 * Pure: the caller gives the time; nothing here talks to Kubernetes.
 */

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
    const unrenewedMs = now - this.#lastRenewed;
    if (!this.#saidExpired && unrenewedMs > this.#leaseSeconds * 1000) {
      this.#saidExpired = true;
      return `${name} has not been renewed for ${formatSeconds(unrenewedMs / 1000)}, longer than its duration (${formatSeconds(this.#leaseSeconds)}): another run may take it over now (${this.#failures} failures in a row: ${cause})`;
    }
    return undefined;
  }

  /** A renewal worked at `now`: the line to say when failures came before it, else undefined. */
  renewed(now: number): string | undefined {
    const failures = this.#failures;
    this.#failures = 0;
    this.#said = undefined;
    this.#saidExpired = false;
    this.#lastRenewed = now;
    if (failures === 0) return undefined;
    return `renewed the Lease ${this.#leaseName} again after ${failures} failed ${failures === 1 ? 'renewal' : 'renewals'}`;
  }
}

function formatSeconds(seconds: number): string {
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
