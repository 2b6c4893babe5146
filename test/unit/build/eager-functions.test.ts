import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../../bench/lib.js';

interface EagerFunctions {
  eagerTopLevelFunctions(source: string, file: string): string;
  inImportCycles(graph: Map<string, string[]>): Set<string>;
}

async function eager(): Promise<EagerFunctions> {
  return (await import(
    pathToFileURL(path.join(repoRoot, 'scripts', 'eager-functions.mjs')).href
  )) as EagerFunctions;
}

/** A module's exports, from its text (no relative imports), loaded as a data: URL. */
async function load(source: string): Promise<Record<string, unknown>> {
  return (await import(`data:text/javascript,${encodeURIComponent(source)}`)) as Record<string, unknown>;
}

/**
 * The bundle's eagerly compiled functions (scripts/eager-functions.mjs, used by
 * scripts/bundle.mjs): top-level function declarations become parenthesised function expressions
 * at the top of their module, with the module's behaviour unchanged, and the build fails where
 * that cannot be proven.
 */
describe('top-level functions compiled eagerly (the bundle)', () => {
  it('rewrites each top-level function, and the module behaves the same', async () => {
    const { eagerTopLevelFunctions } = await eager();
    const source = [
      '// a call before the declaration: declarations are hoisted, the rewrite moves definitions up',
      'export const early = twice(2);',
      'export function twice(n) {',
      '  const inner = function () { return n; };',
      '  return helper(inner()) * 2 / 2 * 2;',
      '}',
      'function helper(x) {',
      '  if (x) {',
      '    return x;',
      '  }',
      '  return 0;',
      '}',
      'export async function later() { return `a ${twice(1)}`; }',
      'export function* counter() { yield 1; yield 2; }',
      'export const names = [twice.name, helper.name, later.name, counter.name];',
    ].join('\n');
    const rewritten = eagerTopLevelFunctions(source, 'example.js');
    assert.match(rewritten, /^var twice = \(function \(n\) \{/m);
    assert.match(rewritten, /^var later = \(async function \(\) \{/m);
    assert.match(rewritten, /^var counter = \(function\* \(\) \{/m);
    assert.doesNotMatch(rewritten, /^(async )?function/m);
    const before = await load(source);
    const after = await load(rewritten);
    assert.equal(after.early, before.early);
    assert.deepEqual(after.names, before.names);
    assert.equal(await (after.later as () => Promise<string>)(), 'a 2');
    assert.deepEqual([...(after.counter as () => Iterable<number>)()], [1, 2]);
  });

  it('fails on a line of template text that reads as a top-level function', async () => {
    const { eagerTopLevelFunctions } = await eager();
    const source = [
      'export const text = `',
      'function fake() {',
      '}',
      '`;',
      'export function real() {}',
    ].join('\n');
    assert.throws(
      () => eagerTopLevelFunctions(source, 'template.js'),
      /cannot tell its top-level functions apart/,
    );
  });

  it('finds the modules in a cycle of imports, and only those', async () => {
    const { inImportCycles } = await eager();
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ]);
    assert.deepEqual([...inImportCycles(graph)].sort(), ['a', 'b', 'c', 'e']);
  });
});
