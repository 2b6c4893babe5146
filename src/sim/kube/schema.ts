// What the API server does with a custom resource and its CRD version's openAPIV3Schema:
// drop null fields that are not nullable and apply `default`s, prune unknown fields, then validate
// and report failures as Kubernetes field causes.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';

/** One entry of `Status.details.causes` for a 422 Invalid. */
export interface FieldCause {
  field: string;
  message: string;
  reason: string;
}

type Schema = Record<string, unknown>;
type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function schemaAt(value: unknown): Schema | undefined {
  return isObject(value) ? value : undefined;
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

/**
 * Go regular expressions (RE2) are mostly valid JavaScript ones. A pattern JavaScript cannot
 * compile is not enforced rather than making the whole CRD unusable.
 */
function lenientRegExp(pattern: string, flags: string): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch {
    try {
      return new RegExp(pattern.replace(/^\(\?i\)/, ''), `${flags}i`);
    } catch {
      return /(?:)/;
    }
  }
}
lenientRegExp.code = 'new RegExp';

function createAjv(): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    validateSchema: false,
    // The generated code of the REC schema is huge; ajv's optimisation passes double its compile time.
    code: { regExp: lenientRegExp as never, optimize: false },
  });
  // Formats the API server checks (k8s.io/kube-openapi strfmt); any other format, including
  // int32/int64/float/double, is only documentation there.
  ajvFormats.default(ajv, ['date-time', 'date', 'uri', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid', 'byte']);
  for (const format of ['int32', 'int64', 'float', 'double', 'password', 'duration', 'cidr', 'mac', '']) {
    ajv.addFormat(format, true);
  }
  return ajv;
}

let sharedAjv: Ajv | undefined;
const validators = new WeakMap<object, (obj: unknown) => FieldCause[]>();
// Compiled schemas by their JSON text: every simulator of a process (a test file starts one per
// test) applies its own copy of the same CRDs, and each copy compiled the same code again
// (~0.1 s of CPU for the cluster's schema). A compiled function depends on the schema only.
const compiledByText = new Map<string, ValidateFunction>();

/**
 * A validator for one CRD version's openAPIV3Schema. Compiling the REC schema (~500 KB) takes
 * about a second, so it happens on first use (a CRD apply registers versions nobody may ever
 * validate against), and validators are cached by schema object identity, their compiled code
 * by the schema's text.
 */
export function compileCrdValidator(schema: object): (obj: unknown) => FieldCause[] {
  const cached = validators.get(schema);
  if (cached) return cached;
  let validate: ValidateFunction | undefined;
  const validator = (obj: unknown): FieldCause[] => {
    validate ??= compiled(schema);
    return validate(obj) ? [] : toFieldCauses(validate, obj);
  };
  validators.set(schema, validator);
  return validator;
}

function compiled(schema: object): ValidateFunction {
  const text = JSON.stringify(schema);
  let validate = compiledByText.get(text);
  if (!validate) {
    sharedAjv ??= createAjv();
    validate = sharedAjv.compile(toAjvSchema(schema) as object);
    compiledByText.set(text, validate);
  }
  return validate;
}

/**
 * A copy of the schema in the form ajv understands: `x-kubernetes-int-or-string` becomes
 * "integer or string" (the CRD may or may not spell the anyOf out), and `nullable` without a
 * `type` (which ajv refuses) is dropped since it constrains nothing there.
 */
function toAjvSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toAjvSchema);
  if (!isObject(node)) return node;
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'default' || key === 'example' || key === 'enum') result[key] = value;
    else result[key] = toAjvSchema(value);
  }
  if (result['x-kubernetes-int-or-string'] === true) {
    delete result.type;
    if (result.anyOf === undefined) result.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (result.nullable !== undefined && result.type === undefined) delete result.nullable;
  return result;
}

/** The type names of Go's encoding/json view of a value, as go-openapi reports them. */
function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * `field.Error` prints values with Go's %#v-like rules: strings quoted, numbers and booleans as
 * they are, anything else as JSON.
 */
function printValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(value);
}

/**
 * The Kubernetes field path of a JSON pointer into `root`: `spec.containers[0].name`, map keys
 * as `spec.labels[key]` (the data tells arrays from maps).
 */
function fieldPathOf(root: unknown, pointer: string): string {
  if (pointer === '') return '';
  let path = '';
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      path += `[${segment}]`;
      node = node[Number(segment)];
    } else {
      path += path === '' ? segment : `.${segment}`;
      node = isObject(node) ? node[segment] : undefined;
    }
  }
  return path;
}

function valueAt(root: unknown, pointer: string): unknown {
  let node: unknown = root;
  if (pointer === '') return node;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = Array.isArray(node) ? node[Number(segment)] : isObject(node) ? node[segment] : undefined;
  }
  return node;
}

/** How go-openapi's validate names a location in its messages ("spec.nodes in body"). */
function inBody(field: string): string {
  return field === '' ? 'body' : `${field} in body`;
}

/**
 * Maps ajv errors to the causes kube-apiserver reports (apiextensions validation's
 * kubeOpenAPIResultToFieldErrors): type errors are FieldValueTypeInvalid, missing required fields
 * FieldValueRequired, enum mismatches FieldValueNotSupported, the rest FieldValueInvalid.
 */
function toFieldCauses(validate: ValidateFunction, root: unknown): FieldCause[] {
  const errors = validate.errors ?? [];
  // Branch errors of an anyOf (int-or-string) are reported once, by the anyOf itself.
  const anyOfPaths = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((e) => e.schemaPath);
  const causes: FieldCause[] = [];
  for (const error of errors) {
    if (anyOfPaths.some((path) => error.schemaPath.startsWith(`${path}/`))) continue;
    const cause = toFieldCause(error, errors, root);
    if (!causes.some((c) => c.field === cause.field && c.message === cause.message)) causes.push(cause);
  }
  return causes;
}

function toFieldCause(error: ErrorObject, all: ErrorObject[], root: unknown): FieldCause {
  const field = fieldPathOf(root, error.instancePath);
  const value = valueAt(root, error.instancePath);
  const params = error.params as Record<string, unknown>;
  const invalid = (message: string, shown: unknown = value): FieldCause => ({
    field,
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${printValue(shown)}: ${message}`,
  });
  switch (error.keyword) {
    case 'required': {
      const child = String(params.missingProperty);
      return {
        field: field === '' ? child : `${field}.${child}`,
        reason: 'FieldValueRequired',
        message: 'Required value',
      };
    }
    case 'type':
      return typeInvalid(field, String(params.type), value);
    case 'anyOf':
    case 'oneOf': {
      const branchTypes = all
        .filter((e) => e.keyword === 'type' && e.schemaPath.startsWith(`${error.schemaPath}/`))
        .map((e) => String((e.params as { type: unknown }).type));
      if (branchTypes.length > 0) return typeInvalid(field, branchTypes.join(','), value);
      return invalid(`${inBody(field)} must validate one and only one schema (oneOf)`);
    }
    case 'enum': {
      const supported = (params.allowedValues as unknown[]).map(printValue).join(', ');
      return {
        field,
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${printValue(value)}: supported values: ${supported}`,
      };
    }
    case 'pattern':
      return invalid(`${inBody(field)} should match '${String(params.pattern)}'`);
    case 'maximum':
      return invalid(`${inBody(field)} should be less than or equal to ${String(params.limit)}`);
    case 'minimum':
      return invalid(`${inBody(field)} should be greater than or equal to ${String(params.limit)}`);
    case 'exclusiveMaximum':
      return invalid(`${inBody(field)} should be less than ${String(params.limit)}`);
    case 'exclusiveMinimum':
      return invalid(`${inBody(field)} should be greater than ${String(params.limit)}`);
    case 'maxLength':
      return {
        field,
        reason: 'FieldValueTooLong',
        message: `Too long: may not be more than ${String(params.limit)} bytes`,
      };
    case 'minLength':
      return invalid(`${inBody(field)} should be at least ${String(params.limit)} chars long`);
    case 'maxItems':
      return {
        field,
        reason: 'FieldValueTooMany',
        message: `Too many: ${Array.isArray(value) ? value.length : 0}: must have at most ${String(params.limit)} items`,
      };
    case 'minItems':
      return invalid(`${inBody(field)} should have at least ${String(params.limit)} items`);
    case 'uniqueItems':
      return {
        field: `${field}[${String(params.i)}]`,
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${printValue((value as unknown[])[Number(params.i)])}`,
      };
    case 'maxProperties':
      return invalid(`${inBody(field)} should have at most ${String(params.limit)} properties`);
    case 'minProperties':
      return invalid(`${inBody(field)} should have at least ${String(params.limit)} properties`);
    case 'multipleOf':
      return invalid(`${inBody(field)} should be a multiple of ${String(params.multipleOf)}`);
    case 'format':
      return invalid(`${inBody(field)} must be of type ${String(params.format)}: ${printValue(value)}`);
    case 'additionalProperties':
      return {
        field:
          field === '' ? String(params.additionalProperty) : `${field}.${String(params.additionalProperty)}`,
        reason: 'FieldValueForbidden',
        message: 'Forbidden: additional properties are not allowed',
      };
    case 'not':
      return invalid(`${inBody(field)} must not validate the schema (not)`);
    default:
      return invalid(`${inBody(field)} ${error.message ?? 'is invalid'}`);
  }
}

function typeInvalid(field: string, expected: string, value: unknown): FieldCause {
  const actual = jsonTypeName(value);
  return {
    field,
    reason: 'FieldValueTypeInvalid',
    message: `Invalid value: "${actual}": ${inBody(field)} must be of type ${expected}: "${actual}"`,
  };
}

// ---------------------------------------------------------------------------------------------
// Pruning and defaulting
// ---------------------------------------------------------------------------------------------

/** Fields the API server handles itself at the root of every object. */
const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Removes, in place, every field the structural schema does not declare, as the API server does
 * for CRDs with pruning (all apiextensions.k8s.io/v1 CRDs): unknown fields are dropped, not
 * rejected. `x-kubernetes-preserve-unknown-fields` keeps them below its node (declared
 * properties there are still pruned recursively); `x-kubernetes-embedded-resource` keeps
 * apiVersion, kind and metadata.
 */
export function pruneUnknownFields(schema: object, obj: unknown): void {
  visitUnknownFields(schema as Schema, obj, true, '', (parent, key) => {
    delete parent[key];
  });
}

/**
 * The paths of the fields pruning would drop (`spec.foo`, `spec.items[0].bar`), in document
 * order: what `fieldValidation=Strict` rejects and `Warn` warns about.
 */
export function unknownFieldPaths(schema: object, obj: unknown): string[] {
  const paths: string[] = [];
  visitUnknownFields(schema as Schema, obj, true, '', (_parent, _key, path) => {
    paths.push(path);
  });
  return paths;
}

function visitUnknownFields(
  schema: Schema,
  value: unknown,
  isRoot: boolean,
  path: string,
  onUnknown: (parent: JsonObject, key: string, path: string) => void,
): void {
  if (Array.isArray(value)) {
    const items = schemaAt(schema.items);
    if (items) value.forEach((item, i) => visitUnknownFields(items, item, false, `${path}[${i}]`, onUnknown));
    return;
  }
  if (!isObject(value)) return;
  const properties = schemaAt(schema.properties);
  const additional = schema.additionalProperties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  for (const key of Object.keys(value)) {
    if ((isRoot || embedded) && ROOT_FIELDS.has(key)) continue;
    const child = path === '' ? key : `${path}.${key}`;
    const propertySchema = schemaAt(properties?.[key]);
    if (propertySchema) {
      visitUnknownFields(propertySchema, value[key], false, child, onUnknown);
    } else if (isObject(additional)) {
      visitUnknownFields(additional, value[key], false, child, onUnknown);
    } else if (!preserve && additional !== true) {
      onUnknown(value, key, child);
    }
  }
}

/**
 * Applies, in place, the schema's `default` values to absent fields, recursively (defaults inside
 * defaulted values apply too). Like the API server, null values of fields that are not
 * `nullable` are dropped first, so a default can take their place.
 */
export function applySchemaDefaults(schema: object, obj: unknown): void {
  defaultNode(schema as Schema, obj);
}

function defaultNode(schema: Schema, value: unknown): void {
  if (Array.isArray(value)) {
    const items = schemaAt(schema.items);
    if (items) for (const item of value) defaultNode(items, item);
    return;
  }
  if (!isObject(value)) return;
  const properties = schemaAt(schema.properties);
  if (properties) {
    for (const [key, raw] of Object.entries(properties)) {
      const propertySchema = schemaAt(raw);
      if (!propertySchema) continue;
      if (value[key] === null && propertySchema.nullable !== true) delete value[key];
      if (value[key] === undefined && propertySchema.default !== undefined) {
        value[key] = structuredClone(propertySchema.default);
      }
      if (value[key] !== undefined) defaultNode(propertySchema, value[key]);
    }
  }
  const additional = schemaAt(schema.additionalProperties);
  if (additional) {
    for (const key of Object.keys(value)) {
      if (properties && key in properties) continue;
      if (value[key] === null && additional.nullable !== true) delete value[key];
      else defaultNode(additional, value[key]);
    }
  }
}
