import { badRequest } from './status.js';
import { isRecord, type KubeObject } from './types.js';

/** A parsed selector: a predicate over an object. */
export type ObjectPredicate = (object: KubeObject) => boolean;

const matchAll: ObjectPredicate = () => true;

/**
 * Label selectors as kubectl and client-go send them: `a=b`, `a==b`, `a!=b`, `a`, `!a`,
 * `a in (x,y)`, `a notin (x)`, comma-separated (commas inside parentheses belong to the set).
 */
export function parseLabelSelector(selector: string | undefined | null): ObjectPredicate {
  if (!selector?.trim()) return matchAll;
  const requirements = splitTopLevel(selector).map(parseLabelRequirement);
  return (object) => {
    const labels = object.metadata.labels ?? {};
    return requirements.every((req) => req(labels));
  };
}

function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else {
      current += char;
    }
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

type LabelRequirement = (labels: Record<string, string>) => boolean;

function parseLabelRequirement(text: string): LabelRequirement {
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text);
  if (set) {
    const [, key, op, list] = set as unknown as [string, string, string, string];
    const values = list
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    return op === 'in'
      ? (labels) => key in labels && values.includes(labels[key] as string)
      : (labels) => !(key in labels) || !values.includes(labels[key] as string);
  }
  const comparison = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(text);
  if (comparison) {
    const [, key, op, value] = comparison as unknown as [string, string, string, string];
    return op === '!=' ? (labels) => labels[key] !== value : (labels) => labels[key] === value;
  }
  if (text.startsWith('!')) {
    const key = text.slice(1).trim();
    return (labels) => !(key in labels);
  }
  if (/^[^\s=!(),]+$/.test(text)) return (labels) => text in labels;
  throw badRequest(`unable to parse requirement: found '${text}', expected: identifier`);
}

/** Field selectors: `metadata.name=x`, `metadata.namespace!=y`, any dotted path with = / == / !=. */
export function parseFieldSelector(selector: string | undefined | null): ObjectPredicate {
  if (!selector?.trim()) return matchAll;
  const requirements = selector.split(',').map((part) => {
    const m = /^\s*([^!=\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (!m) throw badRequest(`invalid field selector: '${part}'`);
    const [, path, op, value] = m as unknown as [string, string, string, string];
    return (object: KubeObject) => {
      const actual = fieldValue(object, path);
      return op === '!=' ? actual !== value : actual === value;
    };
  });
  return (object) => requirements.every((req) => req(object));
}

function fieldValue(object: KubeObject, path: string): string {
  let current: unknown = object;
  for (const segment of path.split('.')) {
    if (!isRecord(current)) return '';
    current = current[segment];
  }
  return current === undefined || current === null ? '' : String(current);
}

/** A LabelSelector object (matchLabels + matchExpressions) as used by workloads. */
export function labelSelectorObjectMatches(
  selector: unknown,
  labels: Record<string, string> | undefined,
): boolean {
  if (!isRecord(selector)) return false;
  const have = labels ?? {};
  const matchLabels = isRecord(selector.matchLabels) ? selector.matchLabels : {};
  for (const [key, value] of Object.entries(matchLabels)) if (have[key] !== value) return false;
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const expr of expressions) {
    if (!isRecord(expr)) continue;
    const key = String(expr.key);
    const values = Array.isArray(expr.values) ? expr.values.map(String) : [];
    const present = key in have;
    switch (expr.operator) {
      case 'In':
        if (!present || !values.includes(have[key] as string)) return false;
        break;
      case 'NotIn':
        if (present && values.includes(have[key] as string)) return false;
        break;
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
    }
  }
  return true;
}
