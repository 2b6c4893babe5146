/**
 * Turns schema issues and cross-field problems into one ScenarioError whose every line reads
 * `<file>: <field>: <reason> (line N)`, so a user can go straight to the spot.
 */

import type { Document, LineCounter } from 'yaml';
import type * as z from 'zod';
import { ScenarioError } from '../world/errors.js';
import type { FieldPath, Problem } from './expand.js';

/** `['databases', 0, 'modules', 1, 'name']` -> `databases[0].modules[1].name`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) text += typeof key === 'number' ? `[${key}]` : `${text ? '.' : ''}${String(key)}`;
  return text || '(top level)';
}

export function problemsFromIssues(issues: readonly z.core.$ZodIssue[], raw: unknown): Problem[] {
  return issues.flatMap((issue): Problem[] => {
    const path = issue.path as FieldPath;
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ path: [...path, key], message: 'unknown field' }));
    return [{ path, message: reasonFor(issue, valueAt(raw, path), isSecretField(path)) }];
  });
}

/**
 * A field whose value is a credential (cluster.users[].password): a problem with it names its
 * kind (a number, a list), never the value, which the user may have typed for real.
 */
function isSecretField(path: FieldPath): boolean {
  const last = path[path.length - 1];
  return typeof last === 'string' && /password|secret|token/i.test(last);
}

function reasonFor(issue: z.core.$ZodIssue, value: unknown, secret: boolean): string {
  const show = (shown: unknown) => (secret ? kindOf(shown) : showValue(shown));
  switch (issue.code) {
    case 'invalid_type': {
      if (value === undefined) return 'required field is missing';
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      // YAML reads an unquoted 7.20 as the number 7.2: the quotes are the fix, so say so.
      if (issue.expected === 'string' && typeof value === 'number')
        return secret
          ? `expected ${expected}, got a number: put the value in quotes`
          : `expected ${expected}, got the number ${value}: put the value in quotes, such as "7.2"`;
      return `expected ${expected}, got ${show(value)}`;
    }
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}; got ${show(value)}`;
    case 'too_small':
      if (issue.origin === 'array')
        return `expected at least ${issue.minimum} entr${issue.minimum === 1 ? 'y' : 'ies'}`;
      if (issue.origin === 'string')
        return `expected at least ${issue.minimum} character(s), got ${show(value)}`;
      return `expected ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}, got ${show(value)}`;
    case 'too_big':
      if (issue.origin === 'string')
        return `expected at most ${issue.maximum} characters, got ${show(value)}`;
      return `expected ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}, got ${show(value)}`;
    case 'invalid_format':
      return `${issue.message}, got ${show(value)}`;
    default:
      return `${issue.message}${value === undefined ? '' : `, got ${show(value)}`}`;
  }
}

const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  null: 'null',
};

function showValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'a mapping';
  return JSON.stringify(value) ?? String(value);
}

/** What a value is, not what it says: `a number`, `a string`, `a list`. */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'boolean') return 'true or false';
  return `a ${typeof value}`;
}

function valueAt(root: unknown, path: FieldPath): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** The line of the deepest node of `path` the document has (the parent when the field is missing). */
function lineOf(doc: Document, lines: LineCounter, path: FieldPath): number | undefined {
  for (let depth = path.length; depth >= 1; depth--) {
    const node = doc.getIn(path.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return lines.linePos(node.range[0]).line;
  }
  return undefined;
}

export function scenarioError(
  sourceName: string,
  problems: Problem[],
  source?: { doc: Document; lines: LineCounter },
): ScenarioError {
  const messages = problems.map((problem) => {
    const line = source ? lineOf(source.doc, source.lines, problem.path) : undefined;
    return `${sourceName}: ${formatFieldPath(problem.path)}: ${problem.message}${line ? ` (line ${line})` : ''}`;
  });
  return new ScenarioError(messages.join('\n'), {
    hint: 'Fix the scenario file (see `ctl sim scenarios` for working examples), then run again.',
  });
}
