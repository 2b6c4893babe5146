/**
 * The kubeconfig and context the person chose for ctl, as every command ctl prints for them to
 * paste (kubectl, oc, helm: src/planning/equivalent-commands.ts) and the helm ctl runs
 * (src/exec/helm.ts) must name them: a pasted command acts on the cluster ctl read, not on
 * whatever the default kubeconfig's current context is by then.
 *
 * What is named is what was chosen, no more (docs/upgrade-plan.md, "The commands name your
 * cluster"):
 * - `--context <name>` when `--context` was given. Without it ctl used the kubeconfig's current
 *   context, and so does the pasted command: it names the same kubeconfig, whose current context
 *   kubectl reads exactly as ctl did (the first file of KUBECONFIG to set one, as kubectl merges).
 * - `--kubeconfig <file>` for `--kubeconfig`, or for KUBECONFIG when it names one file that
 *   exists (kubectl skips missing ones, as ctl does).
 * - `KUBECONFIG=<files> kubectl ...` when KUBECONFIG names several files that exist: kubectl's
 *   and helm's `--kubeconfig` take one file only, and only the variable makes them merge the same
 *   files the same way ctl did.
 * - nothing for `~/.kube/config` or the in-cluster config: that is where kubectl looks anyway.
 * Paths are made absolute, so the command works from any folder.
 */

import { delimiter, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { hasUnsafeChar, oneLine } from '../io/safe-text.js';
import { shellQuote, shellWords } from '../io/shell-words.js';

export interface KubeTarget {
  /** `--context` as given; unset when ctl used the kubeconfig's current context. */
  readonly context?: string | undefined;
  /**
   * The kubeconfig files chosen (`--kubeconfig`, else those of KUBECONFIG that exist), absolute;
   * unset when ctl read `~/.kube/config` or the in-cluster config.
   */
  readonly kubeconfigs?: readonly string[] | undefined;
}

/** The default: ctl used the default kubeconfig's current context; commands name nothing. */
export const DEFAULT_KUBE_TARGET: KubeTarget = {};

/**
 * The KubeTarget of a loaded kubeconfig: `context` as given, `files` as read (empty for the
 * default kubeconfig or in-cluster).
 *
 * A context name or path holding a line break or another control character is refused (exit 2),
 * not quoted: in a printed command a newline, even inside quotes, splits the line a person copies
 * (the half they paste waits for a closing quote), and ctl's text output shows such characters
 * escaped (src/io/safe-text.ts), so the shown command would name another context. No kubectl user
 * has such a name; one who does gets told how to rename it. Every other character is quoted
 * (shellQuote): a name never becomes code.
 */
export function selectedKubeTarget(context: string | undefined, files: readonly string[]): KubeTarget {
  if (context !== undefined && hasUnsafeChar(context)) {
    throw new UsageError(
      `--context ${oneLine(context)}: the name holds a line break or a control character, which the commands ctl prints for you to paste cannot carry on one line`,
      {
        hint: 'Rename the context (kubectl config rename-context CONTEXT_NAME NEW_NAME) and pass the new name.',
      },
    );
  }
  const kubeconfigs = files.map((file) => resolve(file));
  const unsafe = kubeconfigs.find((file) => hasUnsafeChar(file));
  if (unsafe !== undefined) {
    throw new UsageError(
      `the kubeconfig ${oneLine(unsafe)}: its path holds a line break or a control character, which the commands ctl prints for you to paste cannot carry on one line`,
      { hint: 'Move the kubeconfig to a path without one and pass that path.' },
    );
  }
  return {
    ...(context ? { context } : {}),
    ...(kubeconfigs.length > 0 ? { kubeconfigs } : {}),
  };
}

/** `--kubeconfig <file>` when one file was chosen (kubectl, oc and helm spell it alike). */
export function kubeconfigArgs(target: KubeTarget): string[] {
  const files = target.kubeconfigs ?? [];
  return files.length === 1 ? ['--kubeconfig', files[0] as string] : [];
}

/** `KUBECONFIG` when several files were chosen: the one way kubectl and helm merge several. */
export function kubeconfigEnv(target: KubeTarget): Record<string, string> {
  const files = target.kubeconfigs ?? [];
  return files.length > 1 ? { KUBECONFIG: files.join(delimiter) } : {};
}

/** kubectl's and oc's flags for the target: `--kubeconfig <file> --context <name>`. */
export function kubectlTargetArgs(target: KubeTarget): string[] {
  return [...kubeconfigArgs(target), ...(target.context ? ['--context', target.context] : [])];
}

/** helm's spelling of the same: `--kubeconfig <file> --kube-context <name>`. */
export function helmTargetArgs(target: KubeTarget): string[] {
  return [...kubeconfigArgs(target), ...(target.context ? ['--kube-context', target.context] : [])];
}

/**
 * The binary and the target's words before the subcommand: `[KUBECONFIG=<a>:<b>] kubectl
 * [--kubeconfig <file>] [--context <name>]`. Before the subcommand, so that no `--` of the
 * command's own (`kubectl exec ... -- rladmin`) can swallow them; each value shell-quoted.
 */
export function invocation(binary: 'kubectl' | 'oc' | 'helm' | 'ctl', target: KubeTarget): string {
  const env = Object.entries(kubeconfigEnv(target)).map(([name, value]) => `${name}=${shellQuote(value)}`);
  const flags = binary === 'helm' ? helmTargetArgs(target) : kubectlTargetArgs(target);
  return [...env, binary, ...flags.map(shellQuote)].join(' ');
}

/**
 * `<binary> <words>` for the target, each word quoted (a placeholder is a plain capital word,
 * src/io/shell-words.ts): the one builder of the commands ctl prints
 * (src/planning/equivalent-commands.ts names them by binary).
 */
export function commandFor(
  binary: 'kubectl' | 'oc' | 'helm' | 'ctl',
  target: KubeTarget,
  ...words: string[]
): string {
  return [invocation(binary, target), ...words.map(shellQuote)].join(' ');
}

/** `kubectl <words>` for the target: for the hints of the access layer. */
export function kubectlCommand(target: KubeTarget, ...words: string[]): string {
  return commandFor('kubectl', target, ...words);
}

const BINARIES = new Set(['kubectl', 'oc', 'helm', 'ctl']);

/**
 * A command ctl printed in an earlier run and recorded in the run's state (the work an
 * Active-Active database leaves, src/run/work-left.ts), naming `target` instead of the
 * kubeconfig it named then: a run resumed or repeated through another path to the same cluster
 * (a CI job on another machine, `ctl upgrade run --plan <file>` there) prints commands for its
 * own kubeconfig, not one that exists only where the first run ran. The context the command
 * named stays when `target` names none: the run's state belongs to that context.
 *
 * Only a command this module built is rewritten: rebuilt with the target it named, it must read
 * exactly as recorded; anything else (a pipe, a substitution, another program) is kept as it is.
 */
export function retargeted(command: string, target: KubeTarget): string {
  const words = shellWords(command);
  let at = 0;
  let kubeconfigs: string[] | undefined;
  if (words[0]?.startsWith('KUBECONFIG=')) {
    kubeconfigs = words[0].slice('KUBECONFIG='.length).split(delimiter);
    at = 1;
  }
  const binary = words[at];
  if (binary === undefined || !BINARIES.has(binary)) return command;
  const contextFlag = binary === 'helm' ? '--kube-context' : '--context';
  let context: string | undefined;
  at += 1;
  for (;;) {
    const value = words[at + 1];
    if (words[at] === '--kubeconfig' && value !== undefined && kubeconfigs === undefined)
      kubeconfigs = [value];
    else if (words[at] === contextFlag && value !== undefined && context === undefined) context = value;
    else break;
    at += 2;
  }
  const rest = words.slice(at);
  const named = binary as 'kubectl' | 'oc' | 'helm' | 'ctl';
  if (commandFor(named, { context, kubeconfigs }, ...rest) !== command) return command;
  return commandFor(named, { context: target.context ?? context, kubeconfigs: target.kubeconfigs }, ...rest);
}
