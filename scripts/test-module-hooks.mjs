// Preloaded into every test file's process by scripts/run-tests.mjs (`node --import`, passed on to each file's process), so
// that the compiled sources the tests import (dist/src) load client-node as ctl's bundle does
// (scripts/client-node-shims.mjs): client-node's config module without the generated index, whose
// 14 MB of models and typed APIs cost each test file that reached KubeConfig about 0.9 s of CPU,
// and node-fetch with Node's own URL for whatwg-url (which exports URL and URLSearchParams, all
// node-fetch takes of it). A test that imports client-node's index itself still gets the whole of
// it. Synchronous hooks in the test's own thread (module.registerHooks: Node 22.15 and newer);
// without them, nothing changes but the time.
import * as module from 'node:module';
import { configGenSource, isConfigGenImport, isNodeFetchWhatwgUrl } from './client-node-shims.mjs';

// What was redirected, for test/unit/scripts/test-module-hooks.test.ts: the wiring is checked in
// a test file's own process, as every test file gets it.
const redirected = [];
globalThis[Symbol.for('ctl.test-module-hooks')] = { redirected };

if (typeof module.registerHooks === 'function') {
  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL ?? '';
      if (isConfigGenImport(specifier, parent)) {
        redirected.push('client-node gen/index.js');
        const source = configGenSource((name) => new URL(`./gen/${name}.js`, parent).href);
        return { url: `data:text/javascript,${encodeURIComponent(source)}`, shortCircuit: true };
      }
      if (isNodeFetchWhatwgUrl(specifier, parent)) {
        redirected.push('whatwg-url');
        return { url: 'node:url', shortCircuit: true };
      }
      return nextResolve(specifier, context);
    },
  });
}
