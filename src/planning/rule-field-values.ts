/**
 * The spec values that `field-value` release rules ask about (docs/catalog.schema.json,
 * `ruleTrigger`), read from a cluster or database resource when the snapshot is made. Only a
 * field some rule names is read, and only a value that rule lists is kept: a value the catalog
 * does not already hold (a password, a licence) never enters the snapshot, its files or its
 * messages.
 */

import type { RuleResource, RuleTrigger } from '../release/catalog-data.js';
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

function valueAt(object: KubeObject, field: string): unknown {
  let value: unknown = object;
  for (const key of field.split('.')) {
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
  const values: Record<string, Scalar> = {};
  for (const trigger of fieldValueTriggers()) {
    if (trigger.resource !== resource) continue;
    const value = valueAt(object, trigger.field);
    const listed = trigger.values.find((v) => v === value);
    if (listed !== undefined) values[trigger.field] = listed;
  }
  return Object.keys(values).length > 0 ? values : undefined;
}
