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

describe('scalars as Go reads them (gopkg.in/yaml.v2 resolve.go, kubectl and helm through sigs.k8s.io/yaml)', () => {
  it("every plain boolean of yaml.v2's resolveMapList is a boolean; quoted or !!str it is text", () => {
    const truths = ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'];
    const falsities = ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'];
    for (const [words, value] of [
      [truths, true],
      [falsities, false],
    ] as const) {
      for (const word of words) {
        assert.deepEqual(parseYaml(`a: ${word}\n`), { a: value }, word);
        assert.deepEqual(parseYaml(`- ${word}\n`), [value], word);
        assert.deepEqual(parseYaml(`a: !!bool ${word}\n`), { a: value }, `!!bool ${word}`);
        assert.deepEqual(parseYaml(`a: "${word}"\n`), { a: word }, `"${word}"`);
        assert.deepEqual(parseYaml(`a: '${word}'\n`), { a: word }, `'${word}'`);
        assert.deepEqual(parseYaml(`a: !!str ${word}\n`), { a: word }, `!!str ${word}`);
        // A key: sigs.k8s.io/yaml's convertToJSONableObject makes a boolean key "true" or "false".
        assert.deepEqual(parseYaml(`${word}: 1\n`), { [String(value)]: 1 }, `${word} as a key`);
      }
    }
    // Neither yaml.v2 nor YAML 1.2 reads these as booleans: other spellings, and the words inside text.
    for (const word of ['yES', 'oN', 'tRUE', 'nO', 'Yes please', 'offline', 'ny', '1 yes']) {
      assert.deepEqual(parseYaml(`a: ${word}\n`), { a: word }, word);
    }
    // Nulls are the same in both: "", ~, null, Null, NULL.
    for (const word of ['', '~', 'null', 'Null', 'NULL'])
      assert.deepEqual(parseYaml(`a: ${word}\n`), { a: null });
    // JSON's own booleans are unchanged.
    assert.deepEqual(parseYaml('{"a": true, "b": "no"}'), { a: true, b: 'no' });
  });
});

describe('yamlProblem', () => {
  it('says the line, the column and what is wrong, quoting nothing of the file', () => {
    const cases: [string, RegExp][] = [
      [
        `a: 1\nurl: "https://u:${SECRET}@h/x\n`,
        /^line 3, column 1: unexpected end of the stream within a double quoted scalar$/,
      ],
      [`a: 1\na: ${SECRET}\n`, /^line 2, column 1: duplicated mapping key$/],
      [`a:\n\t- ${SECRET}\n`, /^line 2, column 1: tab characters must not be used in indentation$/],
      [`a: "${SECRET}\\q"\n`, /^line 1, column 23: unknown escape sequence$/],
      // Reasons that quote the source itself (an alias, a tag handle) get ctl's own words.
      [`a: *${SECRET}\n`, /^line 1, column 22: an alias whose anchor is not set before it$/],
      [`a: !${SECRET}!x y\n`, /^line 1, column \d+: a tag handle no %TAG directive declares$/],
      // One document is expected: js-yaml tells no place for the second.
      // Several documents where one is expected: where the second begins (its `---`).
      [`a: 1\n---\nb: ${SECRET}\n`, /^line 2, column 1: several documents where one is expected$/],
      [
        `# c\na: 1\n\n--- # ${SECRET}\n\n  b: 2\n`,
        /^line 4, column 1: several documents where one is expected$/,
      ],
      [`a: |\n  ---\n  ${SECRET}\n---\n`, /^line 4, column 1: several documents where one is expected$/],
      [`a: 1\n...\nb: ${SECRET}\n`, /^line 3, column 1: several documents where one is expected$/],
      [
        `a: ${'['.repeat(200)}${SECRET}${']'.repeat(200)}\n`,
        /^line 1, column \d+: nesting deeper than the parser allows$/,
      ],
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

  it("an alias bomb is refused in ctl's words, before anything walks it", () => {
    // Five levels of ten aliases each: 100,000 leaves from 250 characters.
    const bomb = [
      'a0: &a0 [x, x, x, x, x, x, x, x, x, x]',
      ...[1, 2, 3, 4, 5].map(
        (i) =>
          `a${i}: &a${i} [${Array(10)
            .fill(`*a${i - 1}`)
            .join(', ')}]`,
      ),
      '',
    ].join('\n');
    assert.equal(yamlProblem(errorOf(bomb)), 'too many aliases');
    assert.ok(isYamlError(errorOf(bomb)));
    // A few aliases are no bomb.
    assert.deepEqual(parseYaml('a: &a [1, 2]\nb: [*a, *a]\n'), {
      a: [1, 2],
      b: [
        [1, 2],
        [1, 2],
      ],
    });
  });

  it('something that is no parser error: no place, and nothing of its message', () => {
    assert.equal(yamlProblem(new Error(`bad ${SECRET}`)), 'not valid YAML');
    assert.equal(yamlProblem(undefined), 'not valid YAML');
    assert.equal(isYamlError(new Error(`bad ${SECRET}`)), false);
  });
});

describe('parseYaml', () => {
  it("reads what kubectl reads: a quoted value's next line no deeper than its key (the published quoting)", () => {
    // As the published bundle.yaml quotes a description; the `yaml` package refused a --catalog,
    // --fleet or helm index written so ("missing closing 'quote").
    const text = ['- context: east', "  namespace: 'redis", "  eu'", "- context: 'west", "  eu'", ''].join(
      '\n',
    );
    assert.deepEqual(parseYaml(text), [{ context: 'east', namespace: 'redis eu' }, { context: 'west eu' }]);
  });

  it('JSON is read as JSON; an empty text is null', () => {
    assert.deepEqual(parseYaml('{\n\t"a": [1, "x"],\n\t"b": {"c": null}\n}\n'), {
      a: [1, 'x'],
      b: { c: null },
    });
    assert.equal(parseYaml(''), null);
    assert.equal(parseYaml('# nothing\n'), null);
  });

  it("YAML 1.2's core schema with Go's booleans: dates stay text, yes is true; merge keys are merged, as Go's parser does", () => {
    assert.deepEqual(parseYaml('a: 2021-01-01\nb: yes\nc: 0x1F\nd: ~\n'), {
      a: '2021-01-01',
      b: true,
      c: 31,
      d: null,
    });
    assert.deepEqual(parseYaml('base: &b {x: 1, z: 2}\nc:\n  <<: *b\n  z: 3\n'), {
      base: { x: 1, z: 2 },
      c: { x: 1, z: 3 },
    });
  });

  it('a hostile tag makes no code, no object and no pollution: its value is read as plain text', () => {
    const marker = `ctl-yaml-tag-${process.pid}`;
    const value = parseYaml(
      [
        `fn: !!js/function 'function () { globalThis["${marker}"] = 1 }'`,
        `re: !!js/regexp /${SECRET}/`,
        'undef: !<tag:yaml.org,2002:js/undefined> x',
        `py: !!python/object/apply:os.system ["touch ${marker}"]`,
        'set: !!set {a, b}',
        'bin: !!binary aGk=',
        '__proto__: {polluted: "yes"}',
        '',
      ].join('\n'),
    ) as Record<string, unknown>;
    // `__proto__` is a key like any other (JSON.parse's own property, not the prototype).
    const expected: unknown = JSON.parse(
      JSON.stringify({
        fn: `function () { globalThis["${marker}"] = 1 }`,
        re: `/${SECRET}/`,
        undef: 'x',
        py: [`touch ${marker}`],
        set: { a: null, b: null },
        bin: 'aGk=',
      }).replace(/}$/, ',"__proto__":{"polluted":"yes"}}'),
    );
    assert.deepEqual(value, expected);
    assert.equal(typeof value.fn, 'string');
    assert.equal((globalThis as Record<string, unknown>)[marker], undefined);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
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
