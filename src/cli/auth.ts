import type { Command } from 'commander';
import { addConnectionOptions } from './connection.js';
import { declareOptions } from './declare-options.js';
import type { Runtime } from './globals.js';
import { TOKEN_OPTIONS } from './option-specs.js';

/** `ctl auth token`: a management API token on stdout, for scripts (TOKEN=$(ctl auth token)). */
export function register(program: Command, runtime: Runtime): void {
  // Commander copies exitOverride to subcommands only when they are created; main sets it on
  // the root after registration, so set it here: a bad flag must reach main (exit 2).
  const auth = program
    .command('auth')
    .description("sign in to the cluster's management API (port 9443)")
    .exitOverride()
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  TOKEN=$(ctl auth token -n redis --ca-file ca.pem)   # port-forward + Secret\n' +
        '  TOKEN=$(ctl auth token --api-url https://127.0.0.1:9443 --ca-file ca.pem)\n' +
        '  ctl auth token --ttl 600 -o json\n' +
        '\nDocs: docs/auth.md\n',
    );
  const token = auth
    .command('token')
    .exitOverride()
    .description(
      'print a management API token (JWT) on stdout, for scripts and curl (Authorization: JWT TOKEN)',
    )
    .addHelpText(
      'after',
      '\nFlags and env win; Kubernetes is asked only for what they leave out, and not\n' +
        'at all when they give the URL, the username and the password.\n' +
        'URL: --api-url or CTL_API_URL; else, in a pod, the service\n' +
        "https://<cluster>.<namespace>.svc:9443; else ctl's own port-forward, through\n" +
        "the Kubernetes API, to a ready pod's port 9443.\n" +
        'Username: --username, CTL_USERNAME, else key username of the Secret named after\n' +
        'the cluster (or by its spec.clusterCredentialSecretName).\n' +
        'Password: --password-stdin, --password-file, CTL_PASSWORD, else key password\n' +
        'of that Secret. There is no --password flag: a command line is visible to\n' +
        'every user of the machine.\n' +
        'The cluster: --cluster, else the only one in the namespace (-n, else the\n' +
        "context's), with --kubeconfig (or KUBECONFIG, or in-cluster) and --context.\n" +
        '\nExamples:\n' +
        '  TOKEN=$(ctl auth token -n redis --cluster rec --ca-file ./ca.pem)\n' +
        '  kubectl port-forward svc/rec 9443:9443 -n redis &\n' +
        '  export CTL_API_URL=https://127.0.0.1:9443 CTL_CA_FILE=./ca.pem\n' +
        '  export CTL_USERNAME=admin@example.com\n' +
        '  printf %s "$PASSWORD" | ctl auth token --password-stdin\n' +
        '  TOKEN=$(ctl auth token --ttl 600 --password-file ~/.rec-password)\n' +
        '  curl --cacert ca.pem -H "Authorization: JWT $TOKEN" "$CTL_API_URL/v1/bdbs"\n' +
        '  ctl auth token -o json   # {"access_token", "token_type", "ttl", "expires_at"}\n' +
        '\nExit codes: 0 token printed; 1 TLS, API or Kubernetes error; 2 bad flag or\n' +
        'missing input (no URL, credentials or cluster resource); 4 wrong or expired\n' +
        'credentials, or Kubernetes refused a read. Docs: docs/auth.md\n',
    );
  auth
    .command('trust')
    .exitOverride()
    .description(
      "read the management API's certificate through the Kubernetes API, print its fingerprint and pin it for this cluster",
    )
    .option('--out <file>', 'write it to this file instead of pinning it (then pass it as --ca-file)')
    .addHelpText(
      'after',
      '\nThe certificate comes from the Secret that the cluster resource names in\n' +
        "spec.certificates.apiCertificateSecretName, else from the pod's port 9443\n" +
        "through ctl's port-forward (a tunnel inside the Kubernetes API; only the TLS\n" +
        'handshake is made). Pinned, it is kept in\n' +
        '$XDG_CONFIG_HOME/ctl/trusted/<context>/<namespace>/<cluster>.pem and used for\n' +
        'this cluster whenever no --ca-file is given.\n' +
        '\nExamples:\n' +
        '  ctl auth trust -n redis\n' +
        '  ctl auth trust -n redis --cluster rec --out rec-ca.pem\n' +
        '\nDocs: docs/auth.md\n',
    )
    .action(async (options: { out?: string }, command: Command) => {
      const { createIo, readGlobalOptions } = await import('./read-globals.js');
      const globals = readGlobalOptions(command);
      const io = await createIo(globals, runtime);
      const { runAuthTrust } = await import('../commands/auth-trust.js');
      await runAuthTrust({ globals, io, env: runtime.env, out: options.out });
    });
  declareOptions(token, TOKEN_OPTIONS);
  addConnectionOptions(token);
  token.action(async (_options: unknown, command: Command) => {
    const { authTokenAction } = await import('./auth-action.js');
    await authTokenAction(command, runtime);
  });
}
