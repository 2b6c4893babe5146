// A second reporter of node's test runner, beside the usual one (scripts/run-tests.mjs adds
// it): it collects every failed test with its file, its error and what its file wrote on stdout
// and stderr, and writes them at the end, so the last lines of a run name each failure. A
// thousand passing tests scroll a failure's details far out of reach; a temporary folder that is
// gone after the run cannot be read either. Before them it names the slowest test files (each
// file's own process, start to end, and its number of tests): where the suite's time goes.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const OUTPUT_LINES = 40;
const SLOWEST_FILES = Number(process.env.CTL_TEST_SLOWEST ?? 15);

function errorText(error) {
  if (!error) return 'failed';
  const cause = error.cause ?? error;
  const text = cause?.stack ?? cause?.message ?? String(cause);
  return String(text).split('\n').slice(0, 30).join('\n');
}

function indent(text, prefix = '    ') {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

/** The slowest files, slowest first: seconds of its process, its tests, its path. */
function slowestFiles(files, wallMs) {
  if (SLOWEST_FILES <= 0 || files.size === 0) return '';
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((sum, [, { ms }]) => sum + ms, 0);
  const lines = rows.slice(0, SLOWEST_FILES).map(
    ([file, { ms, tests }]) =>
      // Tests defined in a helper file (describeRoundTrips) are counted there, not here: "-".
      `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${(tests > 0 ? String(tests) : '-').padStart(4)} tests  ${relative(process.cwd(), file)}`,
  );
  return (
    `\nslowest test files (${Math.min(SLOWEST_FILES, rows.length)} of ${rows.length}; ` +
    `files ${(total / 1000).toFixed(0)} s in all, run ${(wallMs / 1000).toFixed(0)} s of wall time):\n` +
    `${lines.join('\n')}\n`
  );
}

/**
 * Keeps each file's time (merged into the earlier runs' times) where scripts/run-tests.mjs reads
 * them to start the slowest files first next time. A file that cannot be written only costs the
 * order.
 */
function keepTimes(files) {
  const target = process.env.CTL_TEST_TIMES_FILE;
  if (!target || files.size === 0) return;
  try {
    let times = {};
    try {
      times = JSON.parse(readFileSync(target, 'utf8'));
    } catch {
      // the first run
    }
    const repo = process.env.CTL_TEST_REPO ?? process.cwd();
    for (const [file, { ms }] of files) times[relative(repo, file)] = Math.round(ms);
    mkdirSync(dirname(target), { recursive: true });
    const temporary = `${target}.${process.pid}`;
    writeFileSync(temporary, `${JSON.stringify(times, null, 1)}\n`);
    renameSync(temporary, target);
  } catch {
    // no times kept
  }
}

/**
 * The group file of each test file the whole run ran in a group's process (test/unit-groups/,
 * test/short-files/), as absolute paths: node reports what a process wrote under the file it
 * started, so a grouped test's output is its group's. Empty where the groups are not built.
 */
async function groupFiles() {
  const root = resolve(process.env.CTL_TEST_REPO ?? process.cwd(), 'dist', 'test');
  const groups = new Map();
  for (const folder of ['unit-groups', 'short-files']) {
    try {
      const module = await import(pathToFileURL(resolve(root, folder, 'groups.js')).href);
      for (const [file, group] of module.groupOfEachFile()) groups.set(file, group);
    } catch {
      // not built: no test ran in such a group
    }
  }
  return groups;
}

/** The file's own entry: the test named after the file, around its whole process. */
function isFileEntry(data) {
  return data.nesting === 0 && typeof data.file === 'string' && resolve(String(data.name)) === data.file;
}

export default async function* failuresReporter(source) {
  const started = Date.now();
  const output = new Map(); // file -> lines it wrote outside the test protocol
  const files = new Map(); // file -> { ms, tests, process?, testsMs? }
  const entryOf = (file) => {
    if (!files.has(file)) files.set(file, { ms: 0, tests: 0 });
    return files.get(file);
  };
  const failures = [];
  let passed = 0;
  for await (const event of source) {
    const data = event.data ?? {};
    if (event.type === 'test:complete' && isFileEntry(data)) {
      const entry = entryOf(data.file);
      entry.ms = Number(data.details?.duration_ms ?? 0);
      entry.process = true;
    } else if (event.type === 'test:complete' && data.nesting === 0 && typeof data.file === 'string') {
      // A top-level test or suite: a file run in another's process (test/unit-groups/,
      // test/short-files/) has no time of its own but the sum of these.
      const entry = entryOf(data.file);
      entry.testsMs = (entry.testsMs ?? 0) + Number(data.details?.duration_ms ?? 0);
    } else if ((event.type === 'test:pass' || event.type === 'test:fail') && data.details?.type !== 'suite') {
      if (typeof data.file === 'string' && !isFileEntry(data)) {
        entryOf(data.file).tests += 1;
      }
    }
    if (event.type === 'test:stdout' || event.type === 'test:stderr') {
      const lines = output.get(data.file) ?? [];
      lines.push(...String(data.message).replace(/\n$/, '').split('\n'));
      output.set(data.file, lines.slice(-OUTPUT_LINES));
    } else if (event.type === 'test:pass' && data.details?.type !== 'suite') {
      passed += 1;
    } else if (event.type === 'test:fail' && data.details?.type !== 'suite') {
      // A suite fails when a test in it fails: the test is the one to name.
      failures.push({ name: data.name, file: data.file, error: data.details?.error });
    }
  }
  // The slowest list names the files the runner started. The kept times also hold each file whose
  // tests ran in another's process (a group's: its tests' time), so that `--slow-list` names a
  // short file grown long (test/short-files/groups.ts); a helper's tests (describeRoundTrips),
  // counted under the helper, are no file of the run and have none.
  const processes = new Map([...files].filter(([, entry]) => entry.process));
  const grouped = [...files].filter(
    ([file, entry]) => !entry.process && entry.testsMs && file.endsWith('.test.js'),
  );
  keepTimes(new Map([...processes, ...grouped.map(([file, entry]) => [file, { ms: entry.testsMs }])]));
  // A group's process defines no test: its tests are its files'.
  const groupOf = await groupFiles();
  for (const [file, group] of groupOf) {
    const tests = files.get(file)?.tests ?? 0;
    if (tests > 0 && processes.has(group)) processes.get(group).tests += tests;
  }
  yield slowestFiles(processes, Date.now() - started);
  if (failures.length === 0) {
    yield `${passed} passed, 0 failed\n`;
    return;
  }
  const blocks = failures.map(({ name, file, error }) => {
    const own = output.get(file);
    const group = own ? undefined : groupOf.get(file);
    const lines = own ?? (group ? output.get(group) : undefined);
    const whose = group
      ? `its group's output (${relative(process.cwd(), group)}, whose other files write there too; last ${lines?.length} lines)`
      : `its file's output (last ${lines?.length} lines)`;
    return (
      `✖ ${name}\n  file: ${file ?? '(unknown)'}\n${indent(errorText(error))}\n` +
      (lines?.length ? `  ${whose}:\n${indent(lines.join('\n'))}\n` : '')
    );
  });
  yield `\nfailed tests (${failures.length}):\n\n${blocks.join('\n')}\n${passed} passed, ${failures.length} failed\n`;
}
