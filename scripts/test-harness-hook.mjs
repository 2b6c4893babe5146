// Preloaded first into every test file's process (and the runner's) by scripts/run-tests.mjs
// (`node --import`, before node:test is loaded): node:test's async hook is made without its
// destroy callback.
//
// node:test's harness (lib/internal/test_runner/harness.js, Node 22 and 24) keeps a map from
// each async resource's id to the test it belongs to: its hook's init adds the id (a Test, or a
// resource whose trigger is mapped), its destroy deletes it. The map is how a test() called
// inside a describe() finds its parent, and how an uncaught error in a test's async code fails
// that test. Any destroy hook makes Node track every promise for destruction (a weak callback per
// promise, run by the garbage collector): in the files that run ctl and the simulator in their
// own process, a promise is made for almost every step, 172,000 async resources in
// short-files/group-4. Without destroy, init still maps every resource, so the parents and the
// attribution of errors are the same; async ids are never reused, so an id whose resource is
// gone only stays in the map (numbers to tests that the test tree holds anyway: a few MB).
// The destroy tracking was 1.6% of the test files' profiled time; short-files/group-4 with the
// two forms alternating took 10.8 → 10.4 s of its own CPU, three heavy files three times each
// moved within their noise (docs/reliability.md, the sixteenth round).
//
// Only the harness's hook is changed (found by where createHook is called from); any other
// caller gets Node's own createHook.
import { createRequire } from 'node:module';

const asyncHooks = createRequire(import.meta.url)('node:async_hooks');
const createHook = asyncHooks.createHook;
const HARNESS = /node:internal\/test_runner\/harness/;

// For test/unit/scripts/test-harness-hook.test.ts, which checks it in a test file's own process.
const record = { harnessHooks: 0 };
globalThis[Symbol.for('ctl.test-harness-hook')] = record;

asyncHooks.createHook = function createHookOfTheTests(callbacks) {
  if (callbacks && typeof callbacks.destroy === 'function' && HARNESS.test(new Error().stack ?? '')) {
    record.harnessHooks += 1;
    const { destroy: _dropped, ...kept } = callbacks;
    return createHook(kept);
  }
  return createHook(callbacks);
};
