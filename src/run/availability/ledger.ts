/**
 * What was measured of each database's availability: a pure record of samples (no clock, no
 * request). Each sample says the database was up, down, or could not be seen at a moment;
 * consecutive samples make the time between them seen (up or down) or not seen.
 *
 * An outage starts at the first sample that saw the database down and ends at the first that saw
 * it up again: each end is exact to one poll interval. A gap in what the management API answered
 * (its node restarting, a timeout) is not seen: never counted as an outage, and left out of the
 * availability share. The share is `1 - down / seen` over the measured window.
 */

export type Seen = 'up' | 'down' | 'unseen';

export interface Outage {
  /** ISO times. */
  start: string;
  end: string;
  /** The cluster pod that was restarting when it started; null when none was. */
  pod: string | null;
  /** Still going on when the measurement stopped (`end` is then that moment). */
  ongoing?: true;
}

/** One entry of the run's result (CLI.md: `availability`). */
export interface AvailabilityEntry {
  namespace: string;
  name: string;
  uid: number;
  measured: boolean;
  /** Share of the seen window the database was available (0..1); null when not measured. */
  availability: number | null;
  longestOutageMs: number;
  outages: Outage[];
  /** How long the management API gave no answer about it ("could not see"). */
  notSeenMs: number;
  /** How long it was seen (up or down). */
  seenMs: number;
  /** Why it was not measured, or what limited the measurement. */
  why?: string;
}

/** The entry of a database that was not measured, saying why (CLI.md `availability`). */
export function unmeasuredEntry(
  db: { namespace: string; name: string; uid: number },
  why: string | undefined,
): AvailabilityEntry {
  return {
    namespace: db.namespace,
    name: db.name,
    uid: db.uid,
    measured: false,
    availability: null,
    longestOutageMs: 0,
    outages: [],
    notSeenMs: 0,
    seenMs: 0,
    why,
  };
}

/** One database's running record; serialisable as it is (the state keeps it between runs). */
export interface DatabaseRecord {
  namespace: string;
  name: string;
  uid: number;
  seenMs: number;
  notSeenMs: number;
  outages: { start: number; end: number; pod: string | null }[];
  /** An outage going on: since when, and the pod restarting then. */
  open?: { start: number; pod: string | null } | undefined;
  /** The last sample: when, and what it saw. */
  last?: { at: number; seen: Seen } | undefined;
}

export class AvailabilityLedger {
  readonly #records = new Map<number, DatabaseRecord>();

  constructor(records: readonly DatabaseRecord[] = []) {
    for (const record of records) this.#records.set(record.uid, structuredClone(record));
  }

  /** Adds a database to measure (a known one keeps what it has). */
  track(database: { uid: number; namespace: string; name: string }): void {
    if (this.#records.has(database.uid)) return;
    this.#records.set(database.uid, { ...database, seenMs: 0, notSeenMs: 0, outages: [] });
  }

  tracked(): DatabaseRecord[] {
    return [...this.#records.values()];
  }

  /** What one poll saw of one database at `at` (ms), with the pod restarting then. */
  sample(uid: number, at: number, seen: Seen, pod: string | null): void {
    const record = this.#records.get(uid);
    if (!record) return;
    const last = record.last;
    if (last && at > last.at) {
      // The time since the last sample counts as what that sample saw.
      if (last.seen === 'unseen') record.notSeenMs += at - last.at;
      else record.seenMs += at - last.at;
    }
    if (seen === 'down') {
      if (!record.open) record.open = { start: at, pod };
      else if (record.open.pod === null && pod !== null) record.open.pod = pod;
    } else if (seen === 'up' && record.open) {
      record.outages.push({ start: record.open.start, end: at, pod: record.open.pod });
      record.open = undefined;
    }
    record.last = { at, seen };
  }

  /**
   * The measurement paused (the run stopped, or its steps are over): the time since the last
   * sample is counted, and the next run's first sample starts afresh. An outage going on stays
   * open: a resumed run ends it when it sees the database up.
   */
  pause(at: number): void {
    for (const record of this.#records.values()) {
      const last = record.last;
      if (last && at > last.at) {
        if (last.seen === 'unseen') record.notSeenMs += at - last.at;
        else record.seenMs += at - last.at;
      }
      record.last = undefined;
    }
  }

  /** The longest outage of each database, the one going on counted up to `now`. */
  longest(uid: number, now: number): { ms: number; start: number; pod: string | null } | undefined {
    const record = this.#records.get(uid);
    if (!record) return undefined;
    const all = [...record.outages, ...(record.open ? [{ ...record.open, end: now }] : [])];
    let best: { ms: number; start: number; pod: string | null } | undefined;
    for (const outage of all) {
      const ms = outage.end - outage.start;
      if (!best || ms > best.ms) best = { ms, start: outage.start, pod: outage.pod };
    }
    return best;
  }

  /** The result's entries, as of `now` (an outage going on ends at `now`, marked ongoing). */
  entries(now: number): AvailabilityEntry[] {
    return [...this.#records.values()].map((record) => entryOf(record, now));
  }
}

function entryOf(record: DatabaseRecord, now: number): AvailabilityEntry {
  const outages: Outage[] = record.outages.map((outage) => ({
    start: iso(outage.start),
    end: iso(outage.end),
    pod: outage.pod,
  }));
  let openMs = 0;
  if (record.open) {
    const end = Math.max(now, record.open.start);
    openMs = end - record.open.start;
    outages.push({ start: iso(record.open.start), end: iso(end), pod: record.open.pod, ongoing: true });
  }
  const downMs = record.outages.reduce((sum, outage) => sum + (outage.end - outage.start), 0) + openMs;
  const longestOutageMs = Math.max(0, ...record.outages.map((outage) => outage.end - outage.start), openMs);
  const base = {
    namespace: record.namespace,
    name: record.name,
    uid: record.uid,
    longestOutageMs,
    outages,
    notSeenMs: Math.round(record.notSeenMs),
    seenMs: Math.round(record.seenMs),
  };
  if (record.seenMs <= 0 && outages.length === 0) {
    return {
      ...base,
      measured: false,
      availability: null,
      why:
        record.notSeenMs > 0
          ? 'could not see it: the management API gave no answer about it while ctl measured'
          : 'not measured: the run did not poll it (no roll, or it ended before the first answer)',
    };
  }
  const seen = Math.max(record.seenMs, downMs);
  const availability = seen > 0 ? Math.max(0, Math.min(1, 1 - downMs / seen)) : 1;
  return {
    ...base,
    measured: true,
    availability: Math.round(availability * 1e6) / 1e6,
    ...(record.notSeenMs > 0
      ? { why: `could not see it for ${Math.round(record.notSeenMs)} ms (no answer from the management API)` }
      : {}),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
