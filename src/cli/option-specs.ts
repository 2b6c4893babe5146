// The options `ctl auth token` reads, as data: the command tree declares them with commander
// from these lists (globals.ts, connection.ts, auth.ts), and the token's own entry reads its
// arguments with them (token-args.ts) without loading commander. One set of declarations for
// both; this module imports nothing, so either side can load it.

/** One option, in commander's terms. */
export interface OptionSpec {
  /** commander's flags: '-n, --namespace <ns>', '--insecure', '--no-color'. */
  flags: string;
  description: string;
  /** The value when the option is not given. */
  default?: string | number;
  /** The only values the option accepts. */
  choices?: readonly string[];
  /** Repeated: 'collect' gathers the values in a list, 'count' counts the switch. */
  repeat?: 'collect' | 'count';
}

/** The global options of CLI.md, declared on the root command (globals.ts). */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { flags: '--kubeconfig <path>', description: 'kubeconfig file (env KUBECONFIG)' },
  {
    flags: '--context <name>',
    description: 'kubeconfig context (ctl upgrade run: repeatable, one per cluster)',
    repeat: 'collect',
  },
  {
    flags: '-n, --namespace <ns>',
    description: "namespace of the cluster resource (default: the context's namespace)",
  },
  {
    flags: '--cluster <name>',
    description: 'cluster resource name (default: the only one in the namespace)',
  },
  {
    flags: '-o, --output <format>',
    description:
      "text for people, json or yaml for machines (yaml: the same data as json); name, or jsonpath='{.field}' as kubectl takes them",
    default: 'text',
  },
  { flags: '--no-color', description: 'no colour (env NO_COLOR)' },
  {
    flags: '-v, --verbose',
    description:
      "repeatable: -v shows each API call, -vv bodies (redacted); kubectl's -v=N also works (6: -v, 8: -vv)",
    repeat: 'count',
    default: 0,
  },
  { flags: '-q, --quiet', description: 'only errors' },
];

/**
 * The management API connection flags of CLI.md, shared by `ctl auth` and `ctl upgrade`
 * (connection.ts). There is deliberately no --password: argv is visible to every user of the
 * machine.
 */
export const CONNECTION_OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--api-url <url>',
    description:
      'management API URL, e.g. https://127.0.0.1:9443 (env CTL_API_URL; default: found through Kubernetes)',
  },
  {
    flags: '--username <name>',
    description: "management API user (env CTL_USERNAME; default: the cluster's Secret)",
  },
  {
    flags: '--password-stdin',
    description: "read the password from stdin (or env CTL_PASSWORD; default: the cluster's Secret)",
  },
  { flags: '--password-file <path>', description: 'read the password from a file (mode 0600)' },
  { flags: '--ca-file <path>', description: 'PEM bundle to trust for the API certificate (env CTL_CA_FILE)' },
  {
    flags: '--insecure',
    description: 'do not verify the API certificate (env CTL_INSECURE=1); warns every time',
  },
  {
    flags: '--auth-form <form>',
    description: 'authorize with the Basic header (7.8.2+), the body (older), or auto',
    choices: ['auto', 'header', 'body'],
    default: 'auto',
  },
];

/** `ctl auth token`'s own options, before the connection flags (auth.ts). */
export const TOKEN_OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--ttl <seconds>',
    description: 'token lifetime: seconds from 1 to 86400, or a duration such as 10m or 1h (default: 300)',
  },
];
