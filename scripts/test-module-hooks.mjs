// Preloaded into every test file's process by scripts/run-tests.mjs (`node --test --import`), so
// that the compiled sources the tests import (dist/src) load client-node as ctl's bundle does
// (scripts/bundle.mjs, the plugins `client-node-config-without-the-generated-index` and
// `node-fetch-with-nodes-url`):
// - client-node's config module imports its generated index (14 MB of models and typed APIs) for
//   two names, createConfiguration and ServerConfiguration; that import gets the two modules that
//   define them. Loading the index cost each test file that reached KubeConfig about 0.9 s of CPU.
// - node-fetch's require of whatwg-url (tr46's Unicode tables, built on every start) gets Node's
//   own URL, which node-fetch prefers anyway (`Url.URL || whatwgUrl.URL`).
// A test that imports client-node's index itself still gets the whole of it. Synchronous hooks in
// the test's own thread (module.registerHooks: Node 22.15 and newer); without them, nothing
// changes but the time.
import * as module from 'node:module';

const CONFIG = /\/@kubernetes\/client-node\/dist\/config\.js$/;
const NODE_FETCH = /\/node-fetch\/lib\/index\.js$/;
// What was redirected, for test/unit/scripts/test-module-hooks.test.ts: the wiring is checked in
// a test file's own process, as every test file gets it.
const redirected = [];
globalThis[Symbol.for('ctl.test-module-hooks')] = { redirected };

if (typeof module.registerHooks === 'function') {
  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL ?? '';
      if (specifier === './gen/index.js' && CONFIG.test(parent)) {
        redirected.push('client-node gen/index.js');
        const gen = (name) => JSON.stringify(new URL(`./gen/${name}.js`, parent).href);
        const source =
          `export { createConfiguration } from ${gen('configuration')};\n` +
          `export { ServerConfiguration } from ${gen('servers')};\n`;
        return { url: `data:text/javascript,${encodeURIComponent(source)}`, shortCircuit: true };
      }
      if (specifier === 'whatwg-url' && NODE_FETCH.test(parent)) {
        redirected.push('whatwg-url');
        return { url: 'node:url', shortCircuit: true };
      }
      return nextResolve(specifier, context);
    },
  });
}
