// Preloaded into every test file's process by scripts/run-tests.mjs (`node --import`, passed on to each file's process).
// When a file's tests are all done, its process should exit; one that stays alive (a server not
// closed, a child process still running, a socket left open) would hold the whole run until the
// file's timeout. Ten seconds after the last test, this names what is still open and fails the file.
import { createHook } from 'node:async_hooks';
import { after } from 'node:test';

const GRACE_MS = Number(process.env.CTL_TEST_EXIT_GRACE_MS ?? 10_000);

/** A readable name for one active handle: what it is and, where known, what it talks to. */
function describe(handle) {
  const type = handle?.constructor?.name ?? typeof handle;
  try {
    if (type === 'ChildProcess') return `child process ${handle.pid} (${handle.spawnargs?.join(' ')})`;
    if (typeof handle?.address === 'function' && typeof handle?.listen === 'function') {
      const address = handle.address();
      return `${type} listening on ${typeof address === 'string' ? address : `${address?.address}:${address?.port}`}`;
    }
    if (type === 'Socket' || type === 'TLSSocket') {
      if (handle.remotePort)
        return `${type} ${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}`;
      if (handle === process.stdout || handle === process.stderr || handle === process.stdin)
        return undefined;
      return `${type} (pipe${handle._handle?.fd >= 0 ? ` fd ${handle._handle.fd}` : ''})`;
    }
    if (type === 'Timeout')
      return `timer of ${handle._idleTimeout} ms: ${String(handle._onTimeout).slice(0, 120)}`;
  } catch {
    // Fall through to the bare type.
  }
  return type;
}

/**
 * Timers are not among process._getActiveHandles(), so a timer that keeps the process alive was
 * named only "Timeout". Each timer's creation site is kept (a short stack, while it is pending)
 * so the watchdog can say which code armed it.
 */
const timers = new Map();
function trackTimers() {
  createHook({
    init(asyncId, type, _trigger, resource) {
      if (type !== 'Timeout') return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 12;
      const stack = new Error().stack ?? '';
      Error.stackTraceLimit = limit;
      timers.set(asyncId, { resource, stack });
    },
    destroy(asyncId) {
      timers.delete(asyncId);
    },
  }).enable();
}

/** The timers still armed and holding the process (ref'd), each with where it was created. */
function pendingTimers() {
  return [...timers.values()]
    .filter(({ resource }) => resource?.hasRef?.() && !resource._destroyed && resource._idleTimeout >= 0)
    .map(({ resource, stack }) => {
      const sites = stack
        .split('\n')
        .slice(1)
        .map((line) => line.trim().replace(/^at /, ''))
        .filter((line) => !/node:(internal|timers|async_hooks)|test-watchdog\.mjs/.test(line))
        .slice(0, 4);
      return `${describe(resource)}\n      created at ${sites.join('\n      ') || '(unknown)'}`;
    });
}

// Only inside a test file's process (the runner's own process has no tests to wait for).
if (process.env.NODE_TEST_CONTEXT) {
  trackTimers();
  after(() => {
    setTimeout(() => {
      const handles = [
        ...(process._getActiveHandles?.() ?? []).map(describe).filter(Boolean),
        ...pendingTimers(),
      ];
      const resources = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
      process.stderr.write(
        `test-watchdog: ${process.argv[1] ?? 'this test file'}: every test finished ${GRACE_MS} ms ago, ` +
          `but the process is still kept alive by:\n  ${handles.join('\n  ') || resources.join(', ')}\n`,
      );
      process.exit(1);
    }, GRACE_MS).unref();
  });
}
