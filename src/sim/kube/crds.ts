import { CRUD_VERBS, type ResourceRegistry, type ResourceType } from './registry.js';
import { applySchemaDefaults, compileCrdValidator, pruneUnknownFields, unknownFieldPaths } from './schema.js';
import type { ChangeEvent, KubeStore } from './store.js';
import { type FieldCause, isRecord, type KubeObject, type PrinterColumn } from './types.js';

/** The resource types one CustomResourceDefinition serves: one per served version. */
export function resourceTypesOfCrd(crd: KubeObject): ResourceType[] {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const group = String(spec.group ?? '');
  const kind = String(names.kind ?? '');
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  return versions
    .filter((v) => v.served !== false)
    .map((version) => {
      const schema =
        isRecord(version.schema) && isRecord(version.schema.openAPIV3Schema)
          ? version.schema.openAPIV3Schema
          : undefined;
      const subresources = isRecord(version.subresources) ? Object.keys(version.subresources) : [];
      const validator = schema ? compileCrdValidator(schema) : undefined;
      const rt: ResourceType = {
        group,
        version: String(version.name),
        kind,
        listKind: String(names.listKind ?? `${kind}List`),
        plural: String(names.plural ?? ''),
        singular: String(names.singular ?? kind.toLowerCase()),
        namespaced: spec.scope !== 'Cluster',
        shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
        categories: Array.isArray(names.categories) ? names.categories.map(String) : [],
        verbs: CRUD_VERBS,
        subresources: subresources.filter((s) => s === 'status' || s === 'scale'),
        builtin: false,
        printerColumns: Array.isArray(version.additionalPrinterColumns)
          ? (version.additionalPrinterColumns.filter(isRecord) as unknown as PrinterColumn[])
          : undefined,
      };
      if (schema) {
        rt.schema = schema;
        // Structural schemas prune unknown fields, then default, as the real server does.
        rt.applyDefaults = (object) => {
          pruneUnknownFields(schema, object);
          applySchemaDefaults(schema, object);
        };
        rt.unknownFields = (object) => unknownFieldPaths(schema, object);
      }
      if (validator) rt.validate = (object) => validator(object);
      return rt;
    });
}

/** The checks the real server makes before it accepts a CRD, reduced to the naming rules. */
export function validateCustomResourceDefinition(crd: KubeObject): FieldCause[] {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const causes: FieldCause[] = [];
  const expected = `${String(names.plural ?? '')}.${String(spec.group ?? '')}`;
  if (crd.metadata.name !== expected) {
    causes.push({
      field: 'metadata.name',
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group`,
    });
  }
  if (!names.kind)
    causes.push({ field: 'spec.names.kind', reason: 'FieldValueRequired', message: 'Required value' });
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  if (versions.length === 0)
    causes.push({ field: 'spec.versions', reason: 'FieldValueRequired', message: 'Required value' });
  else if (versions.filter((v) => v.storage === true).length !== 1) {
    causes.push({
      field: 'spec.versions',
      reason: 'FieldValueInvalid',
      message: 'Invalid value: must have exactly one version marked as storage version',
    });
  }
  return causes;
}

/**
 * Keeps the registry in step with stored CRDs: a created or changed CRD serves its versions at
 * once (the real server establishes it within milliseconds); a deleted one takes its custom
 * resources with it.
 */
export function syncCrdsWithRegistry(store: KubeStore, registry: ResourceRegistry): void {
  store.on('change', (event: ChangeEvent) => {
    if (event.resource.kind !== 'CustomResourceDefinition' || event.resource.group !== 'apiextensions.k8s.io')
      return;
    const spec = isRecord(event.object.spec) ? event.object.spec : {};
    const group = String(spec.group ?? '');
    const plural = String((isRecord(spec.names) ? spec.names.plural : '') ?? '');
    if (event.type === 'DELETED') {
      const served = registry.versionsOf(group, plural)[0];
      if (served)
        for (const object of store.all(served))
          store.delete(served, object.metadata.namespace, object.metadata.name ?? '');
      registry.unregister(group, plural);
      return;
    }
    if (event.type === 'MODIFIED' && event.oldObject && sameServing(event.oldObject, event.object)) return;
    registry.unregister(group, plural);
    for (const rt of resourceTypesOfCrd(event.object)) registry.register(rt);
  });
}

function sameServing(a: KubeObject, b: KubeObject): boolean {
  return JSON.stringify(a.spec) === JSON.stringify(b.spec);
}
