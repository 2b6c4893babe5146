import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isYamlError,
  parseYaml,
  parseYamlDocuments,
  yamlProblem,
} from '../../../src/io/yaml-from-outside.js';

/** The parser's error for `text` (each text below is not YAML). */
function errorOf(text: string): unknown {
  try {
    parseYaml(text);
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
      assert.deepEqual(parseYaml(`a: !vault-${SECRET} x\n`), { a: 'x' });
      // process.emitWarning delivers on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    assert.deepEqual(warnings, []);
  });

  it("an alias bomb is refused in ctl's words", () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      '',
    ].join('\n');
    assert.equal(yamlProblem(errorOf(bomb)), 'too many aliases');
  });

  it('something that is no parser error: no place, and nothing of its message', () => {
    assert.equal(yamlProblem(new Error(`bad ${SECRET}`)), 'not valid YAML');
    assert.equal(yamlProblem(undefined), 'not valid YAML');
    assert.equal(isYamlError(new Error(`bad ${SECRET}`)), false);
  });
});

describe('parseYamlDocuments', () => {
  it('every document in order; the first fault of any throws, for yamlProblem', () => {
    assert.deepEqual(parseYamlDocuments('a: 1\n---\n---\nb: 2\n'), [{ a: 1 }, null, { b: 2 }]);
    const cases: [string, string][] = [
      [`a: 1\n---\nb: "${SECRET}\\q"\n`, 'line 3, column 23: unknown escape sequence'],
      [`a: 1\n---\nb: *${SECRET}\n`, 'line 3, column 22: an alias whose anchor is not set before it'],
    ];
    for (const [text, expected] of cases) {
      assert.throws(
        () => parseYamlDocuments(text),
        (error: unknown) => isYamlError(error) && yamlProblem(error) === expected,
        text,
      );
    }
  });

  it("reads what kubectl reads: a quoted description's next line no deeper than its key", () => {
    // The published bundle.yaml (8.0.20-23, v7.22.2-40): the `yaml` package refused it.
    const text = [
      'kind: CustomResourceDefinition',
      'spec:',
      '  redisEnterpriseVolumeMounts:',
      "    description: 'additional volume mounts within the redis enterprise containers.",
      "    More info: https://kubernetes.io/docs/concepts/storage/volumes/'",
      '    type: array',
      '',
    ].join('\n');
    assert.deepEqual(parseYamlDocuments(text), [
      {
        kind: 'CustomResourceDefinition',
        spec: {
          redisEnterpriseVolumeMounts: {
            description:
              'additional volume mounts within the redis enterprise containers. More info: https://kubernetes.io/docs/concepts/storage/volumes/',
            type: 'array',
          },
        },
      },
    ]);
  });

  it("tags read as their plain value; dates stay text (YAML 1.2's core schema)", () => {
    assert.deepEqual(
      parseYamlDocuments(
        'a: !vault x\nb: !!binary aGk=\nc: !x {d: 1}\ne: !y [1]\nf: 2021-01-01\ng: !!str 5\n',
      ),
      [{ a: 'x', b: 'aGk=', c: { d: 1 }, e: [1], f: '2021-01-01', g: '5' }],
    );
  });

  it('aliases: a few are read, a bomb is refused before anything walks it', () => {
    const levels = (n: number) => [
      'a: &a0 [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: n },
        (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`,
      ),
      '',
    ];
    assert.equal(parseYamlDocuments(levels(2).join('\n')).length, 1);
    const bomb = levels(8).join('\n');
    assert.throws(
      () => parseYamlDocuments(bomb),
      (error: unknown) => isYamlError(error) && yamlProblem(error) === 'too many aliases',
    );
  });

  it('an unknown tag or a mapping as a key: read, and no warning printed (it would quote the line)', async () => {
    const warnings: unknown[] = [];
    const listen = (warning: unknown) => warnings.push(warning);
    process.on('warning', listen);
    try {
      assert.deepEqual(parseYamlDocuments(`a: !secret-${SECRET} x\n---\n? {p: ${SECRET}}\n: y\n`).length, 2);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    assert.deepEqual(warnings, []);
  });
});
