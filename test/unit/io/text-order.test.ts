import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareNatural, compareText, groupThousands } from '../../../src/io/text-order.js';

/** Generated Kubernetes-like names: lowercase letters, digits, `-`, `.`, and `/` between two names. */
function names(count: number, seed: number): string[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const alphabet = 'abcz0129-.';
  const word = () => {
    const length = 1 + next(8);
    let text = '';
    for (let i = 0; i < length; i++) text += alphabet[next(alphabet.length)];
    return text;
  };
  return Array.from({ length: count }, () => (next(3) === 0 ? `${word()}/${word()}` : word()));
}

describe('text order without ICU (issue 39: ICU initialises in 5-9 ms)', () => {
  it('orders Kubernetes names as localeCompare does', () => {
    const list = names(3000, 7);
    // ICU's root collation can differ from code units where two names differ only in punctuation
    // weights it ignores at the first level; compare those whose ICU order is strict both ways.
    for (let i = 1; i < list.length; i++) {
      const a = list[i - 1] as string;
      const b = list[i] as string;
      const icu = Math.sign(a.localeCompare(b));
      if (icu === 0) continue;
      assert.equal(Math.sign(compareText(a, b)), icu, `${a} vs ${b}`);
    }
  });

  it('orders numbers in names by value, as localeCompare with numeric: true does', () => {
    const pods = ['rec-10', 'rec-2', 'rec-1', 'rec-0', 'rec-100', 'rec-9', 'other-3', 'rec'];
    const icu = [...pods].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    assert.deepEqual([...pods].sort(compareNatural), icu);
    assert.deepEqual([...pods].sort(compareNatural), [
      'other-3',
      'rec',
      'rec-0',
      'rec-1',
      'rec-2',
      'rec-9',
      'rec-10',
      'rec-100',
    ]);
  });

  it('orders generated names with digit runs as localeCompare with numeric: true does', () => {
    const list = names(3000, 11).filter((n) => !/(^|[^\d])0\d/.test(n));
    const icu = [...list].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }) || compareText(a, b));
    assert.deepEqual([...list].sort(compareNatural), icu);
  });

  it('groups thousands as toLocaleString("en-US") does for integers', () => {
    for (const n of [0, 7, 999, 1000, 2990, 12345, 1234567, -4321, 1e12]) {
      assert.equal(groupThousands(n), n.toLocaleString('en-US'));
    }
  });
});
