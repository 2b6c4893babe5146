import { Argument, type Command } from 'commander';
import type { Shell } from '../completion/scripts.js';
import { CTL, executableOf } from '../io/program-name.js';
import type { Runtime } from './globals.js';
import { builtInScenarioNames } from './sim.js';

const SHELLS = ['bash', 'zsh', 'fish', 'powershell'];

/**
 * `ctl completion <bash|zsh|fish|powershell>`: a completion script on stdout, generated from this very
 * command tree (subcommands, long options, their values), so it never drifts from the CLI.
 */
export function register(program: Command, runtime: Runtime): void {
  program
    .command('completion')
    .description('print a shell completion script: bash, zsh, fish or powershell')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      '\nLoad it in this shell:\n' +
        '  bash  source <(ctl completion bash)\n' +
        '  zsh   source <(ctl completion zsh)\n' +
        '  fish  ctl completion fish | source\n' +
        '  pwsh  ctl completion powershell | Out-String | Invoke-Expression\n' +
        '\nOr save it for every new shell (bash: in the folder bash-completion reads):\n' +
        '  bash  mkdir -p ~/.local/share/bash-completion/completions\n' +
        '        ctl completion bash > ~/.local/share/bash-completion/completions/ctl\n' +
        '  zsh   ctl completion zsh > "${fpath[1]}/_ctl"   # after compinit\n' +
        '  fish  mkdir -p ~/.config/fish/completions\n' +
        '        ctl completion fish > ~/.config/fish/completions/ctl.fish\n' +
        '  pwsh  ctl completion powershell >> $PROFILE\n' +
        '\nDocs: docs/install.md#shell-completion\n',
    )
    .action(async (shell: string, _options: unknown, command: Command) => {
      let root = command;
      while (root.parent) root = root.parent;
      const [{ completionTree }, { completionScript }, { STEP_IDS }, { CHECK_IDS }, catalog] =
        await Promise.all([
          import('../completion/tree.js'),
          import('../completion/scripts.js'),
          import('../steps/index.js'),
          import('../planning/checks/index.js'),
          import('../release/catalog.js'),
        ]);
      // Values commander does not know as `choices` (they are checked where they are used).
      const known = {
        '--output': ['text', 'json', 'yaml', 'name'],
        '--only': STEP_IDS,
        '--skip': STEP_IDS,
        '--ignore-check': CHECK_IDS,
        '--scenario': await builtInScenarioNames(),
        // The release catalog's operator versions, newest first (the script holds this ctl's catalog).
        '--to': [...catalog.knownOperatorVersions()].reverse(),
        // Asked when completing: the contexts of the kubeconfig kubectl would read.
        '--context': { command: 'contexts' as const },
      };
      const tree = completionTree(root, known, executableOf(runtime.programName ?? CTL));
      runtime.stdout.write(completionScript(shell as Shell, tree));
    });
}
