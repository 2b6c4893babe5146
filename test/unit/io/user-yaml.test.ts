import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseUserYaml, yamlProblem } from '../../../src/io/user-yaml.js';

/** The parser's error for `text` (each text below is not YAML). */
function errorOf(text: string): unknown {
  try {
    parseUserYaml(text);
  } catch (error) {
    return error;
  }
  assert.fail(`parsed: ${text}`);
}

const SECRET = 'Sup3r-Secret-Pa55';

describe('yamlProblem', () => {
  it('says the line, the column and what is wrong, quoting nothing of the file', () => {
    const cases: [string, RegExp][] = [
      [`a: 1\nurl: "https://u:${SECRET}@h/x\n`, /^line 3, column 1: missing closing "quote$/],
      [`a: 1\na: ${SECRET}\n`, /^line 2, column 1: map keys must be unique$/],
      [`\t- ${SECRET}\n`, /^line 1, column 1: tabs are not allowed as indentation$/],
      // Reasons that quote the source itself (an escape, an alias) get ctl's own words.
      [`a: "${SECRET}\\q"\n`, /^line 1, column 22: an invalid escape sequence in a double-quoted string$/],
      [`a: *${SECRET}\n`, /^an alias whose anchor is not set before it$/],
    ];
    for (const [text, expected] of cases) {
      const problem = yamlProblem(errorOf(text));
      assert.match(problem, expected, text);
      assert.ok(!problem.includes(SECRET), problem);
      assert.ok(!problem.includes('\n'), problem);
    }
  });

  it('an unknown tag is no error, and no warning is printed (it would quote the line)', async () => {
    const warnings: unknown[] = [];
    const listen = (warning: unknown) => warnings.push(warning);
    process.on('warning', listen);
    try {
      assert.deepEqual(parseUserYaml(`a: !vault-${SECRET} x\n`), { a: 'x' });
      // process.emitWarning delivers on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    assert.deepEqual(warnings, []);
  });

  it('something that is no parser error: no place, and nothing of its message', () => {
    assert.equal(yamlProblem(new Error(`bad ${SECRET}`)), 'not valid YAML');
    assert.equal(yamlProblem(undefined), 'not valid YAML');
  });
});
