import { closeSync, openSync, writeSync } from 'node:fs';

/** One line of audit.jsonl (SIMULATOR.md): every request to either emulator. */
export interface AuditEntry {
  ts: string;
  api: 'kube' | 'rest';
  method: string;
  path: string;
  status: number;
  user: string;
  mutating: boolean;
}

/**
 * Shared by both emulators of one simulated cluster. Kept in memory for in-process tests and,
 * when a file is given, appended to it line by line (so a crash loses nothing already served).
 * The file stays open from the first line to close(): a request's line is one write, where
 * opening the file for each (appendFileSync) added two system calls to every request.
 */
export class AuditLog {
  readonly entries: AuditEntry[] = [];
  #file: string | undefined;
  #fd: number | undefined;

  constructor(file?: string) {
    this.#file = file;
  }

  record(entry: Omit<AuditEntry, 'ts'>): void {
    const full: AuditEntry = { ts: new Date().toISOString(), ...entry };
    this.entries.push(full);
    if (this.#file === undefined) return;
    this.#fd ??= openSync(this.#file, 'a', 0o600);
    writeSync(this.#fd, `${JSON.stringify(full)}\n`);
  }

  /**
   * No more lines go to the file (entries are still kept in memory). The simulator's stop()
   * calls it last: a request held by a delay fault is answered after its server closed, and its
   * line would be written into a folder the caller may have removed meanwhile (an ENOENT thrown
   * from the request's handler, failing whichever test runs in that process).
   */
  close(): void {
    this.#file = undefined;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Entries matching a method and a path pattern (`*` matches one path segment or more). */
  filter(method: string, pathPattern: string | RegExp): AuditEntry[] {
    const re = typeof pathPattern === 'string' ? globToRegExp(pathPattern) : pathPattern;
    return this.entries.filter((e) => e.method === method && re.test(e.path.split('?')[0] ?? ''));
  }
}

/**
 * The most requests any `windowMs` window held (a sliding window over the entries' times), e.g.
 * the management API's peak rate during a roll: `peakRequests(audit.entries.filter(...), 1000)`.
 * Works on entries read back from audit.jsonl as well as on a live log's.
 */
export function peakRequests(entries: readonly Pick<AuditEntry, 'ts'>[], windowMs: number): number {
  const times = entries.map((entry) => Date.parse(entry.ts)).sort((a, b) => a - b);
  let peak = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while ((times[last] ?? 0) - (times[first] ?? 0) >= windowMs) first++;
    peak = Math.max(peak, last - first + 1);
  }
  return peak;
}

export function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^?]*');
  return new RegExp(`^${escaped}$`);
}
