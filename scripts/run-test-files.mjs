// Started by scripts/run-tests.mjs in place of `node --test <files>`: runs the test files with
// node:test's run() in the order they are given. `node --test` sorts the files it is given by
// their paths (Node 22 and 24), so the slowest-first order run-tests.mjs works out was lost: the
// unit groups and the worlds (40-80 s each, after e2e/, reliability/ and short-files/ by name)
// started last and ran on alone while the other slots were empty. Everything else is what
// `node --test` does with the same options: a process for each file, with this process's flags
// (run-tests.mjs's --import preloads), the reporters given, and exit code 1 when a test failed.
//
//   node [--import ...] scripts/run-test-files.mjs --concurrency N --timeout MS
//        --reporter tap|spec --failures-reporter FILE --failures-file FILE -- <file>...
import { createWriteStream } from 'node:fs';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals: files } = parseArgs({
  options: {
    concurrency: { type: 'string' },
    timeout: { type: 'string' },
    reporter: { type: 'string' },
    'failures-reporter': { type: 'string' },
    'failures-file': { type: 'string' },
  },
  allowPositionals: true,
});

// As `node --test` does on an interrupt: the files' processes are ended (run() sends them SIGTERM
// when its signal aborts) and this process exits without waiting for them, since a child a test
// started may hold a file's output open for good (run-tests.mjs then ends what is left). Two
// signals at once (the process group's and the one run-tests.mjs passes on) may arrive as one.
const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    interrupted.abort();
    process.exitCode = 130;
    // A moment for the reporters to write what they have; then gone, whatever still runs.
    setTimeout(() => process.exit(130), 200);
  });
}

// Both reporters are attached before the run starts: a reporter attached later misses its start.
const failures = (await import(pathToFileURL(values['failures-reporter']).href)).default;
// spec is a Transform class, tap an async generator (node:test/reporters).
const shown = values.reporter === 'spec' ? new spec() : tap;
const stream = run({
  files,
  concurrency: Number(values.concurrency),
  timeout: Number(values.timeout),
  // Each test in a file has the same limit, as `node --test --test-timeout` gives it (Node 22
  // passes the flag on to the files' processes; run() does not).
  execArgv: [`--test-timeout=${values.timeout}`],
  signal: interrupted.signal,
});
// As `node --test` sets it: any failed file or test fails the run.
stream.on('test:summary', (summary) => {
  if (!summary.success) process.exitCode = 1;
});
stream.compose(shown).pipe(process.stdout);
stream.compose(failures).pipe(createWriteStream(values['failures-file']));
