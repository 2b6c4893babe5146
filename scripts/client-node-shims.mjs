// What ctl loads of client-node in place of its heavier parts, shared by ctl's bundle
// (scripts/bundle.mjs, at build) and the test files' processes (scripts/test-module-hooks.mjs, at
// import), so that the tests' compiled sources load client-node as ctl does:
// - client-node's config module imports its generated index (14 MB of models and typed APIs) for
//   two names that makeApiClient uses; that import gets the two modules that define them.
// - node-fetch 2 (under client-node) parses URLs with Node's own URL and falls back to whatwg-url
//   only where Node has none (`Url.URL || whatwgUrl.URL`), but importing whatwg-url builds tr46's
//   Unicode tables on every start; node-fetch gets Node's URL under that name instead.

/** The generated index's names that client-node's config module imports, by their own module. */
const CONFIG_GEN_NAMES = { createConfiguration: 'configuration', ServerConfiguration: 'servers' };

/** Whether `specifier`, imported by `importer` (a path or URL), is config's import of the index. */
export function isConfigGenImport(specifier, importer) {
  return (
    specifier === './gen/index.js' &&
    /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]config\.js$/.test(importer)
  );
}

/** The module that stands for the index: `moduleOf(name)` is the specifier of gen/<name>.js. */
export function configGenSource(moduleOf) {
  return Object.entries(CONFIG_GEN_NAMES)
    .map(([name, module]) => `export { ${name} } from ${JSON.stringify(moduleOf(module))};\n`)
    .join('');
}

/** Whether `specifier`, imported by `importer`, is node-fetch's import of whatwg-url. */
export function isNodeFetchWhatwgUrl(specifier, importer) {
  return specifier === 'whatwg-url' && /[\\/]node-fetch[\\/]/.test(importer);
}
