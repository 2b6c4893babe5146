// The bundled build that bin/ctl.js runs: dist/src/main.js (tsc's output) and every dependency
// in a few files under dist/bundle/. Loading hundreds of small files is most of a command's
// start-up (docs/performance.md); a bundle reads a handful. Code splitting keeps the lazy imports
// lazy: `ctl --help` never reads the Kubernetes client's chunk. esbuild splits ES modules; they
// become scripts for bin/load-bundle.js at the end (bundle-scripts.mjs). A second build makes
// dist/bundle/token-main.js, `ctl auth token`'s own entry (below), an ES module.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { configGenSource, isConfigGenImport, isNodeFetchWhatwgUrl } from './client-node-shims.mjs';
import { bundleAsScripts } from './bundle-scripts.mjs';
import { writeHelpTexts } from './help-texts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// tsc's output folder: dist/ by default, the folder scripts/build.mjs builds in when it says so.
const dist = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const outdir = path.join(dist, 'bundle');

rmSync(outdir, { recursive: true, force: true });
// Node's own modules by require(), not by ES module import. An ES module import of a built-in
// builds its module namespace, reading every export: node:http's WebSocket, CloseEvent and
// MessageEvent are getters that load Node's internal undici (measured: 39 internal modules,
// ~10 ms and ~4 MB on the plan of 10 databases, docs/performance.md). Each importing module gets
// its own wrapper (keyed by its path), so that the wrappers stay in their importer's chunk instead
// of making shared chunks of their own. The wrapper is an ES module that exports just the names
// its importer imports (`export const readFile = builtin.readFile`, read from the importer's
// import declarations): a CommonJS wrapper went through esbuild's __toESM, which copies every
// export of the built-in as a getter on each import (~4 ms a plan). A name the wrapper missed
// fails the build ("No matching export"); an import it cannot read (a namespace import, an
// unusual form) gets the CommonJS wrapper, as before.
const importerKey = (importer) =>
  createHash('sha256').update(path.relative(dist, importer)).digest('hex').slice(0, 8);
const importDeclaration = /\bimport\s*([^'";]*?)\s*from\s*(['"])([^'"]+)\2/g;
const builtinBareName = (specifier) => specifier.replace(/^node:/, '');
/** The names `importer` imports from the built-in `name`, or undefined when it cannot tell. */
function importedNames(importer, name) {
  let source;
  try {
    source = readFileSync(importer, 'utf8');
  } catch {
    return undefined;
  }
  const names = new Set();
  let found = false;
  for (const [, clause, , specifier] of source.matchAll(importDeclaration)) {
    if (builtinBareName(specifier) !== name) continue;
    found = true;
    const parts = /^(?:([\w$]+)\s*(?:,\s*)?)?(?:\{([^}]*)\})?$/.exec(clause.trim());
    if (!parts) return undefined;
    if (parts[1]) names.add('default');
    for (const item of (parts[2] ?? '').split(',')) {
      const imported = item.trim().split(/\s+as\s+/)[0];
      if (!imported) continue;
      if (!/^[\w$]+$/.test(imported)) return undefined;
      names.add(imported);
    }
  }
  return found ? names : undefined;
}
const builtinsByRequire = {
  name: 'node-builtins-by-require',
  setup(bundle) {
    bundle.onResolve({ filter: /^[a-z_/:]+$/ }, (args) =>
      args.kind === 'import-statement' && isBuiltin(args.path)
        ? {
            path: `${builtinBareName(args.path)} ${importerKey(args.importer)}`,
            namespace: 'node-builtin',
            pluginData: { importer: args.importer },
          }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => {
      const name = args.path.split(' ')[0];
      const required = `require(${JSON.stringify(`node:${name}`)})`;
      const names = importedNames(args.pluginData.importer, name);
      if (!names) return { contents: `module.exports = ${required};`, loader: 'js' };
      return {
        contents: [
          `const builtin = ${required};`,
          ...[...names].map((imported) =>
            imported === 'default'
              ? 'export default builtin;'
              : `export const ${imported} = builtin.${imported};`,
          ),
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};
// child_process (with dgram and the socket list it loads: ~2-3 ms of a plan's start-up) was
// loaded by two importers that call it in few runs: commander, to run an executable subcommand
// (ctl declares none), and client-node, for an exec credential plugin and the WSL lookup of a
// kubeconfig on Windows. Each gets a stand-in whose functions require the built-in on their first
// call: exec_auth.js keeps a reference to `spawn` from its constructor, which config.js calls as
// it loads, so the stand-in's names are functions that forward the call, not getters. Only the
// names listed are stood in for; the build fails if the importer reads any other name of the
// built-in, or the binding in any other way (test/e2e/kubeconfig-plugins.test.ts runs an exec
// plugin through the built ctl).
const builtinsOnFirstCall = [
  {
    importer: /[\\/]commander[\\/]lib[\\/]command\.js$/,
    builtin: 'child_process',
    binding: 'childProcess',
    names: ['spawn'],
  },
  {
    importer: /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]config\.js$/,
    builtin: 'child_process',
    binding: 'child_process',
    names: ['spawnSync'],
  },
  {
    importer: /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]exec_auth\.js$/,
    builtin: 'child_process',
    binding: 'child_process',
    names: ['spawn'],
  },
];
/** The importer's uses of the built-in's binding are `binding.name` with a listed name, else an error. */
function checkBuiltinUses(importer, rule) {
  const source = readFileSync(importer, 'utf8');
  const declaration = new RegExp(
    `^(?:import ${rule.binding} from |const ${rule.binding} = require\\()['"](?:node:)?${rule.builtin}['"]\\)?;$`,
    'm',
  );
  if (!declaration.test(source)) return `${importer} no longer binds ${rule.builtin} as ${rule.binding}`;
  const rest = source.replace(declaration, '');
  for (const [, name] of rest.matchAll(new RegExp(`\\b${rule.binding}\\b(?:\\.([\\w$]+))?`, 'g'))) {
    if (!rule.names.includes(name))
      return `${importer} reads ${rule.builtin}${name ? `.${name}` : ' as a whole'}`;
  }
  return undefined;
}
const builtinsDeferred = {
  name: 'node-builtins-on-first-call',
  setup(bundle) {
    bundle.onResolve({ filter: /^(node:)?child_process$/ }, (args) => {
      const index = builtinsOnFirstCall.findIndex(
        (rule) => rule.importer.test(args.importer) && builtinBareName(args.path) === rule.builtin,
      );
      if (index < 0) return undefined;
      const wrong = checkBuiltinUses(args.importer, builtinsOnFirstCall[index]);
      if (wrong) return { errors: [{ text: `${wrong}: update builtinsOnFirstCall in scripts/bundle.mjs` }] };
      return { path: `${index}`, namespace: 'node-builtin-on-first-call', pluginData: { kind: args.kind } };
    });
    bundle.onLoad({ filter: /.*/, namespace: 'node-builtin-on-first-call' }, (args) => {
      const rule = builtinsOnFirstCall[Number(args.path)];
      const standIn = [
        'let real;',
        `const load = () => (real ??= require(${JSON.stringify(`node:${rule.builtin}`)}));`,
        'const standIn = {',
        ...rule.names.map(
          (name) => `  ${name}: function ${name}(...args) { return load().${name}.apply(this, args); },`,
        ),
        '};',
      ];
      const exported =
        args.pluginData.kind === 'import-statement' ? 'export default standIn;' : 'module.exports = standIn;';
      return { contents: [...standIn, exported].join('\n'), loader: 'js' };
    });
  },
};
// What both builds share: Node's ES modules, the CommonJS names, the punycode alias.
const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Bundled CommonJS packages call require() for Node's modules and may read __filename or
  // __dirname (write-file-atomic seeds its temporary names with __filename); ES modules have
  // none of them. Each output file gets its own, and `define` points the free names at them.
  // The require is made on its first call: createRequire builds a CommonJS module record, and
  // most files never require anything (a command reads up to twenty of them: docs/performance.md).
  // The bundle calls it only as a function (`require(id)`, `require.apply`).
  banner: {
    js: [
      "import { createRequire as __ctlCreateRequire } from 'node:module';",
      'let __ctlRequire;',
      'function require(id) { return (__ctlRequire ??= __ctlCreateRequire(import.meta.url))(id); }',
      // Read on use: the first read of import.meta makes Node build it (the file's path from its
      // URL, a resolve function), and most files never read either name.
      'const __ctlPaths = { get filename() { return import.meta.filename; }, get dirname() { return import.meta.dirname; } };',
      // A file of chunks/ outside the split bundle (requireSeparate, below), from main.js or a chunk.
      "function __ctlRequireSeparate(file) { return require((__ctlPaths.dirname.endsWith('chunks') ? './' : './chunks/') + file); }",
    ].join(' '),
  },
  define: { __filename: '__ctlPaths.filename', __dirname: '__ctlPaths.dirname' },
  // tr46 (under node-fetch, under the Kubernetes client) requires Node's deprecated `punycode`;
  // Node 22 warns about it (DEP0040) when the caller is not in node_modules, as a bundle is not.
  // The userland package is the one Node recommends.
  alias: { punycode: 'punycode/' },
  logLevel: 'warning',
  metafile: true,
};
// ctl imports client-node's own modules (KubeConfig, Watch, PortForward: src/kube/client.ts),
// never its index. Its config module still imports the generated index for the two names that
// makeApiClient uses, which esbuild cannot shake off entirely (the models' module runs code as it
// loads), and node-fetch under it imports whatwg-url: both get what scripts/client-node-shims.mjs
// says (the test files' processes get the same: scripts/test-module-hooks.mjs). What the index
// carries (the generated models and typed APIs, 14 MB) stays out of the bundle; the check after
// the build says so.
// (node_modules may be a link: esbuild resolves the real path)
const clientNodeDist = realpathSync(path.join(root, 'node_modules', '@kubernetes', 'client-node', 'dist'));
const clientNodeConfigOnly = {
  name: 'client-node-config-without-the-generated-index',
  setup(bundle) {
    bundle.onResolve({ filter: /^\.\/gen\/index\.js$/ }, (args) =>
      isConfigGenImport(args.path, args.importer)
        ? { path: 'config-gen', namespace: 'client-node-gen' }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'client-node-gen' }, () => ({
      contents: configGenSource((module) => path.join(clientNodeDist, 'gen', `${module}.js`)),
      loader: 'js',
      resolveDir: path.join(clientNodeDist, 'gen'),
    }));
  },
};
const nodeFetchWithNodesUrl = {
  name: 'node-fetch-with-nodes-url',
  setup(bundle) {
    bundle.onResolve({ filter: /^whatwg-url$/ }, (args) =>
      isNodeFetchWhatwgUrl(args.path, args.importer)
        ? { path: 'whatwg-url', namespace: 'node-url' }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'node-url' }, () => ({
      contents: 'module.exports = { URL: globalThis.URL, URLSearchParams: globalThis.URLSearchParams };',
      loader: 'js',
    }));
  },
};
// Code that a command loads only in some runs and must then have at once (a synchronous call): a
// CommonJS file of its own in chunks/, outside the split bundle, required by the code that
// needs it (the `require` of the banner, relative to the file it is in: main.js or a chunk).
// Built below (`separate`); the YAML parser and the proxy agents of client-node.
const requireSeparate = (file) => `__ctlRequireSeparate(${JSON.stringify(file)})`;
const separateEntries = {
  yaml: { contents: "module.exports = require('yaml');", resolveDir: root },
  'proxy-agents': {
    contents: [
      "const { SocksProxyAgent } = require('socks-proxy-agent');",
      "const { HttpProxyAgent, HttpsProxyAgent } = require('hpagent');",
      'module.exports = { SocksProxyAgent, HttpProxyAgent, HttpsProxyAgent };',
    ].join('\n'),
    resolveDir: null,
  },
};
// client-node's config module imports, at load time, what only some kubeconfigs use: the azure,
// gcp and oidc auth providers (openid-client, oauth4webapi, jsonpath-plus) and the proxy agents
// of a cluster's `proxy-url` (socks-proxy-agent with socks, ip-address and debug; hpagent). A
// command that talks to a cluster loaded and ran all of it before its first request
// (docs/performance.md, issue 39). Each is handed to config.js as a stand-in:
// - the oidc provider answers isAuthProvider (the provider's own test, copied: a name compared)
//   and imports the real provider, in its own chunk, on the first applyAuthentication (async);
// - the gcp and azure providers are not in the bundle at all. ctl refuses every user of them
//   before any request, and puts that refusal first among client-node's authenticators for any
//   later request (src/kube/refused-auth-providers.ts: kubectl has only stubs of them since
//   client-go 1.26), so their code could never run. Their stand-ins still claim such a user
//   (the same name compared) and fail, so that a user of theirs could never be sent without
//   credentials should that refusal be bypassed. The check after the build fails it should
//   either file (and the child_process.execSync that ran their `cmd-path`) come back;
// - a proxy agent is constructed synchronously (KubeConfig.createAgent), so its stand-in is a
//   CommonJS module whose names are getters that require chunks/proxy-agents.cjs (the agents,
//   built apart below) on first use: only a kubeconfig with a proxy-url reads it.
// test/e2e/kubeconfig-plugins.test.ts runs the real oidc provider and agents through them, and
// the refusal of gcp and azure users.
const lazyAuthProviders = { oidc_auth: 'OpenIDConnectAuth' };
const absentAuthProviders = { azure_auth: 'AzureAuth', gcp_auth: 'GoogleCloudPlatformAuth' };
const lazyClientNodeParts = {
  name: 'client-node-config-loads-providers-and-proxies-on-use',
  setup(bundle) {
    const fromConfig = (args) =>
      path.resolve(args.resolveDir) === clientNodeDist && path.basename(args.importer) === 'config.js';
    bundle.onResolve({ filter: /^\.\/(azure|gcp|oidc)_auth\.js$/ }, (args) =>
      fromConfig(args)
        ? { path: path.basename(args.path, '.js'), namespace: 'client-node-lazy-auth' }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'client-node-lazy-auth' }, (args) => {
      const lazy = lazyAuthProviders[args.path];
      const name = lazy ?? absentAuthProviders[args.path];
      const provider = args.path.replace('_auth', '');
      // OpenIDConnectAuth's own test reads user.authProvider without checking user; the others check it.
      const guard = provider === 'oidc' ? '!user.authProvider' : '!user || !user.authProvider';
      const apply = lazy
        ? [
            `    this.real ??= import(${JSON.stringify(path.join(clientNodeDist, `${args.path}.js`))}).then((m) => new m.${name}());`,
            '    return (await this.real).applyAuthentication(user, opts);',
          ]
        : [
            `    throw new Error(${JSON.stringify(`internal: ctl does not carry client-node's ${provider} auth provider (src/kube/refused-auth-providers.ts refuses its users before any request)`)});`,
          ];
      return {
        contents: [
          `export class ${name} {`,
          `  isAuthProvider(user) { if (${guard}) return false; return user.authProvider.name === ${JSON.stringify(provider)}; }`,
          '  async applyAuthentication(user, opts) {',
          ...apply,
          '  }',
          '}',
        ].join('\n'),
        loader: 'js',
        resolveDir: clientNodeDist,
      };
    });
    bundle.onResolve({ filter: /^(socks-proxy-agent|hpagent)$/ }, (args) =>
      fromConfig(args) ? { path: args.path, namespace: 'client-node-lazy-proxy' } : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'client-node-lazy-proxy' }, (args) => {
      const names = args.path === 'hpagent' ? ['HttpProxyAgent', 'HttpsProxyAgent'] : ['SocksProxyAgent'];
      return {
        contents: names
          .map(
            (name) =>
              `Object.defineProperty(module.exports, ${JSON.stringify(name)}, { enumerable: true, get: () => ${requireSeparate('proxy-agents.cjs')}.${name} });`,
          )
          .join('\n'),
        loader: 'js',
        resolveDir: clientNodeDist,
      };
    });
  },
};
// The YAML package (yaml, 72 CommonJS modules, 260 KB) ran all its module bodies when a module
// that imports it loaded, and the plan loads modules that might use it and mostly do not (the
// preflight step writes the cluster resource's backup with it; YAML from outside is read by
// js-yaml, src/io/yaml-from-outside.ts). It is a file of its own (chunks/yaml.cjs, the
// separate build below), and its functions reach ctl's modules as wrappers that require that
// file on their first call. The two modules that use its classes (Document, Scalar, LineCounter,
// `visit`) require it when they load; they load only where YAML is written or a scenario read.
// Any other module importing a class fails the build with "No matching export" naming this
// namespace.
const yamlClassUsers = ['src/io/yaml-output.js', 'src/sim/scenario.js'];
const yamlOnFirstCall = {
  name: 'yaml-on-first-call',
  setup(bundle) {
    bundle.onResolve({ filter: /^yaml$/ }, (args) => {
      if (args.kind !== 'import-statement' || args.importer.includes(`${path.sep}node_modules${path.sep}`))
        return undefined;
      const classes = yamlClassUsers.includes(path.relative(dist, args.importer).split(path.sep).join('/'));
      return { path: 'yaml', namespace: classes ? 'yaml-classes' : 'yaml-on-first-call' };
    });
    bundle.onLoad({ filter: /.*/, namespace: 'yaml-classes' }, () => ({
      contents: `module.exports = ${requireSeparate('yaml.cjs')};`,
      loader: 'js',
    }));
    bundle.onLoad({ filter: /.*/, namespace: 'yaml-on-first-call' }, () => ({
      contents: [
        'let yaml;',
        `const load = () => (yaml ??= ${requireSeparate('yaml.cjs')});`,
        ...['parse', 'stringify', 'parseDocument', 'parseAllDocuments'].map(
          (name) => `export const ${name} = (...args) => load().${name}(...args);`,
        ),
      ].join('\n'),
      loader: 'js',
      resolveDir: root,
    }));
  },
};
// The plan's modules as one group (issue 39). esbuild's code splitting makes a file for each set
// of entry points (main and each lazily imported module) that reach a module, and a plan crossed
// about 40 lazy imports, each awaited before the next: it read 69 files, the last of them after its
// requests. In the group's modules and in the upgrade commands' actions (upgrade-actions.js), a
// lazy import of a group module loads the group's own entry instead, which imports all of them:
// the first one reads the group at once, every later one finds it loaded (docs/performance.md).
// Other commands keep their own lazy imports: `ctl upgrade status`, `ctl auth trust` read a
// module of the group without loading the planner. A module that leaves the tree fails the build
// ("Could not resolve"); one added to the plan's path without being listed is one more lazy
// import, which test/e2e/plan-load-order.test.ts reports when the plan reads it after a request.
const planGroup = [
  'planning/target.js',
  'commands/plan.js',
  'commands/session.js',
  'commands/remote-clusters.js',
  'kube/management-access.js',
  'kube/client.js',
  'kube/reads.js',
  'kube/errors.js',
  'api/connect.js',
  'api/node-https.js',
  'io/trusted-ca.js',
  'planning/snapshot.js',
  'planning/api-identity.js',
  'planning/target-available.js',
  'planning/path-route.js',
  'planning/helm-index.js',
  'planning/plan.js',
  'planning/checks/index.js',
  'planning/hops.js',
  'planning/resolve.js',
  'steps/index.js',
].map((file) => path.join(dist, 'src', file));
const planGroupImporters = new Set([...planGroup, path.join(dist, 'src', 'cli', 'upgrade-actions.js')]);
const relativeDynamicImport = /\bimport\((['"])(\.\.?\/[^'"]+)\1\)/g;
const planAsOneGroup = {
  name: 'plan-modules-as-one-group',
  setup(bundle) {
    bundle.onLoad({ filter: /\.js$/ }, (args) => {
      if (!planGroupImporters.has(args.path)) return undefined;
      const contents = readFileSync(args.path, 'utf8').replace(
        relativeDynamicImport,
        (whole, _quote, specifier) => {
          const index = planGroup.indexOf(path.resolve(path.dirname(args.path), specifier));
          return index < 0 ? whole : `import('ctl:plan-group').then((group) => group.m${index})`;
        },
      );
      return { contents, loader: 'js' };
    });
    bundle.onResolve({ filter: /^ctl:plan-group$/ }, () => ({
      path: 'plan-group',
      namespace: 'ctl-plan-group',
    }));
    bundle.onLoad({ filter: /.*/, namespace: 'ctl-plan-group' }, () => ({
      contents: planGroup
        .map((file, index) => `export * as m${index} from ${JSON.stringify(file)};`)
        .join('\n'),
      loader: 'js',
      resolveDir: root,
    }));
  },
};
const result = await build({
  ...common,
  entryPoints: [path.join(dist, 'src', 'main.js')],
  outdir,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [
    builtinsDeferred,
    builtinsByRequire,
    yamlOnFirstCall,
    clientNodeConfigOnly,
    lazyClientNodeParts,
    nodeFetchWithNodesUrl,
    planAsOneGroup,
  ],
});
const generated = Object.keys(result.metafile.inputs).filter((file) =>
  /@kubernetes\/client-node\/dist\/gen\/(models|apis|types)\//.test(file),
);
if (generated.length > 0) {
  console.error(
    `bundle: client-node's generated models or APIs are in the bundle (${generated.length} files, e.g. ${generated[0]}): ` +
      'import its modules (src/kube/client.ts), not its index',
  );
  process.exit(1);
}

// client-node's gcp and azure providers stay out (lazyClientNodeParts says why): a new import
// path of theirs in client-node would bring them back unnoticed.
const absentProviders = Object.keys(result.metafile.inputs).filter((file) =>
  /@kubernetes\/client-node\/dist\/(azure|gcp)_auth\.js$/.test(file),
);
if (absentProviders.length > 0) {
  console.error(
    `bundle: client-node's removed auth providers are in the bundle (${absentProviders.join(', ')}): ` +
      'point their import at the stand-in of lazyClientNodeParts in scripts/bundle.mjs',
  );
  process.exit(1);
}

// The files of requireSeparate, CommonJS, each whole (the packages resolved from where their
// importers would have: the proxy agents from client-node's folder).
separateEntries['proxy-agents'].resolveDir = clientNodeDist;
const separate = await build({
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  logLevel: 'warning',
  metafile: true,
  entryPoints: Object.fromEntries(Object.keys(separateEntries).map((name) => [name, `separate:${name}`])),
  outdir: path.join(outdir, 'chunks'),
  outExtension: { '.js': '.cjs' },
  plugins: [
    {
      name: 'separate-files',
      setup(files) {
        files.onResolve({ filter: /^separate:/ }, (args) => ({
          path: args.path.slice('separate:'.length),
          namespace: 'separate',
        }));
        files.onLoad({ filter: /.*/, namespace: 'separate' }, (args) => ({
          ...separateEntries[args.path],
          loader: 'js',
        }));
      },
    },
  ],
});

// `ctl auth token`'s own entry (src/token-main.ts), in ONE file: each file an ES module import
// reads costs about as much as 5 KB of code, and the token is measured against a bare HTTPS
// request. It serves only runs that talk to the management API alone (src/cli/token-scope.ts),
// so what the token loads lazily for the others is left out (the Kubernetes client, undici for a
// proxy, the YAML, name and jsonpath writers, the pinned CA lookup: 16 MB); an import of it would fail loudly. Any other lazy import is
// carried, and the size check below says when one pulls in a package.
const leftOut = [
  'kube/client.js',
  'kube/reads.js',
  'kube/errors.js',
  'kube/port-forward.js',
  'api/undici.js',
  'api/proxy-agent.js',
  'io/yaml-output.js',
  'io/document-printers.js',
  'io/trusted-ca.js',
];
const tokenOnly = {
  name: 'token-entry-carries-the-api-alone',
  setup(token) {
    token.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const target = path.relative(
        path.join(dist, 'src'),
        path.resolve(path.dirname(args.importer), args.path),
      );
      return leftOut.includes(target) ? { path: target, namespace: 'left-out' } : undefined;
    });
    token.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`internal: ctl auth token's entry does not carry ${args.path} (src/cli/token-scope.ts sends the runs that need it to the whole tree)`)});`,
      loader: 'js',
    }));
  },
};
const token = await build({
  ...common,
  entryPoints: [path.join(dist, 'src', 'token-main.js')],
  outfile: path.join(outdir, 'token-main.js'),
  plugins: [builtinsByRequire, tokenOnly],
});
const tokenBytes =
  token.metafile.outputs[path.relative(process.cwd(), path.join(outdir, 'token-main.js'))]?.bytes;
if (tokenBytes === undefined || tokenBytes > 300_000) {
  console.error(
    `bundle: dist/bundle/token-main.js is ${tokenBytes} bytes (at most 300 KB: a lazy import pulled a package in?)`,
  );
  process.exit(1);
}

// In a split bundle, `await import('pkg')` of a CommonJS package yields only `default`, so
// `const { named } = await import('pkg')` would be undefined in the bundle alone (tests of
// dist/src would not see it). Such packages must be imported statically, in a lazily loaded
// module (see src/api/undici.ts).
const { inputs } = result.metafile;
const broken = Object.entries(inputs).flatMap(([file, input]) =>
  input.imports
    .filter((i) => i.kind === 'dynamic-import' && inputs[i.path]?.format === 'cjs')
    .map((i) => `${file}: import() of the CommonJS module ${i.path}`),
);
if (broken.length > 0) {
  console.error(`bundle: dynamic imports of CommonJS modules:\n  ${broken.join('\n  ')}`);
  process.exit(1);
}

// main.js and its chunks as scripts with a code cache of whole runs (scripts/bundle-scripts.mjs,
// bin/load-bundle.js); token-main.js stays an ES module (one file, Node's compile cache).
try {
  await bundleAsScripts(result.metafile, outdir);
} catch (error) {
  console.error(error.message);
  process.exit(1);
}

// The bundle carries third-party code, so the package carries its licences: one notice per
// package whose files went into the bundle (name, version, licence and the licence text it ships),
// in dist/bundle/THIRD_PARTY_NOTICES.md, which the npm package and the image include.
const packages = new Map();
for (const file of [
  ...Object.keys(result.metafile.inputs),
  ...Object.keys(token.metafile.inputs),
  ...Object.keys(separate.metafile.inputs),
]) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(file);
  if (!match) continue;
  const dir = path.join(root, match[1]);
  if (packages.has(dir)) continue;
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const licenceFiles = readdirSync(dir)
    .filter((name) => /^(licen[cs]e|copying|notice)([.-]|$)/i.test(name))
    .sort();
  packages.set(dir, {
    name: manifest.name,
    version: manifest.version,
    license:
      typeof manifest.license === 'string' ? manifest.license : (manifest.license?.type ?? 'see package'),
    text:
      licenceFiles.length > 0
        ? licenceFiles.map((name) => readFileSync(path.join(dir, name), 'utf8').trim()).join('\n\n')
        : undefined,
  });
}
const notices = [...packages.values()]
  .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version))
  .map(
    (p) =>
      `## ${p.name} ${p.version}\n\nLicence: ${p.license}\n\n` +
      (p.text
        ? `\`\`\`text\n${p.text}\n\`\`\`\n`
        : `(the package ships no licence file; its package.json says ${p.license})\n`),
  );
writeFileSync(
  path.join(outdir, 'THIRD_PARTY_NOTICES.md'),
  `# Third-party notices\n\nctl's bundle (dist/bundle/) includes code of the following ${notices.length} packages.\n\n${notices.join('\n')}`,
);

// token-main.js, the one ES module of dist/bundle/ that Node loads itself: without a package.json
// beside it Node looks for missing ones above (docs/performance.md). The chunks are scripts that
// bin/load-bundle.js reads; Node loads none of them (the .cjs files say what they are).
writeFileSync(path.join(outdir, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);

// `ctl <command> --help` for scripts, from a file rendered by the tree itself (help-texts.mjs).
await writeHelpTexts(dist, outdir);
