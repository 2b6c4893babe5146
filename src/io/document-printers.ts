// `-o name` and `-o jsonpath=...`, kubectl's habits, loaded only when asked for. A static import:
// the bundled build inlines jsonpath-plus (scripts/bundle.mjs), as it does yaml for -o yaml.
import { JSONPath } from 'jsonpath-plus';
import { UsageError } from '../errors.js';

/** Turns the JSON document (or event) a command writes into the text `-o` asked for. */
export type DocumentPrinter = (value: unknown) => string;

/**
 * `-o name`: the names a document lists, one a line, as `kubectl get -o name` prints one per
 * object: the targets of `ctl upgrade plan` without --to (newest first, so `| head -1` is the
 * recommended one when there is one), the `name` of each item of a list (`ctl sim scenarios`),
 * and the cluster resource a plan, a status or a run's last event is about. Anything else
 * (a run's progress events) has no name and prints nothing.
 */
export function namePrinter(value: unknown): string {
  return namesOf(value)
    .map((name) => `${name}\n`)
    .join('');
}

function namesOf(value: unknown): string[] {
  if (Array.isArray(value))
    return value.flatMap((item) => (typeof item?.name === 'string' ? [item.name] : []));
  if (typeof value !== 'object' || value === null) return [];
  const doc = value as Record<string, unknown>;
  if (doc.kind === 'UpgradeTargets' && Array.isArray(doc.targets)) {
    const recommended = typeof doc.recommended === 'string' ? [doc.recommended] : [];
    const others = doc.targets.flatMap((target: { operator?: unknown }) =>
      typeof target.operator === 'string' && target.operator !== doc.recommended ? [target.operator] : [],
    );
    return [...recommended, ...others];
  }
  const cluster = doc.cluster as { name?: unknown } | undefined;
  if (typeof doc.kind === 'string' && typeof cluster?.name === 'string' && cluster.name !== '')
    return [`redisenterprisecluster.app.redislabs.com/${cluster.name}`];
  return [];
}

/**
 * `-o jsonpath=<template>` as kubectl reads it: text with `{expression}` parts, each replaced
 * by what the expression finds in the document (several results space-separated, strings as
 * they are, anything else as JSON). `{.checks[?(@.status!="pass")].id}`. kubectl's `{range}`
 * is not supported. jsonpath-plus evaluates filters with its own interpreter ("safe" mode), so
 * an expression never runs as code. Checked when the flag is read: a bad one is exit 2.
 */
export function jsonPathPrinter(template: string): DocumentPrinter {
  const parts = parseTemplate(template);
  return (value) => {
    const text = parts
      .map((part) => (part.kind === 'text' ? part.text : evaluate(part.path, value)))
      .join('');
    return text.endsWith('\n') || text === '' ? text : `${text}\n`;
  };
}

type TemplatePart = { kind: 'text'; text: string } | { kind: 'path'; path: string };

export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let rest = template.replace(/^'(.*)'$/s, '$1');
  while (rest !== '') {
    const open = rest.indexOf('{');
    if (open < 0) {
      parts.push({ kind: 'text', text: rest });
      break;
    }
    if (open > 0) parts.push({ kind: 'text', text: rest.slice(0, open) });
    const close = rest.indexOf('}', open);
    if (close < 0) throw badTemplate(template, 'a { without its }');
    const expression = rest.slice(open + 1, close).trim();
    if (/^(range|end)\b/.test(expression)) throw badTemplate(template, `{${expression}} is not supported`);
    if (!/^[.$@[]/.test(expression))
      throw badTemplate(template, `{${expression}} does not start with . or $`);
    parts.push({ kind: 'path', path: expression.startsWith('$') ? expression : `$${expression}` });
    rest = rest.slice(close + 1);
  }
  if (!parts.some((part) => part.kind === 'path')) throw badTemplate(template, 'no {expression} in it');
  return parts;
}

function evaluate(path: string, value: unknown): string {
  const found = JSONPath({ path, json: value as object, wrap: true, eval: 'safe' }) as unknown[];
  return found.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(' ');
}

function badTemplate(template: string, why: string): UsageError {
  return new UsageError(`-o jsonpath: "${template}": ${why}`, {
    hint: `Use e.g. -o jsonpath='{.checks[?(@.status!="pass")].id}' (kubectl's form, without {range}).`,
  });
}
