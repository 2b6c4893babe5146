import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Runtime } from './globals.js';

/** `ctl sim up` and `ctl sim scenarios` (SIMULATOR.md): the simulated cluster for tests, demos, rehearsals. */
export function register(program: Command, runtime: Runtime): void {
  const sim = program
    .command('sim')
    .description(
      'run a simulated cluster (operator, Kubernetes API, management API) for tests and rehearsals',
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  ctl sim scenarios\n' +
        '  ctl sim up --scenario happy-path --dir /tmp/sim --fast\n' +
        '\nDocs: docs/simulator.md\n',
    );

  sim
    .command('up')
    .description(
      'start a simulated cluster in the foreground until Ctrl+C; prints a "ready {json}" line when it serves',
    )
    .option(
      '--scenario <name|file>',
      'built-in scenario (ctl sim scenarios lists them) or a scenario YAML file',
      'happy-path',
    )
    .option(
      '--dir <dir>',
      'where to write kubeconfig, ca.pem, env (source it), audit.jsonl, events.jsonl',
      '.ctl-sim',
    )
    .option('--kube-port <n>', 'Kubernetes API port on 127.0.0.1 (default: a free one)')
    .option('--api-port <n>', 'management API port on 127.0.0.1 (default: a free one)')
    .option('--fast', 'no simulated waits: every operator step completes at once')
    .addHelpText(
      'after',
      '\n<dir>/env exports KUBECONFIG, CTL_API_URL, CTL_USERNAME, CTL_PASSWORD,\n' +
        'CTL_CA_FILE, CTL_BUNDLE and CTL_HELM_REPO: source it, and kubectl, helm and ctl\n' +
        'in that shell talk to the simulated cluster.\n' +
        '\nExamples:\n' +
        '  ctl sim up --scenario happy-path --dir /tmp/sim --fast &\n' +
        '  source /tmp/sim/env && kubectl get rec && ctl upgrade plan --to 7.8.2-6\n' +
        '  ctl sim up --scenario module-without-rhel9 --dir /tmp/sim   # realistic waits\n' +
        '  ctl sim up --scenario ./my-scenario.yaml --kube-port 6443 --api-port 9443\n',
    )
    .action(async (_options: unknown, command: Command) => {
      const { createIo, readGlobalOptions } = await import('./read-globals.js');
      const io = await createIo(readGlobalOptions(command), runtime);
      const options = command.opts() as {
        scenario: string;
        dir: string;
        kubePort?: string;
        apiPort?: string;
        fast?: boolean;
      };
      const kubePort = parsePort(options.kubePort, '--kube-port');
      const apiPort = parsePort(options.apiPort, '--api-port');
      const { runSimUp } = await import('../sim/up.js');
      await runSimUp(
        { scenario: options.scenario, dir: options.dir, kubePort, apiPort, fast: options.fast === true },
        { io, cwd: process.cwd() },
      );
    });

  sim
    .command('scenarios')
    .description('list the built-in scenarios, each with what it rehearses')
    .addHelpText(
      'after',
      '\nExamples:\n  ctl sim scenarios\n  ctl sim up --scenario license-invalid --fast\n',
    )
    .action(async (_options: unknown, command: Command) => {
      const { createIo, readGlobalOptions } = await import('./read-globals.js');
      const io = await createIo(readGlobalOptions(command), runtime);
      const { printScenarios } = await import('../sim/up.js');
      printScenarios(io);
    });
}

function parsePort(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) {
    throw new UsageError(`${flag} must be a port number from 1 to 65535, not "${value}"`, {
      hint: `Omit ${flag} to use a free port.`,
    });
  }
  return port;
}

/** The built-in scenarios' names, for shell completion of `--scenario`. */
export async function builtInScenarioNames(): Promise<string[]> {
  const { listScenarios } = await import('../sim/scenario.js');
  return listScenarios().map((scenario) => scenario.name);
}
