/**
 * A kubeconfig field kubectl reads as text that the file gives as a boolean: refused, as kubectl
 * refuses the file. Go's YAML reader (gopkg.in/yaml.v2, through sigs.k8s.io/yaml's YAMLToJSON,
 * which client-go's clientcmd.Load decodes a kubeconfig with) makes an unquoted `yes`, `no`, `on`,
 * `off`, `y` or `n` a boolean (src/io/yaml-from-outside.ts GO_BOOLEANS), and filling a string
 * field from it fails: `error loading config file "F": json: cannot unmarshal bool into Go struct
 * field ... of type string`. So `namespace: no` names no namespace "no" for kubectl, and ctl,
 * which reads the same boolean, says which field it is and to quote it rather than going on with
 * `false` as a name. A field kubectl does not know is not judged (it ignores it), nor an
 * `extensions` entry (any value), nor the fields that are booleans (insecure-skip-tls-verify,
 * disable-compression, exec's provideClusterInfo).
 *
 * The fields are client-go's kubeconfig v1 types (kubernetes/client-go tools/clientcmd/api/v1/
 * types.go: Config, Cluster, Context, AuthInfo, AuthProviderConfig, ExecConfig, ExecEnvVar), by
 * their JSON names.
 */

type Shape =
  'text' | 'texts' | 'text map' | 'texts map' | { list: Shape } | { readonly [field: string]: Shape };

const KUBECONFIG_TEXT: Shape = {
  kind: 'text',
  apiVersion: 'text',
  'current-context': 'text',
  clusters: {
    list: {
      name: 'text',
      cluster: {
        server: 'text',
        'tls-server-name': 'text',
        'certificate-authority': 'text',
        'certificate-authority-data': 'text',
        'proxy-url': 'text',
      },
    },
  },
  contexts: { list: { name: 'text', context: { cluster: 'text', user: 'text', namespace: 'text' } } },
  users: {
    list: {
      name: 'text',
      user: {
        'client-certificate': 'text',
        'client-certificate-data': 'text',
        'client-key': 'text',
        'client-key-data': 'text',
        token: 'text',
        tokenFile: 'text',
        as: 'text',
        'as-uid': 'text',
        'as-groups': 'texts',
        'as-user-extra': 'texts map',
        username: 'text',
        password: 'text',
        'auth-provider': { name: 'text', config: 'text map' },
        exec: {
          command: 'text',
          args: 'texts',
          env: { list: { name: 'text', value: 'text' } },
          apiVersion: 'text',
          installHint: 'text',
          interactiveMode: 'text',
        },
      },
    },
  },
};

/**
 * The first field of `document` (a kubeconfig's mapping) that kubectl reads as text and the file
 * gives as a boolean, as a path (`contexts[0].context.namespace`), or undefined.
 */
export function booleanTextField(document: unknown): string | undefined {
  return walk(document, KUBECONFIG_TEXT, '');
}

function walk(value: unknown, shape: Shape, path: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (shape === 'text') return typeof value === 'boolean' ? path : undefined;
  if (shape === 'texts') return Array.isArray(value) ? each(value, 'text', path) : undefined;
  if (shape === 'text map' || shape === 'texts map') {
    if (typeof value !== 'object' || Array.isArray(value)) return undefined;
    const inner = shape === 'text map' ? 'text' : 'texts';
    for (const [key, item] of Object.entries(value)) {
      const found = walk(item, inner, `${path}.${key}`);
      if (found) return found;
    }
    return undefined;
  }
  if ('list' in shape && typeof shape.list !== 'undefined' && Object.keys(shape).length === 1) {
    return Array.isArray(value) ? each(value, shape.list as Shape, path) : undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const [field, inner] of Object.entries(shape as Record<string, Shape>)) {
    const found = walk((value as Record<string, unknown>)[field], inner, path ? `${path}.${field}` : field);
    if (found) return found;
  }
  return undefined;
}

function each(values: unknown[], shape: Shape, path: string): string | undefined {
  for (const [index, item] of values.entries()) {
    const found = walk(item, shape, `${path}[${index}]`);
    if (found) return found;
  }
  return undefined;
}
