import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  server: string;
  caPem: string;
  token: string;
  namespace?: string;
  contextName?: string;
  userName?: string;
}

/** A kubeconfig with one context: the emulator's CA and a bearer-token user (never a prompt). */
export function kubeconfigYaml(options: KubeconfigOptions): string {
  const name = options.contextName ?? 'ctl-sim';
  const user = options.userName ?? `${name}-admin`;
  const context: Record<string, string> = { cluster: name, user };
  if (options.namespace) context.namespace = options.namespace;
  // YAML 1.1 quoting, as kubectl writes a kubeconfig: helm and kubectl read it with go-yaml v2,
  // to which an unquoted namespace `y`, `no` or `on` is a boolean ("cannot unmarshal bool").
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name,
          cluster: {
            server: options.server,
            'certificate-authority-data': Buffer.from(options.caPem, 'utf8').toString('base64'),
          },
        },
      ],
      users: [{ name: user, user: { token: options.token } }],
      contexts: [{ name, context }],
      'current-context': name,
      preferences: {},
    },
    { version: '1.1' },
  );
}

/** Writes the kubeconfig with mode 0600 (it holds a credential) and returns its text. */
export function writeKubeconfig(path: string, options: KubeconfigOptions): string {
  const text = kubeconfigYaml(options);
  writeFileSync(path, text, { mode: 0o600 });
  return text;
}
