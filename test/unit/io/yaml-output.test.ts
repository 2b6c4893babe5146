/**
 * `-o yaml` (src/io/yaml-output.ts) carries text from outside as safely as `-o json`: no raw
 * control or bidi character, no line a GitHub runner would obey after trimming the indentation
 * (`::error::`, `::add-mask::`, `##[error]`), and the same data to a YAML reader.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { toYaml } from '../../../src/io/yaml-output.js';
import { hasUnsafeChar } from '../../../src/io/safe-text.js';

const HOSTILE = [
  '::error::pwned',
  'line one\n::add-mask::secret\n  ::error title=x::y',
  '##[error]old form',
  'name ##[warning]inside',
  '\u202etxt.exe',
  'esc\u001b[2J\u001b]0;title\u0007',
  'nel\u0085ls\u2028ps\u2029bom\ufeff',
  'tab\tcr\r',
  '  ::notice::leading spaces',
  ':: ::',
];

describe('toYaml', () => {
  const value = {
    checks: HOSTILE.map((message, i) => ({ id: `c${i}`, message })),
    keys: Object.fromEntries(HOSTILE.map((text, i) => [text, i])),
    list: HOSTILE,
    plain: 'a plain value',
    number: 3,
  };
  const yaml = toYaml(value);

  it('writes no raw control or bidi character', () => {
    assert.equal(hasUnsafeChar(yaml, true), false, JSON.stringify(yaml));
  });

  it('writes no line a GitHub runner would obey', () => {
    for (const line of yaml.split('\n')) {
      assert.doesNotMatch(line, /^\s*::/, JSON.stringify(line));
      assert.ok(!line.includes('##['), JSON.stringify(line));
    }
  });

  it('is the same data to a YAML reader', () => {
    assert.deepEqual(parse(yaml), value);
  });

  it('leaves plain values plain', () => {
    assert.match(yaml, /^plain: a plain value$/m);
    assert.match(yaml, /^number: 3$/m);
  });
});
