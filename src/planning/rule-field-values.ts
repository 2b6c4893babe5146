/**
 * The spec values that `field-value` release rules ask about (docs/catalog.schema.json,
 * `ruleTrigger`), read from a cluster or database resource when the snapshot is made. Only a
 * field some rule names is read, and only a value that rule lists is kept: a value the catalog
 * does not already hold (a password, a licence) never enters the snapshot, its files or its
 * messages.
 */

import { catalogGeneration, type RuleResource, type RuleTrigger } from '../release/catalog-data.js';
import type { KubeObject } from '../kube/reads.js';
import { allRules } from '../release/rules.js';

type Scalar = string | number | boolean;

/** Every field-value trigger of the active catalog's rules, nested `all-of` included. */
function fieldValueTriggers(): Extract<RuleTrigger, { kind: 'field-value' }>[] {
  const found: Extract<RuleTrigger, { kind: 'field-value' }>[] = [];
  const visit = (trigger: RuleTrigger) => {
    if (trigger.kind === 'field-value') found.push(trigger);
    else if (trigger.kind === 'all-of') trigger.triggers.forEach(visit);
  };
  for (const rule of allRules()) rule.triggers.forEach(visit);
  return found;
}

/** A field-value trigger with its field's path split once. */
interface FieldTrigger {
  field: string;
  path: string[];
  values: readonly Scalar[];
}

/**
 * The triggers by resource, made once per catalog (catalogGeneration): the snapshot asks for
 * each of 10,000 database resources, and walking the rules and splitting their fields for each
 * was a tenth of the snapshot's time.
 */
let triggersByResource: { generation: number; of: Map<RuleResource, FieldTrigger[]> } | undefined;

function triggersFor(resource: RuleResource): FieldTrigger[] {
  const generation = catalogGeneration();
  if (triggersByResource?.generation !== generation) {
    const of = new Map<RuleResource, FieldTrigger[]>();
    for (const trigger of fieldValueTriggers()) {
      const list = of.get(trigger.resource) ?? [];
      list.push({ field: trigger.field, path: trigger.field.split('.'), values: trigger.values });
      of.set(trigger.resource, list);
    }
    triggersByResource = { generation, of };
  }
  return triggersByResource.of.get(resource) ?? [];
}

function valueAt(object: KubeObject, path: readonly string[]): unknown {
  let value: unknown = object;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * The fields of `object` (a `resource`) whose value is one a rule lists: `{ 'spec.type':
 * 'memcached' }`; undefined when no rule asks about this resource or nothing matches.
 */
export function ruleFieldValuesOf(
  object: KubeObject,
  resource: RuleResource,
): Record<string, Scalar> | undefined {
  let values: Record<string, Scalar> | undefined;
  for (const trigger of triggersFor(resource)) {
    const value = valueAt(object, trigger.path);
    const listed = trigger.values.find((v) => v === value);
    if (listed !== undefined) (values ??= {})[trigger.field] = listed;
  }
  return values;
}
