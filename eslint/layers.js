// The layer rule of docs/architecture.md, as an ESLint rule: a module under src/ may import
// only from its own layer or the layers below it, and the simulated cluster (src/sim/) is a
// world of its own (SIMULATOR.md, "Independence"): it imports nothing from the rest of src/,
// and the rest of src/ reaches it only from the two commands that start it.
//
// Written here rather than taken from a plugin because the whole rule is one table and a path
// comparison; the plugins that do this (eslint-plugin-boundaries, import/no-restricted-paths)
// need a TypeScript resolver to map our `.js` specifiers back to `.ts` files.
import path from 'node:path';

/** Lowest first. A folder ends with '/'; anything else is one file. */
export const LAYERS = [
  {
    name: 'base',
    // The catalog's schema is data the release layer validates a --catalog file against.
    members: ['src/errors.ts', 'src/json-read.ts', 'src/package-root.ts', 'docs/catalog.schema.json'],
  },
  { name: 'release facts', members: ['src/release/'] },
  { name: 'access', members: ['src/io/', 'src/api/', 'src/kube/', 'src/exec/'] },
  { name: 'planning', members: ['src/planning/'] },
  { name: 'run engine', members: ['src/run/'] },
  { name: 'steps', members: ['src/steps/'] },
  { name: 'commands', members: ['src/commands/'] },
  { name: 'command line', members: ['src/cli/', 'src/completion/'] },
  { name: 'entry point', members: ['src/main.ts', 'src/token-main.ts', 'src/sea-main.ts'] },
];

const SIM = 'src/sim/';
/** The commands that start the simulated cluster: `ctl sim` and `ctl demo`. */
export const SIM_STARTERS = ['src/cli/sim.ts', 'src/commands/demo.ts'];

function layerOf(file) {
  const index = LAYERS.findIndex((layer) =>
    layer.members.some((m) => (m.endsWith('/') ? file.startsWith(m) : file === m)),
  );
  return index;
}

function repoRelative(filename, cwd) {
  return path.relative(cwd, filename).split(path.sep).join('/');
}

/** The repo-relative .ts file a relative specifier names, or undefined for a package import. */
function resolveSpecifier(importer, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(importer), specifier));
  return joined.replace(/\.js$/, '.ts');
}

export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports follow the layers of docs/architecture.md' },
    schema: [],
  },
  create(context) {
    const importer = repoRelative(context.filename, context.cwd);
    if (!importer.startsWith('src/')) return {};
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return;
      const imported = resolveSpecifier(importer, specifier);
      if (!imported) return;
      const fromSim = importer.startsWith(SIM);
      const toSim = imported.startsWith(SIM);
      if (fromSim && !toSim) {
        context.report({
          node,
          message: `${importer} imports ${imported}: the simulator imports nothing outside src/sim/ (it keeps its own facts)`,
        });
        return;
      }
      if (fromSim) return;
      if (toSim) {
        if (!SIM_STARTERS.includes(importer)) {
          context.report({
            node,
            message: `${importer} imports ${imported}: only ${SIM_STARTERS.join(' and ')} may start the simulator`,
          });
        }
        return;
      }
      const from = layerOf(importer);
      const to = layerOf(imported);
      if (from < 0) {
        context.report({
          node,
          message: `${importer} belongs to no layer: add its folder to eslint/layers.js`,
        });
        return;
      }
      if (to < 0) {
        context.report({
          node,
          message: `${imported} belongs to no layer: add its folder to eslint/layers.js`,
        });
        return;
      }
      if (to > from) {
        context.report({
          node,
          message: `${importer} (${LAYERS[from].name}) imports ${imported} (${LAYERS[to].name}): a layer imports only from itself and the layers below`,
        });
      }
    };
    const fromSource = (node) => check(node, node.source?.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source.value : undefined),
      TSImportType: (node) => check(node, node.argument?.literal?.value ?? node.argument?.value),
    };
  },
};

export default { rules: { layers: layersRule } };
