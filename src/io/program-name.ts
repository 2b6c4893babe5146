/**
 * The name a person typed to run ctl, so that help, usage lines, hints and Next lines name the
 * command as they will type it again (issue: `kubectl rec --help` said `Usage: ctl`).
 *
 * The package has two executables (package.json "bin"): `ctl`, and `kubectl-rec`, which kubectl
 * runs for `kubectl rec ...` (krew installs it under that name: deploy/krew/rec.yaml). kubectl
 * sets no variable for a plugin since its plugin mechanism of 1.12 (the alpha one's
 * KUBECTL_PLUGINS_CALLER is gone): it finds `kubectl-rec` on the PATH and execs it with its own
 * path as argv[0] and the environment unchanged (kubernetes/kubernetes,
 * staging/src/k8s.io/kubectl/pkg/cmd/execute_unix.go). So the name comes from the path the
 * script was started by, which Node keeps in process.argv[1] without resolving the symlink
 * (npm's and krew's `kubectl-rec` are symlinks to bin/ctl.js); a single executable named
 * `kubectl-rec` has its own path there too.
 */

export const CTL = 'ctl';
/** How a person types the plugin. */
export const KUBECTL_PLUGIN = 'kubectl rec';
/** The plugin's executable, the word a shell completes. */
export const KUBECTL_PLUGIN_EXECUTABLE = 'kubectl-rec';

const PLUGIN_PATH = /(^|[\\/])kubectl-rec(\.js|\.cjs|\.mjs|\.exe|\.cmd)?$/i;

/** `kubectl rec` when the script was started as the plugin's executable, else `ctl`. */
export function programNameOf(scriptPath: string | undefined): string {
  return scriptPath !== undefined && PLUGIN_PATH.test(scriptPath) ? KUBECTL_PLUGIN : CTL;
}

/** The executable a shell sees for a program name (`kubectl rec` -> `kubectl-rec`). */
export function executableOf(programName: string): string {
  return programName === KUBECTL_PLUGIN ? KUBECTL_PLUGIN_EXECUTABLE : CTL;
}

/**
 * ctl's messages name the program `ctl` (hints, Next lines, `run ctl again`); said as the
 * plugin, each mention is the plugin's. A mention is the word `ctl` on its own (after the start,
 * a space, a quote, a backtick or a parenthesis) followed by a space and a word or a flag: never
 * a path (`~/.local/state/ctl/`), a name (`ctl-upgrade-lock-rec`) or a value alone.
 */
const MENTION = /(^|[\s`'"(])ctl(?= [a-z-])/gm;

export function renameProgram(text: string, programName: string): string {
  if (programName === CTL || !text.includes('ctl ')) return text;
  return text.replace(MENTION, `$1${programName}`);
}
