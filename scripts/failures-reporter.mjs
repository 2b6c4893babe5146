// A second reporter of node's test runner, beside the usual one (scripts/run-tests.mjs adds
// it): it collects every failed test with its file, its error and what its file wrote on stdout
// and stderr, and writes them at the end, so the last lines of a run name each failure. A
// thousand passing tests scroll a failure's details far out of reach; a temporary folder that is
// gone after the run cannot be read either.
const OUTPUT_LINES = 40;

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

export default async function* failuresReporter(source) {
  const output = new Map(); // file -> lines it wrote outside the test protocol
  const failures = [];
  let passed = 0;
  for await (const event of source) {
    const data = event.data ?? {};
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
  if (failures.length === 0) {
    yield `${passed} passed, 0 failed\n`;
    return;
  }
  const blocks = failures.map(({ name, file, error }) => {
    const lines = output.get(file);
    return (
      `✖ ${name}\n  file: ${file ?? '(unknown)'}\n${indent(errorText(error))}\n` +
      (lines?.length
        ? `  its file's output (last ${lines.length} lines):\n${indent(lines.join('\n'))}\n`
        : '')
    );
  });
  yield `\nfailed tests (${failures.length}):\n\n${blocks.join('\n')}\n${passed} passed, ${failures.length} failed\n`;
}
