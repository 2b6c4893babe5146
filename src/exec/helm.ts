import { OperationError } from '../errors.js';
import { quotedLines } from '../io/safe-text.js';
import type { Io } from '../io/io.js';
import type { ServerDryRun } from '../io/server-dry-run.js';
import { shellQuote } from '../io/shell-words.js';
import {
  commandFor,
  DEFAULT_KUBE_TARGET,
  helmTargetArgs,
  invocation,
  kubeconfigEnv,
  type KubeTarget,
} from '../kube/kube-target.js';

export interface HelmOptions {
  io: Io;
  /** The helm binary: `--helm-bin`, CTL_HELM, else `helm` from the PATH. */
  binary: string;
  dryRun: boolean;
  /** `--dry-run=server`: `helm upgrade|install` runs with `--dry-run=server` (helm 3.13+), and the answer is kept. */
  server?: ServerDryRun | undefined;
  signal: AbortSignal;
  /** The environment ctl was given (default the process's); helm gets it less ctl's variables. */
  env?: NodeJS.ProcessEnv;
  /**
   * The kubeconfig and context chosen for ctl (src/kube/kube-target.ts), given to helm as the
   * plan prints its command: `--kubeconfig`, `--kube-context`, or KUBECONFIG for several files.
   */
  kube?: KubeTarget | undefined;
}

/**
 * The environment helm gets: ctl's own, less every variable that holds or points at a ctl
 * credential (CTL_PASSWORD, CTL_USERNAME, CTL_PASSWORD_FILE, ...: all of CTL_* but CTL_HELM).
 * helm's own (HELM_*, KUBECONFIG, PATH, HOME, proxies) stays.
 */
export function helmEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !name.startsWith('CTL_') || name === 'CTL_HELM'),
  );
}

export interface HelmResult {
  stdout: string;
  stderr: string;
}

/**
 * Runs helm for the operator step. Secrets never go into argv (helm gets the kubeconfig path,
 * never credentials). On cancellation helm gets SIGTERM and time to finish: helm >= 3.7 then
 * marks the release failed, while SIGKILL would leave it `pending-upgrade` and block every
 * later upgrade (helm/helm#4558, #10599).
 */
export class Helm {
  constructor(private readonly options: HelmOptions) {}

  /** A read-only call: runs in dry-run too. */
  async read(args: string[]): Promise<HelmResult> {
    return this.#exec(args, HELM_DEADLINES.readMs);
  }

  /** A call that changes the cluster: printed, not run, in dry-run. */
  async change(args: string[]): Promise<HelmResult | undefined> {
    if (this.options.dryRun) {
      const server = this.options.server;
      const judged = server !== undefined && (args[0] === 'upgrade' || args[0] === 'install');
      this.options.io.info(`would run: ${this.describe(args)}${judged ? ' (server dry run)' : ''}`);
      if (server && judged) {
        // helm renders the chart and sends each object with dryRun=All (helm 3.13+).
        try {
          await this.#exec([...args, '--dry-run=server'], HELM_DEADLINES.changeMs);
          server.accept(`helm ${args[0]}`);
        } catch (error) {
          server.refuse(`helm ${args.slice(0, 2).join(' ')}`, (error as Error).message);
        }
      } else if (server) {
        server.cannotJudge(`helm ${args[0] ?? ''}`, 'helm has no server dry run for it');
      }
      return undefined;
    }
    return this.#exec(args, HELM_DEADLINES.changeMs);
  }

  describe(args: string[]): string {
    return [this.options.binary, ...this.#globalArgs(), ...args].map(shellQuote).join(' ');
  }

  /** `helm <words>` for a hint: as a person would type it here, naming the same cluster. */
  command(...words: string[]): string {
    return commandFor('helm', this.options.kube ?? DEFAULT_KUBE_TARGET, ...words);
  }

  /** `[KUBECONFIG=...] helm [--kubeconfig ...] [--kube-context ...]`: helm as a person would type it here. */
  #invocation(): string {
    return invocation('helm', this.options.kube ?? DEFAULT_KUBE_TARGET);
  }

  #globalArgs(): string[] {
    return this.options.kube ? helmTargetArgs(this.options.kube) : [];
  }

  async #exec(args: string[], deadlineMs: number): Promise<HelmResult> {
    const { execa } = await import('execa');
    const argv = [...this.#globalArgs(), ...args];
    this.options.io.debug(1, `$ ${this.describe(args)}`);
    // Past the deadline helm is stopped as on an interruption (SIGTERM: it marks the release
    // failed and ends); a wrapper's child still holding helm's output open is let go after the
    // grace, so the step ends instead of waiting for the pipe.
    const deadline = new AbortController();
    let subprocess: ReturnType<typeof execa> | undefined;
    let letGo: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      deadline.abort();
      letGo = setTimeout(() => {
        subprocess?.stdout?.destroy();
        subprocess?.stderr?.destroy();
      }, HELM_DEADLINES.graceMs);
    }, deadlineMs);
    try {
      subprocess = execa(this.options.binary, argv, {
        // Never ctl's credentials: helm (or any --helm-bin) needs none of them (issue 28).
        env: helmEnvironment({
          ...(this.options.env ?? process.env),
          ...(this.options.kube ? kubeconfigEnv(this.options.kube) : {}),
        }),
        extendEnv: false,
        stdin: 'ignore',
        cancelSignal: AbortSignal.any([this.options.signal, deadline.signal]),
        // SIGTERM on cancel, and never escalate to SIGKILL (see the class comment).
        killSignal: 'SIGTERM',
        forceKillAfterDelay: false,
        reject: true,
      });
      const result = await subprocess;
      const stdout = String(result.stdout);
      this.options.io.debug(2, outputForLog(args, stdout));
      return { stdout, stderr: String(result.stderr) };
    } catch (error) {
      if (deadline.signal.aborted && !this.options.signal.aborted) {
        throw new OperationError(
          `helm ${args[0] ?? ''} gave no answer within ${deadlineMs / 1000} s; ctl stopped it`,
          {
            hint: `Check that helm reaches the cluster (${this.#invocation()} list -A), then run ctl again: the run resumes at this step.`,
          },
        );
      }
      const e = error as { code?: string; stderr?: string; shortMessage?: string; isCanceled?: boolean };
      if (e.code === 'ENOENT') {
        throw new OperationError(`helm was not found (${this.options.binary})`, {
          hint: 'Install helm 3.14 or later (https://helm.sh/docs/intro/install/) and put it on the PATH, or point ctl at it (--helm-bin or CTL_HELM), then run the same command again: helm manages this operator, so ctl upgrades it with helm.',
        });
      }
      if (e.isCanceled) throw error;
      // helm's stderr quotes the chart and the cluster: kept line by line, escaped and indented.
      const detail = quotedLines((e.stderr ?? '').trim() || e.shortMessage || String(error));
      throw new OperationError(`helm ${args[0] ?? ''} failed: ${detail}`, {
        hint: helmHint(detail, this.#invocation()),
      });
    } finally {
      clearTimeout(timer);
      clearTimeout(letGo);
    }
  }
}

/**
 * How long one helm command may take. helm's own `--timeout` bounds its waits (hooks, `--wait`,
 * which ctl does not use: it waits itself), not each request, so a helm facing an API server or
 * a chart repository that never answers waited for ever, and the run with it. A read (`version`,
 * `history`, `get values`) takes seconds; an upgrade downloads the chart and applies its
 * objects, minutes at most.
 */
export const HELM_DEADLINES = {
  readMs: 180_000,
  changeMs: 900_000,
  /** After the SIGTERM, how long helm's output may stay open before ctl lets go of it. */
  graceMs: 30_000,
} as const;

/**
 * helm's commands whose output names the release and its revisions, never its values. The
 * others print the user's values (`get values`) or what the chart made of them (the manifest of
 * `upgrade --dry-run=server`, `get manifest`, the notes): values may hold credentials (a proxy's
 * password, a registry token) that ctl never registered as secrets, so -vv shows only their size.
 */
const OUTPUT_SHOWN = new Set(['version', 'history', 'list']);

function outputForLog(args: string[], stdout: string): string {
  if (OUTPUT_SHOWN.has(args[0] ?? '')) return stdout;
  return `(helm ${args[0] ?? ''} printed ${Buffer.byteLength(stdout)} bytes, not shown: they may quote the release's values)`;
}

function helmHint(detail: string, helm: string): string | undefined {
  if (/another operation \(install\/upgrade\/rollback\) is in progress/.test(detail)) {
    return `The release is stuck in a pending state from an interrupted helm run. Inspect it with \`${helm} history RELEASE --namespace NAMESPACE\` and roll back to the last deployed revision with \`${helm} rollback RELEASE REVISION --namespace NAMESPACE\`, then run ctl again.`;
  }
  if (/Kubernetes cluster unreachable/.test(detail))
    return 'Check the kubeconfig and context that ctl passes to helm (--kubeconfig, --context).';
  return undefined;
}
