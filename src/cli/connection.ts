import { type Command, Option } from 'commander';

/**
 * The management API connection flags of CLI.md, shared by `ctl auth` and `ctl upgrade`.
 * There is deliberately no --password: argv is visible to every user of the machine. Reading
 * them is in read-connection.ts, which only an action loads.
 */
export function addConnectionOptions(command: Command): Command {
  return command
    .option(
      '--api-url <url>',
      'management API URL, e.g. https://127.0.0.1:9443 (env CTL_API_URL; default: found through Kubernetes)',
    )
    .option('--username <name>', "management API user (env CTL_USERNAME; default: the cluster's Secret)")
    .option(
      '--password-stdin',
      "read the password from stdin (or env CTL_PASSWORD; default: the cluster's Secret)",
    )
    .option('--password-file <path>', 'read the password from a file (mode 0600)')
    .option('--ca-file <path>', 'PEM bundle to trust for the API certificate (env CTL_CA_FILE)')
    .option('--insecure', 'do not verify the API certificate (env CTL_INSECURE=1); warns every time')
    .addOption(
      new Option('--auth-form <form>', 'authorize with the Basic header (7.8.2+), the body (older), or auto')
        .choices(['auto', 'header', 'body'])
        .default('auto'),
    );
}
