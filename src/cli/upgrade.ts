import { type Command, Option } from 'commander';
import { addConnectionOptions } from './connection.js';
import type { Runtime } from './globals.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The actions, loaded when one runs: declaring the commands (all `--help` needs) stays light. */
const actions = () => import('./upgrade-actions.js');

/** Plan options of CLI.md, shared by `plan` and `run`. */
function addPlanOptions(command: Command): Command {
  return addConnectionOptions(
    command
      .option(
        '--to <operator-version>',
        'target operator version, e.g. 8.2.0-18 (plan without it lists the targets; run requires it)',
      )
      .option(
        '--cluster-version <tag>',
        'cluster image tag (default: the one the release catalog lists for --to)',
      )
      .option(
        '--db-version <x.y>',
        "target database version x.y, or major or latest (default: the target release's default database version, within each database policy; latest: the newest)",
      )
      .addOption(
        new Option(
          '--method <method>',
          "how to upgrade the operator; auto: olm when a ClusterServiceVersion owns the operator (its Subscription's channel and InstallPlan), helm when the operator Deployment has helm labels, else the bundle (default: auto)",
        ).choices(['auto', 'helm', 'bundle', 'olm']),
      )
      .option(
        '--bundle <file|url>',
        'operator bundle file or URL, {version} replaced by --to; the files next to it are used too (env CTL_BUNDLE; default: the upstream release)',
      )
      .option(
        '--helm-release <name>',
        "helm release of the operator (default: from the Deployment's helm labels)",
      )
      .option('--helm-chart <ref>', 'helm chart reference (default: redis/redis-enterprise-operator)')
      .option(
        '--helm-repo <url>',
        'helm chart repository URL (env CTL_HELM_REPO; default: https://helm.redis.io for the default chart)',
      )
      .option(
        '--catalog <file|url>',
        'a release catalog (JSON or YAML, docs/catalog.schema.json) added to the built-in one: releases newer than ctl, their images, platforms, advisories (env CTL_CATALOG)',
      )
      .option(
        '--allow-http',
        'let ctl download --catalog, --bundle and the helm index over plain http from another machine (env CTL_ALLOW_HTTP=1); https to http redirects are never followed',
      )
      .option(
        '--user-defined-modules <file>',
        "custom modules to list in the cluster resource's spec.userDefinedModules, set with the new versionTag by the cluster step (targets from 8.0.6-8): a YAML or JSON list of {name, source: {https: {url, credentialsSecret}}}",
      )
      .option(
        '--databases <all|none|names>',
        'databases to upgrade: all, none, or a list such as cache,other-ns/orders',
        'all',
      )
      .option(
        '--ignore-check <id>',
        'turn this failing check into a warning, recorded in the plan (repeatable); a failure the run cannot get past (a downgrade, a release that is not there) stays one',
        collect,
      )
      .option(
        '--max-hops <n>',
        'most upgrades in a row to reach --to when one supported hop cannot (each a full upgrade), 1 to 5',
        '3',
      ),
  );
}

/** `--state-store`; the value is checked by parseStateStoreKind so CTL_STATE_STORE gets the same message. */
function stateStoreOption(): Option {
  return new Option(
    '--state-store <file|configmap>',
    'where the state and lock live: a local file, or a ConfigMap and a Lease in the cluster (env CTL_STATE_STORE)',
  );
}

/** `a, b, c` wrapped at 78 columns, each line indented by two spaces. */
function wrapIds(ids: readonly string[]): string {
  const lines: string[] = [];
  let line = '';
  for (const [i, id] of ids.entries()) {
    const word = i < ids.length - 1 ? `${id},` : id;
    if (line && line.length + 1 + word.length > 76) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => `  ${l}\n`).join('');
}

/** The check and step ids, from the program's lists (help-lists.ts); absent when no help was asked for. */
export interface IdLists {
  checks: readonly string[];
  steps: readonly string[];
}

export function register(program: Command, runtime: Runtime, lists?: IdLists, only?: string): void {
  const checkIds = lists ? wrapIds(lists.checks) : '  (ctl upgrade plan --help lists them)\n';
  const stepIds = lists ? wrapIds(lists.steps) : '  (ctl upgrade steps lists them)\n';
  const upgrade = program
    .command('upgrade')
    .description('plan and run an upgrade of the operator, the cluster and the databases')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  ctl upgrade plan --to 8.2.0-18\n' +
        '  ctl upgrade run --to 8.2.0-18\n' +
        '  ctl upgrade status\n' +
        '\nDocs: docs/upgrade.md, docs/troubleshooting.md\n',
    );

  // Only the subcommand the arguments name, when they name one (src/cli/invoked-branch.ts): the
  // others' declarations are work a run never uses. Unknown words get the whole group, so
  // commander's errors and suggestions see every subcommand.
  const subcommands: Record<string, () => void> = {
    plan: () => {
      const plan = addPlanOptions(
        upgrade
          .command('plan')
          .description(
            'read the cluster, check every prerequisite and show the upgrade (without --to: the targets); changes nothing',
          ),
      )
        .option('--out <plan.json>', 'also save the plan as JSON, for review and for run --plan')
        .option(
          '--helm-bin <path>',
          'the helm binary the run will call, for the helm-available check (env CTL_HELM; default: helm on the PATH)',
        )
        .addOption(
          new Option(
            '--state-store <file|configmap>',
            'the store the run will use: configmap adds its ConfigMap and Lease to the permissions check (env CTL_STATE_STORE)',
          ),
        )
        .option(
          '--remediate',
          'judge the run with --remediate: the api-permissions check asks whether the management API user may make its changes',
        )
        .option(
          '--module-file <path>',
          'a module package the run with --remediate will upload (repeatable; the plan only counts them)',
          collect,
        )
        .addHelpText(
          'after',
          '\nChecks (each passes, warns or fails with its fix; --ignore-check <id> turns\n' +
            'a failure into a warning, where the run can get past it):\n' +
            checkIds +
            '\nThe management API: --api-url, else https://<cluster>.<namespace>.svc:9443\n' +
            'in a pod, else an automatic port-forward to a ready pod. Credentials default\n' +
            'to the Secret named after the cluster.\n' +
            'Global options (--kubeconfig, --context, -n, --cluster, -o, -v, -q): ctl --help\n' +
            '\nWithout --to: every reachable target (the newest build of each release line\n' +
            'in the catalog), the recommended one first, each with its hops and the checks\n' +
            'that would block it; exit 0. With --to a release one supported upgrade cannot\n' +
            'reach, the plan shows every hop (at most --max-hops); run runs them in order.\n' +
            '\nExamples:\n' +
            '  ctl upgrade plan\n' +
            '  ctl upgrade plan -o json | jq -r .recommended\n' +
            '  ctl upgrade plan --to 8.2.0-18\n' +
            '  ctl upgrade plan --to 8.2.0-18 -n redis --cluster rec --out plan.json\n' +
            '  ctl upgrade plan --to 8.2.0-18 --method helm --helm-release redis-enterprise\n' +
            '  ctl upgrade plan --to 8.2.0-18 --databases none --ca-file ca.pem\n' +
            '  ctl upgrade plan --to 8.2.0-18 -o json |\n' +
            '    jq \'.checks[] | select(.status != "pass")\'\n' +
            '\nExit codes: 0 the upgrade may start, 1 the management API or Kubernetes could\n' +
            'not be reached (or TLS failed), 2 a bad flag, 3 a check failed (nothing was\n' +
            'changed), 4 the credentials or permissions were refused.\n' +
            'Docs: docs/upgrade-plan.md, docs/checks.md\n',
        );
      plan.action(async (_o: unknown, command: Command) => (await actions()).planAction(command, runtime));
    },
    run: () => {
      const run = addPlanOptions(
        upgrade
          .command('run')
          .description('confirm, then run the seven steps, saving each; the same command again resumes'),
      )
        .option(
          '--plan <plan.json>',
          'run a saved plan (its target, selection and ignored checks; plan flags cannot be added); exit 7 if the cluster changed since, other than by the run the plan started (the same command resumes that run)',
        )
        .option(
          '--state <file>',
          'state file (default: <context>/<namespace>/<cluster>.json in $XDG_STATE_HOME/ctl)',
        )
        .option('--yes', 'do not ask for confirmation (required when stdin is not a terminal)')
        .addOption(
          new Option(
            '--dry-run [mode]',
            'read everything and print each change instead of making it (no prompt, no lock, no state); server: also send each Kubernetes write with dryRun=All and helm upgrade --dry-run=server, and list what the API server refused (the management API has no dry run)',
          ).choices(['client', 'server', 'none']),
        )
        .option('--only <step>', 'run only this step (repeatable; ids: ctl upgrade steps)', collect)
        .option('--skip <step>', 'skip this step (repeatable)', collect)
        .option(
          '--timeout <duration>',
          'limit for the whole run; then the state is saved and ctl exits 6',
          '60m',
        )
        .option(
          '--stall-timeout <duration>',
          'longest a wait may see no progress; durations like 90s, 15m, 1h',
          '10m',
        )
        .option(
          '--max-unavailable <duration>',
          'longest outage any database may have, as measured through the management API; past it the run stops at the next safe point with exit 8 (state saved, resumable). Without it outages are measured and reported only',
        )
        .option(
          '--remediate',
          'fix a frozen upgrade (a module without a RHEL9 build, a database below 7.2) through the management API',
        )
        .option(
          '--module-file <path>',
          'RHEL9 module package to upload when remediating (repeatable; a regular file of at most 256 MiB)',
          collect,
        )
        .option('--max-parallel <n>', 'databases upgraded at once, 1 to 50', '1')
        .option(
          '--keep-scc',
          'OpenShift: keep the SCC redis-enterprise-scc-v2 (else removed for 7.22.0-6+ targets)',
        )
        .option('--helm-bin <path>', 'helm binary (env CTL_HELM; default: helm on the PATH)')
        .addOption(stateStoreOption())
        .option(
          '--lease-duration <duration>',
          'how long the cluster Lease (the lock every run takes) outlives its last renewal',
          '30s',
        )
        .option(
          '--report <file>',
          'write a JSON report of the run (plan, steps, result, error), however it ends',
        )
        .option(
          '--fleet <file>',
          'upgrade every cluster listed in this YAML file: - {context, namespace, cluster, kubeconfig, caFile} (docs/fleet.md)',
        )
        .option(
          '--max-parallel-clusters <n>',
          'with several --context or --fleet: clusters upgraded at once',
          '1',
        )
        .addHelpText(
          'after',
          '\nSteps, in order (ctl upgrade steps):\n' +
            stepIds +
            'Each is saved in the state file as it runs: after any failure or interruption,\n' +
            'run the same command again to resume at the first step not done (the error\n' +
            'ends with that command).\n' +
            'When --to needs several upgrades in a row (the plan shows the hops, at most\n' +
            '--max-hops), each hop runs the seven steps; the cluster is read again and\n' +
            'checked before each hop, and one state file records the hops. A hop that\n' +
            '--only/--skip leaves unfinished ends the run; its Next line runs the rest.\n' +
            'After the steps (not with --dry-run), the management API is asked whether every\n' +
            'node runs the target RS and every database is active at its target version: the\n' +
            'answer is shown under the summary and in --report (verification).\n' +
            'Global options (--kubeconfig, --context, -n, --cluster, -o, -v, -q): ctl --help\n' +
            '\nExamples:\n' +
            '  ctl upgrade run --to 8.2.0-18\n' +
            '  ctl upgrade run --to 8.2.0-18 --dry-run\n' +
            '  ctl upgrade run --to 8.2.0-18 --dry-run=server   # the API server judges it\n' +
            '  ctl upgrade run --to 8.2.0-18 --yes -o json   # CI: NDJSON events on stdout\n' +
            '  ctl upgrade run --plan plan.json --yes\n' +
            '  ctl upgrade run --to 7.22.2-45 --yes --remediate \\\n' +
            '    --module-file ./rejson.Linux-rhel9-x86_64.2.6.10.zip\n' +
            '  ctl upgrade run --to 8.2.0-18 --user-defined-modules ./modules.yaml\n' +
            '  ctl upgrade run --to 8.2.0-18 --yes --state-store configmap --report r.json\n' +
            '  ctl upgrade run --to 8.2.0-18 --yes --context eu --context us \\\n' +
            '    --max-parallel-clusters 2\n' +
            '\nExit codes: 0 done, 1 a step failed (or the cluster does not show what the\n' +
            'steps did), 2 usage, 3 a check failed (nothing was changed), 4 auth, 5 locked,\n' +
            '6 timed out or stalled, 7 stale --plan, 8 a database down longer than\n' +
            '--max-unavailable (state saved), 130/143 interrupted (state saved), 141 its\n' +
            'output pipe closed (state saved).\n' +
            'Docs: docs/upgrade-run.md, docs/troubleshooting.md\n',
        );
      run.action(async (_o: unknown, command: Command) => (await actions()).runAction(command, runtime));
    },
    status: () => {
      upgrade
        .command('status')
        .description('show the last run of this cluster: each step, the last error, the command that resumes')
        .option('--state <file>', 'state file (default: the one for the context, namespace and cluster)')
        .addHelpText(
          'after',
          '\nIt reads the state and its lock, and the cluster resource the state names, to\n' +
            "say whether the state is this cluster's (its uid); it writes nothing. With no\n" +
            'cluster reachable (15 s at most) it shows the state and says it could not check.\n' +
            '\nExamples:\n' +
            '  ctl upgrade status\n' +
            '  ctl upgrade status -n redis --cluster rec -o json\n' +
            '  ctl upgrade status --state ./rec-state.json\n',
        )
        .addOption(stateStoreOption())
        .action(async (_o: unknown, command: Command) => (await actions()).statusAction(command, runtime));
    },
    steps: () => {
      upgrade
        .command('steps')
        .description('list the steps in the order they run')
        .addHelpText('after', '\nExamples:\n  ctl upgrade steps\n  ctl upgrade steps -o json\n')
        .action(async (_o: unknown, command: Command) => (await actions()).stepsAction(command, runtime));
    },
    unlock: () => {
      upgrade
        .command('unlock')
        .description("remove this cluster's upgrade lock when its owner is gone")
        .option('--state <file>', 'state file whose lock to remove')
        .option('--lock-id <id>', 'the id of the lock (from the error or ctl upgrade status)')
        .option('--force', 'remove it even if its owner may still be alive (another host, or a live process)')
        .addHelpText(
          'after',
          '\nA lock whose process is gone on this machine is taken over by the next run\n' +
            'anyway; unlock is for a run that died on another host, or a lock you know is\n' +
            'abandoned. Removing a lock keeps the state.\n' +
            '\nExamples:\n' +
            '  ctl upgrade unlock --lock-id 3e7671e7-af53-407c-a722-4ba74a626be2\n' +
            '  ctl upgrade unlock --lock-id LOCK_ID --force   # owner on another host, gone\n',
        )
        .addOption(stateStoreOption())
        .action(async (_o: unknown, command: Command) => (await actions()).unlockAction(command, runtime));
    },
  };
  const chosen = only !== undefined && Object.hasOwn(subcommands, only) ? [only] : Object.keys(subcommands);
  for (const name of chosen) subcommands[name]?.();
}
