import type { Io } from './io.js';

/**
 * `ctl upgrade run --dry-run=server`: every write the run would make is sent with the API
 * server's `dryRun=All` (Kubernetes: admission, schema validation and RBAC judge it, nothing is
 * persisted; helm: `helm upgrade --dry-run=server`), and each answer is kept here, so the run
 * ends by listing what the server refused. The management API has no dry run: its writes are
 * printed, and named as not judged.
 */
/** What a dry run's write line ends with: "(server dry run)" when the server judges it. */
export function dryRunMark(server: ServerDryRun | undefined): string {
  return server ? ' (server dry run)' : '';
}

export class ServerDryRun {
  readonly refused: string[] = [];
  readonly accepted: string[] = [];
  readonly notJudged: string[] = [];

  constructor(private readonly io: Io) {}

  accept(what: string): void {
    this.accepted.push(what);
    this.io.info(`  server dry run: accepted`);
  }

  refuse(what: string, why: string): void {
    const line = `${what}: ${why}`;
    this.refused.push(line);
    this.io.warn(`server dry run: refused ${line}`);
  }

  /** A write nothing can judge before it is made (the management API has no dry run). */
  cannotJudge(what: string, why: string): void {
    this.notJudged.push(`${what} (${why})`);
    this.io.info(`  not judged: ${why}`);
  }
}
