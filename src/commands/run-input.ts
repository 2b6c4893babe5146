import type { LiveDisplayFactory } from '../io/progress.js';
import type { Target } from '../planning/target.js';
import type { StateStoreKind } from '../run/state-store.js';
import type { StepId } from '../steps/index.js';
import type { PlanArgs } from './next-command.js';
import type { SessionInput, UpgradeSession } from './session.js';

/** What `ctl upgrade run` is asked to do: its flags, read by src/cli/upgrade-actions.ts. */
export interface RunCommandInput extends SessionInput {
  /** Undefined only with --plan (the saved plan names the target). */
  target: Target | undefined;
  /** The command line as given: resuming repeats it exactly, every flag included. */
  argv?: string[] | undefined;
  planFile: string | undefined;
  statePath: string | undefined;
  yes: boolean;
  dryRun: boolean;
  /** `--dry-run=server`: each write is also sent with dryRun=All; the refusals end the run (exit 1). */
  serverDryRun?: boolean | undefined;
  only: StepId[];
  skip: StepId[];
  timeoutMs: number;
  stallTimeoutMs: number;
  /** `--max-unavailable`: the longest outage a database may have before the run stops (exit 8). */
  maxUnavailableMs?: number | undefined;
  remediate: boolean;
  moduleFiles: string[];
  maxParallel: number;
  keepScc: boolean;
  helmBin: string;
  /** ctl demo passes the in-process session; the CLI opens one. */
  session?: UpgradeSession;
  /** For tests: where a terminal's live progress lines go (stderr's terminal by default). */
  liveDisplay?: LiveDisplayFactory;
  /** `--state-store`: a local file (default) or a ConfigMap and a Lease in the cluster. */
  stateStore?: StateStoreKind;
  /** `--lease-duration`, for the ConfigMap store's Lease. */
  leaseDurationSeconds?: number;
  /** `--report <file>`: a JSON report of the run, written however it ends. */
  reportFile?: string;
  /** The fleet's interrupt signal; without it the run guards SIGINT/SIGTERM itself. */
  signal?: AbortSignal;
  /** `--max-hops` (default 3); with --plan, the saved plan's number of hops. */
  maxHops?: number | undefined;
  /** The plan-deciding flags given, for the commands ctl suggests (the fleet's plan command). */
  planArgs?: PlanArgs | undefined;
}
