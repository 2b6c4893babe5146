/**
 * What the databases step remembers across attempts: the databases it has patched (and the
 * Active-Active feature-set updates it announced), written to the state file's intent record
 * before each change, so a resumed run counts a database it patched earlier as its own work.
 */

import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import type { FeatureSetRecord } from './databases-active-active.js';

/** Databases an earlier attempt of this step already patched (from its intent record). */
export function previousNames(ctx: StepContext<UpgradeDeps>): Set<string> {
  const patched = ctx.previous?.intent?.patched;
  return new Set(Array.isArray(patched) ? patched.filter((n): n is string => typeof n === 'string') : []);
}

/**
 * The step's intent record (which databases it has patched), written before each patch so a
 * resumed run knows them. Databases are upgraded in parallel: writes never overlap, and the
 * records that arrive while one is being written share the next write (group commit), so 50
 * databases starting together cost two writes of the state, not 50 in a row. Each record
 * resolves once a write that contains it is done.
 */
export class IntentLog {
  readonly #ctx: StepContext<UpgradeDeps>;
  /** In the order patched (a Set keeps insertion order). */
  readonly #patched: Set<string>;
  #current: Record<string, unknown> = {};
  /** Feature-set updates announced, by database: kept in every write, so a resumed run sees them. */
  readonly #featureSets: Record<string, FeatureSetRecord> = {};
  /** The latest write, started or waiting for the one before it. */
  #last: Promise<void> = Promise.resolve();
  /** The write that has not started yet: new records join it. */
  #next: Promise<void> | undefined;

  constructor(ctx: StepContext<UpgradeDeps>, previous: Set<string>) {
    this.#ctx = ctx;
    this.#patched = new Set(previous);
  }

  /** Records a feature-set update before it is announced (like a patch, before it is made). */
  recordFeatureSet(record: FeatureSetRecord): Promise<void> {
    this.#featureSets[record.database] = record;
    return this.record(record.database, { featureSet: record.commands });
  }

  record(label: string, detail: Record<string, unknown>): Promise<void> {
    this.#patched.add(label);
    this.#current = { database: label, ...detail };
    if (this.#next) return this.#next;
    const next = this.#last
      .catch(() => undefined) // the earlier write's failure is its own records' to report
      .then(() => {
        this.#next = undefined; // from here on, a record needs the write after this one
        const featureSet = Object.values(this.#featureSets);
        return this.#ctx.recordIntent({
          patched: [...this.#patched],
          current: this.#current,
          ...(featureSet.length > 0 ? { featureSet } : {}),
        });
      });
    this.#next = next;
    this.#last = next;
    return next;
  }
}
