import { existsSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';
import type { RefusedInput } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import { shellQuote, wordsOfQuotedCommand } from '../io/shell-words.js';
import { isUrl } from '../kube/download.js';
import { kubeconfigArgs, kubeconfigEnv, type KubeTarget, selectedKubeTarget } from '../kube/kube-target.js';

/**
 * The options a user gave that decide what is planned, as the command line read them (argv
 * tokens, `--flag value`), in two parts: where the cluster is and how to reach it (`location`:
 * --kubeconfig, --context, -n, --cluster, the management API flags, --state-store), and what to
 * upgrade it to (`plan`: --to aside, --cluster-version, --databases, --ignore-check, --bundle,
 * --catalog, ...). ctl has no flag that carries a secret (no --password), so every token may be
 * printed. Built once by the command line (src/cli/plan-args.ts).
 */
export interface PlanArgs {
  location: readonly string[];
  plan: readonly string[];
  /**
   * The run's own options that the next run must repeat to find its record: `--state` (a plan
   * has none). Only a run's Next line writes them, never the target list's `ctl upgrade plan`.
   */
  run?: readonly string[];
}

export const NO_PLAN_ARGS: PlanArgs = { location: [], plan: [] };

/**
 * The same options without `--ignore-check <id>` of the given checks: an --ignore-check that
 * cannot get past a check (its `ignorable: false`) is no part of the command to make next.
 */
export function withoutIgnoredChecks(args: PlanArgs, ids: readonly string[]): PlanArgs {
  if (ids.length === 0) return args;
  const plan: string[] = [];
  for (let i = 0; i < args.plan.length; i++) {
    const token = args.plan[i] as string;
    if (token === '--ignore-check' && ids.includes(args.plan[i + 1] ?? '')) {
      i++;
      continue;
    }
    plan.push(token);
  }
  return { ...args, plan };
}

function command(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

/**
 * The run that does what this plan showed: with `--out`, the saved plan (which fixes the target
 * and selection, so only the location is repeated); else the same target and plan options.
 * Shared by `ctl upgrade plan`'s "Next:" line and its "plan saved" line.
 */
export function nextRunCommand(args: PlanArgs, to: string, out?: string, env?: NodeJS.ProcessEnv): string {
  const run = args.run ?? [];
  if (out !== undefined) return pasted(['upgrade', 'run', '--plan', out, ...args.location, ...run], env);
  return pasted(['upgrade', 'run', '--to', to, ...args.location, ...args.plan, ...run], env);
}

/**
 * The target list (`ctl upgrade plan` without --to) of the same cluster: what to make next when
 * the target itself cannot be run (a downgrade, a release that is not there).
 */
export function nextTargetsCommand(args: PlanArgs, env?: NodeJS.ProcessEnv): string {
  return pasted(['upgrade', 'plan', ...args.location], env);
}

/**
 * `ctl <words>`: as typed (a fleet member's plan), or, given the environment, as
 * {@link pastedRunCommand} writes it: files absolute, the kubeconfig read named. The plan's own
 * lines (Next, plan saved) and a run's are written so: a person pastes them later, in another
 * shell or folder (the state and --report record a run's), where a relative `--kubeconfig`,
 * `--out` or `--bundle` would name another file or none.
 */
function pasted(words: readonly string[], env: NodeJS.ProcessEnv | undefined): string {
  return env ? pastedRunCommand(words, env) : command(['ctl', ...words]);
}

/**
 * The plan of one target, from the target list (`ctl upgrade plan` without --to), or for a fleet
 * member; given the environment, as {@link pastedRunCommand} writes it (files absolute, the
 * kubeconfig read named), as the target list prints it.
 */
export function nextPlanCommand(
  args: PlanArgs,
  to: string,
  location: readonly string[] = args.location,
  env?: NodeJS.ProcessEnv,
): string {
  return pasted(['upgrade', 'plan', '--to', to, ...location, ...args.plan], env);
}

/** `--dry-run`, `--dry-run=server`, or `--dry-run server` (a value commander also takes). */
const DRY_RUN_MODES = new Set(['client', 'server', 'none']);

/**
 * The command that resumes a run: the same command line again, so every flag (the plan's, the
 * run's --state, --report, -o ...) holds, without --dry-run (a dry run changed nothing; the
 * run it rehearsed is the one to go on with). argv carries no secret: ctl has no such flag.
 * It names the kubeconfig the run read, as {@link pastedRunCommand} says.
 */
export function resumeCommand(argv: readonly string[], env: NodeJS.ProcessEnv): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--dry-run') {
      if (DRY_RUN_MODES.has(argv[i + 1] ?? '')) i += 1;
      continue;
    }
    if (arg.startsWith('--dry-run=')) continue;
    kept.push(arg);
  }
  return pastedRunCommand(kept, env);
}

const KUBECONFIG_FLAG = '--kubeconfig';

/**
 * The flags whose value is a file on this machine, read relative to the folder the run started
 * in: pasted in another folder, a relative `--state` would start a new run instead of resuming,
 * a relative `--plan` or `--module-file` would not be found.
 */
const FILE_FLAGS = new Set([
  KUBECONFIG_FLAG,
  '--state',
  '--plan',
  '--report',
  '--module-file',
  '--user-defined-modules',
  '--password-file',
  '--ca-file',
]);

/** The flags whose value is a file or an http(s) URL (src/kube/download.ts): only a file is made absolute. */
const FILE_OR_URL_FLAGS = new Set(['--bundle', '--catalog', '--fleet']);

/** The value as a pasted command in any folder reads it: a file made absolute; an empty value or a URL as given. */
function pastedValue(flag: string, value: string): string {
  if (value === '') return value;
  if (FILE_FLAGS.has(flag) || (FILE_OR_URL_FLAGS.has(flag) && !isUrl(value))) return resolve(value);
  return value;
}

/**
 * `ctl <argv>` as a person pastes it later, in another shell or folder: the words as typed, but
 * naming the kubeconfig the run read (src/kube/kube-target.ts, as every hint does) and each file
 * absolute. A relative file (`--kubeconfig`, `--state`, `--plan`, `--report`, `--module-file`,
 * `--bundle`/`--catalog`/`--fleet` when not a URL, ...) is made absolute where it stands; a
 * kubeconfig that came from KUBECONFIG, which a fresh shell has not set (so the pasted line would
 * read ~/.kube/config: another cluster), is named after the words (`--kubeconfig <file>`), or
 * before `ctl` as `KUBECONFIG=<files>` when it lists several. The context is named only as typed:
 * without `--context` the run used the kubeconfig's current context, and so does the pasted
 * command, as every hint's does. Each word is shell-quoted; a path is no secret. Every command ctl
 * prints from the run's own command line goes through here (resume, later hops, databases left,
 * the Next line of a run that changed nothing).
 */
export function pastedRunCommand(argv: readonly string[], env: NodeJS.ProcessEnv): string {
  const words: string[] = [];
  let named = false;
  // Words after `--` are operands, never ctl's flags (and nothing goes after them).
  const end = argv.includes('--') ? argv.indexOf('--') : argv.length;
  for (let i = 0; i < end; i += 1) {
    const arg = argv[i] as string;
    const equals = arg.indexOf('=');
    const flag = arg.startsWith('--') && equals > 0 ? arg.slice(0, equals) : arg;
    const isFile = FILE_FLAGS.has(flag) || FILE_OR_URL_FLAGS.has(flag);
    if (isFile && flag === arg && i + 1 < end) {
      const value = argv[i + 1] as string;
      words.push(arg, pastedValue(flag, value));
      // An empty --kubeconfig is no file: ctl then read KUBECONFIG, as if the flag were not there.
      named ||= flag === KUBECONFIG_FLAG && value !== '';
      i += 1;
    } else if (isFile && flag !== arg) {
      const value = arg.slice(equals + 1);
      words.push(value === '' ? arg : `${flag}=${pastedValue(flag, value)}`);
      named ||= flag === KUBECONFIG_FLAG && value !== '';
    } else {
      words.push(arg);
    }
  }
  const target = named ? {} : kubeconfigOfEnv(env);
  const assignments = Object.entries(kubeconfigEnv(target)).map(
    ([name, value]) => `${name}=${shellQuote(value)}`,
  );
  return [...assignments, command(['ctl', ...words, ...kubeconfigArgs(target), ...argv.slice(end)])].join(
    ' ',
  );
}

/** The flags that say where a run keeps its record. */
const STATE_FLAGS = new Set(['--state', '--state-store']);

/**
 * Where a run keeps its record, as words to add to a printed `ctl upgrade run` that does more of
 * the same upgrade later (a database to upgrade, an Active-Active database held back): `--state
 * <file>` made absolute when a state file was named, `--state-store configmap` when the record is
 * in the cluster (the flag, or CTL_STATE_STORE); none for the default file. Without them that run
 * keeps another record, and `ctl upgrade status` would not show it. The run's own lines and
 * `ctl upgrade status`'s `later:` lines name the record by this one rule, each from the values
 * it was given (a run's and status's `--state` and `--state-store` alike), so a CTL_STATE_STORE
 * the pasted command's shell lacks still finds the ConfigMap.
 */
export function recordStateWords(record: {
  statePath?: string | undefined;
  stateStore?: string | undefined;
}): string[] {
  return [
    ...(record.statePath ? ['--state', resolve(record.statePath)] : []),
    ...(record.stateStore === 'configmap' ? ['--state-store', 'configmap'] : []),
  ];
}

/**
 * A `ctl ... upgrade run` command ctl printed or recorded for a later run of the same upgrade,
 * with the run's record named (recordStateWords) after its words, unless it names one already. Any
 * other command (kubectl, crdb-cli) is returned as it is.
 */
export function withRunState(command: string, stateWords: readonly string[]): string {
  if (stateWords.length === 0 || recordedCommand(command, 'ctl upgrade run') === undefined) return command;
  const words = wordsOfQuotedCommand(command) ?? [];
  if (words.some((word) => STATE_FLAGS.has(word.split('=')[0] ?? word))) return command;
  return [command, ...stateWords.map(shellQuote)].join(' ');
}

/**
 * The files of KUBECONFIG that exist, absolute, as ctl reads them (src/kube/client.ts: kubectl
 * skips missing ones); none when it is unset, names none, or a path no printed command can carry
 * (the run refused those before it started).
 */
function kubeconfigOfEnv(env: NodeJS.ProcessEnv): KubeTarget {
  const files = (env.KUBECONFIG ?? '').split(delimiter).filter((file) => file !== '' && existsSync(file));
  try {
    return selectedKubeTarget(undefined, files);
  } catch {
    return {};
  }
}

/**
 * A command a state recorded (its resume command, its Next line, a held-back database's
 * command), as ctl may print it for a person to paste: only when it is one command in the form
 * ctl writes (src/io/shell-words.ts wordsOfQuotedCommand) that runs `program`. The state is read from a file that may have been handed over, or from a
 * ConfigMap that anyone who may write ConfigMaps in the namespace can edit: a recorded
 * `ctl upgrade run --to 7.8.2-6; curl ... | sh` was printed as `resume with:` and ran on paste.
 * Undefined otherwise, for the caller to say that the recorded command is not shown.
 */
export function recordedCommand(
  text: string | undefined,
  ...programs: readonly RecordedProgram[]
): string | undefined {
  if (text === undefined) return undefined;
  const words = wordsOfQuotedCommand(text);
  if (!words) return undefined;
  const start = words[0]?.startsWith('KUBECONFIG=') ? 1 : 0;
  if (words[start] !== 'ctl') return undefined;
  // The kubeconfig and context ctl names before the subcommand (src/kube/kube-target.ts
  // invocation: `ctl --kubeconfig <file> --context <name> upgrade run ...`).
  let at = start + 1;
  while (words[at] === '--kubeconfig' || words[at] === '--context') at += 2;
  const runs = (program: RecordedProgram): boolean =>
    program
      .split(' ')
      .slice(1)
      .every((word, i) => words[at + i] === word);
  return programs.some(runs) ? text : undefined;
}

/**
 * The commands a state records: a run's resume command and held-back commands run the upgrade;
 * a run that stopped in preflight records its Next line, which may be the plan of the targets
 * (src/commands/run-end.ts: a target that cannot be run at all).
 */
export type RecordedProgram = 'ctl upgrade run' | 'ctl upgrade plan';

/** What is shown instead of a recorded command that {@link recordedCommand} refuses. */
export const UNSHOWN_RECORDED_COMMAND =
  '(the command the state records is not shown: it is not one command as ctl writes it; run the same ctl upgrade run command as when the upgrade started)';

/**
 * The word a refused flag value gives way to in the command that resumes: a plain capital word, as
 * every value ctl cannot know (src/io/shell-words.ts), the plan's modules-compatible fix's too.
 * Only these flags: a refusal read back from a state names its flag, and nothing read back
 * becomes part of a command.
 */
const REFUSED_PLACEHOLDERS: Readonly<Record<string, string>> = { '--module-file': 'RHEL9_PACKAGE' };

/**
 * `resume with: <command>` (run and `ctl upgrade status` print it), as lines. When the failure
 * was a value the cluster refused (a `--module-file` that is no module package), the same command
 * would fail the same way: the value gives way to the flag's placeholder, and a second line says
 * what goes there and which value was refused. `command` is in ctl's form (recordedCommand
 * checked one read back); the refusal's own words are shown escaped, never in the command. The
 * caller escapes each line where it prints text read back (status).
 */
export function resumeLines(command: string, refused: RefusedInput | undefined): string[] {
  const placeholder = refused ? REFUSED_PLACEHOLDERS[refused.flag] : undefined;
  if (!refused || !placeholder) return [`resume with: ${command}`];
  const words = wordsOfQuotedCommand(command);
  // `KUBECONFIG=<files>` before ctl (pastedRunCommand) stays an assignment: quoted whole, it
  // would be a command named so.
  const start = words?.[0]?.startsWith('KUBECONFIG=') ? 1 : 0;
  const resumed =
    words && words[start] === 'ctl'
      ? [
          ...words
            .slice(0, start)
            .map((word) => `KUBECONFIG=${shellQuote(word.slice('KUBECONFIG='.length))}`),
          ...words
            .slice(start)
            .map((word, i, rest) =>
              word === refused.value && rest[i - 1] === refused.flag
                ? placeholder
                : word === `${refused.flag}=${refused.value}`
                  ? `${refused.flag}=${placeholder}`
                  : word,
            )
            .map(shellQuote),
        ].join(' ')
      : command;
  return [
    `resume with: ${resumed}`,
    `  ${placeholder}: ${oneLine(refused.wanted)}; the cluster refused ${refused.flag} ${oneLine(refused.value)}`,
  ];
}
