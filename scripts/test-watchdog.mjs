// Preloaded into every test file's process by scripts/run-tests.mjs (`node --import`, passed on to each file's process).
// When a file's tests are all done, its process should exit; one that stays alive (a server not
// closed, a child process still running, a socket left open) would hold the whole run until the
// file's timeout. Ten seconds after the last test, this names what is still open and fails the file.
import { syncBuiltinESMExports } from 'node:module';
import timers from 'node:timers';
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
 * named only "Timeout". Each timer armed by setTimeout or setInterval (the global ones and
 * node:timers', one function) keeps where it was armed (V8's frames, formatted only for the
 * report), so the watchdog can say which code armed it.
 *
 * Wrapped, not found with an async hook: any async hook (an init hook for the 'Timeout' type
 * alone too) makes Node call into JavaScript for every promise (its init, before and after), and
 * one with a destroy hook also registers each promise for a callback when it is collected: an
 * in-process `ctl upgrade plan` took about 9% more CPU with the hook this watchdog had
 * (docs/reliability.md, the fifteenth round). The timers of node:timers/promises and Node's own
 * are not named: the report counts them.
 */
const armedAt = new WeakMap();
/**
 * The timers armed so far, less those found done (fired, cleared) whenever the set has doubled
 * since: a done timer kept here would keep its callback and all it holds from being collected.
 */
const armed = new Set();
const PRUNE_FROM = 64;
let pruneAt = PRUNE_FROM;

function remember(timer) {
  if (timer === null || typeof timer !== 'object') return;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 12;
  const site = {};
  Error.captureStackTrace(site);
  Error.stackTraceLimit = limit;
  armedAt.set(timer, site);
  armed.add(timer);
  if (armed.size < pruneAt) return;
  for (const known of armed) if (known._destroyed) armed.delete(known);
  pruneAt = Math.max(PRUNE_FROM, 2 * armed.size);
}

function trackTimers() {
  for (const name of ['setTimeout', 'setInterval']) {
    const original = timers[name];
    const wrapped = {
      [name](...args) {
        const timer = original.apply(this, args);
        remember(timer);
        return timer;
      },
    }[name];
    // util.promisify(setTimeout) finds the promise form here.
    for (const key of Object.getOwnPropertySymbols(original)) wrapped[key] = original[key];
    timers[name] = wrapped;
    globalThis[name] = wrapped;
  }
  // `import { setTimeout } from 'node:timers'` in a module loaded from now on gets the wrapped one.
  syncBuiltinESMExports();
}

/** Whether a timer is armed and holds the process (ref'd). */
function holding(timer) {
  return timer?.hasRef?.() && !timer._destroyed && timer._idleTimeout >= 0;
}

/** The timers still armed and holding the process (ref'd), each with where it was created. */
function pendingTimers() {
  return [...armed].filter(holding).map((timer) => {
    const sites = String(armedAt.get(timer)?.stack ?? '')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().replace(/^at /, ''))
      .filter((line) => !/node:(internal|timers|async_hooks)|test-watchdog\.mjs/.test(line))
      .slice(0, 4);
    return `${describe(timer)}\n      created at ${sites.join('\n      ') || '(unknown)'}`;
  });
}

// Only inside a test file's process (the runner's own process has no tests to wait for).
if (process.env.NODE_TEST_CONTEXT) {
  trackTimers();
  after(() => {
    setTimeout(() => {
      const named = pendingTimers();
      const resources = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
      // This report's own timer is unref'd, so not among them.
      const others = resources.filter((r) => r === 'Timeout').length - named.length;
      const handles = [
        ...(process._getActiveHandles?.() ?? []).map(describe).filter(Boolean),
        ...named,
        ...(others > 0
          ? [`${others} timer(s) armed elsewhere (node:timers/promises, Node's own): not named`]
          : []),
      ];
      process.stderr.write(
        `test-watchdog: ${process.argv[1] ?? 'this test file'}: every test finished ${GRACE_MS} ms ago, ` +
          `but the process is still kept alive by:\n  ${handles.join('\n  ') || resources.join(', ')}\n`,
      );
      process.exit(1);
    }, GRACE_MS).unref();
  });
}
