import type { Command } from 'commander';
import { OperationError, UsageError } from '../errors.js';
import { addConnectionOptions } from './connection.js';
import type { Runtime } from './globals.js';

/** `ctl sim up`, `ctl sim scenarios` and `ctl sim capture` (SIMULATOR.md): the simulated cluster for tests, demos, rehearsals. */
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
        '  ctl sim up --scenario happy-path --fast       # files in ./.ctl-sim\n' +
        '  ctl sim capture -n redis --out my-cluster.yaml   # a copy of your cluster\n' +
        '  ctl sim up --scenario my-cluster.yaml             # to rehearse on\n' +
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
        '  ctl sim up --scenario happy-path --fast &\n' +
        // No kubectl in the chain: ctl needs none, and a missing one would stop the && before ctl.
        '  source .ctl-sim/env && ctl upgrade plan --to 8.2.0-18   # then kill %1\n' +
        '  ctl sim up --scenario module-without-rhel9 --dir ./rehearsal  # real waits\n' +
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
      // A scenario file is bounded and regular like every file ctl is given (src/io/paths.ts):
      // checked before --dir is made, then read whole through ctl's bounded reader.
      const { checkFilePath, INPUT_FILE_LIMITS, readInputFileSync } = await import('../io/paths.js');
      checkFilePath('--scenario', options.scenario, 'input', INPUT_FILE_LIMITS.scenario);
      // Made here, bounded (src/io/make-directories.ts): the simulator's own recursive mkdir would
      // never return for a folder under procfs.
      // (A relative --dir is taken from the working folder, as the simulator takes it.)
      const { makeDirectories } = await import('../io/make-directories.js');
      await makeDirectories(options.dir, 0o700).catch((error: unknown) => {
        throw new OperationError(`cannot create --dir ${options.dir}: ${(error as Error).message}`, {
          hint: 'Pass --dir a folder you can create and write.',
        });
      });
      const { runSimUp } = await import('../sim/up.js');
      await simErrorsAsCtl(() =>
        runSimUp(
          { scenario: options.scenario, dir: options.dir, kubePort, apiPort, fast: options.fast === true },
          {
            io,
            cwd: process.cwd(),
            readScenarioFile: (file) => readInputFileSync('--scenario', file, INPUT_FILE_LIMITS.scenario),
          },
        ),
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
      await simErrorsAsCtl(async () => printScenarios(io));
    });

  registerCapture(sim, runtime);
}

function registerCapture(sim: Command, runtime: Runtime): void {
  const capture = sim
    .command('capture')
    .description(
      'read a live cluster (read-only) and write a scenario that ctl sim up runs: rehearse on a copy of it',
    )
    .option('--out <file>', 'write the scenario YAML to this file (default: stdout)')
    .option('--anonymize', 'replace the names of namespaces, the cluster, databases and the helm release');
  addConnectionOptions(capture).addHelpText(
    'after',
    '\nReads (GET and LIST only) the cluster resource, its databases, the operator and\n' +
      'how it was installed (bundle, helm, OLM Subscription), the admission webhook,\n' +
      'OpenShift SCCs, and the modules, databases and nodes through the management API\n' +
      '(reached as ctl upgrade plan reaches it). Names and versions are kept\n' +
      '(--anonymize replaces the names). No password, token, licence key or\n' +
      'certificate is written: the simulator makes a new random password and a\n' +
      'placeholder licence with the captured state.\n' +
      "Timing, faults and operator behaviour knobs stay at the simulator's defaults.\n" +
      'Without --out the YAML goes to stdout (-o json: the same scenario as JSON).\n' +
      'Global options (--kubeconfig, --context, -n, --cluster): ctl --help\n' +
      '\nExamples:\n' +
      '  ctl sim capture -n redis > my-cluster.yaml\n' +
      '  ctl sim capture -n redis --cluster rec --anonymize --out copy.yaml\n' +
      '  ctl sim up --scenario copy.yaml --fast\n' +
      '\nExit codes: 0 captured, 1 a cluster the scenario format cannot express,\n' +
      '2 no (or no single) cluster resource, 4 access refused.\n' +
      'Docs: docs/simulator.md ("Capture a live cluster")\n',
  );
  capture.action(async (_options: unknown, command: Command) => {
    const { createIo, readGlobalOptions } = await import('./read-globals.js');
    const { readConnectionFlags } = await import('./read-connection.js');
    const { checkFilePath } = await import('../io/paths.js');
    const globals = readGlobalOptions(command);
    const io = await createIo(globals, runtime);
    const options = command.opts() as { out?: string; anonymize?: boolean };
    checkFilePath('--out', options.out, 'output');
    const connection = readConnectionFlags(command, runtime.env);
    const { runCaptureCommand } = await import('../commands/capture.js');
    await runCaptureCommand({
      globals,
      connection,
      io,
      env: runtime.env,
      stdin: runtime.stdin,
      out: options.out,
      anonymize: options.anonymize === true,
    });
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

/** Runs simulator work, its errors turned into ctl's (src/commands/demo.ts asCtlError). */
async function simErrorsAsCtl(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const { asCtlError } = await import('../commands/demo.js');
    throw await asCtlError(error);
  }
}

/** The built-in scenarios' names, for shell completion of `--scenario`. */
export async function builtInScenarioNames(): Promise<string[]> {
  const { listScenarios } = await import('../sim/scenario.js');
  return listScenarios().map((scenario) => scenario.name);
}
