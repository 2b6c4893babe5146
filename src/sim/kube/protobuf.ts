// Request bodies in `application/vnd.kubernetes.protobuf`: client-go 1.32+ typed clients (helm
// 3.17+/4 storing its release Secrets) send them and do not fall back to JSON on a 415. Only the
// kinds the emulator needs are decoded into their JSON form; replies stay JSON.
import protobuf from 'protobufjs';

/** The magic prefix of every Kubernetes protobuf body ("k8s" + NUL). */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export class ProtobufDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

/**
 * The messages involved, with the field numbers of k8s.io/apimachinery's runtime and meta/v1
 * generated.proto and k8s.io/api/core/v1/generated.proto. Fields not listed are skipped.
 */
const root = protobuf.Root.fromJSON({
  nested: {
    Unknown: {
      fields: {
        typeMeta: { type: 'TypeMeta', id: 1 },
        raw: { type: 'bytes', id: 2 },
        contentEncoding: { type: 'string', id: 3 },
        contentType: { type: 'string', id: 4 },
      },
    },
    TypeMeta: { fields: { apiVersion: { type: 'string', id: 1 }, kind: { type: 'string', id: 2 } } },
    Time: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
    OwnerReference: {
      fields: {
        kind: { type: 'string', id: 1 },
        name: { type: 'string', id: 3 },
        uid: { type: 'string', id: 4 },
        apiVersion: { type: 'string', id: 5 },
        controller: { type: 'bool', id: 6 },
        blockOwnerDeletion: { type: 'bool', id: 7 },
      },
    },
    FieldsV1: { fields: { Raw: { type: 'bytes', id: 1 } } },
    ManagedFieldsEntry: {
      fields: {
        manager: { type: 'string', id: 1 },
        operation: { type: 'string', id: 2 },
        apiVersion: { type: 'string', id: 3 },
        time: { type: 'Time', id: 4 },
        fieldsType: { type: 'string', id: 6 },
        fieldsV1: { type: 'FieldsV1', id: 7 },
        subresource: { type: 'string', id: 8 },
      },
    },
    ObjectMeta: {
      fields: {
        name: { type: 'string', id: 1 },
        generateName: { type: 'string', id: 2 },
        namespace: { type: 'string', id: 3 },
        selfLink: { type: 'string', id: 4 },
        uid: { type: 'string', id: 5 },
        resourceVersion: { type: 'string', id: 6 },
        generation: { type: 'int64', id: 7 },
        creationTimestamp: { type: 'Time', id: 8 },
        deletionTimestamp: { type: 'Time', id: 9 },
        deletionGracePeriodSeconds: { type: 'int64', id: 10 },
        labels: { keyType: 'string', type: 'string', id: 11 },
        annotations: { keyType: 'string', type: 'string', id: 12 },
        ownerReferences: { rule: 'repeated', type: 'OwnerReference', id: 13 },
        finalizers: { rule: 'repeated', type: 'string', id: 14 },
        managedFields: { rule: 'repeated', type: 'ManagedFieldsEntry', id: 17 },
      },
    },
    Secret: {
      fields: {
        metadata: { type: 'ObjectMeta', id: 1 },
        data: { keyType: 'string', type: 'bytes', id: 2 },
        type: { type: 'string', id: 3 },
        stringData: { keyType: 'string', type: 'string', id: 4 },
        immutable: { type: 'bool', id: 5 },
      },
    },
    ConfigMap: {
      fields: {
        metadata: { type: 'ObjectMeta', id: 1 },
        data: { keyType: 'string', type: 'string', id: 2 },
        binaryData: { keyType: 'string', type: 'bytes', id: 3 },
        immutable: { type: 'bool', id: 4 },
      },
    },
  },
} as protobuf.INamespace);

const UnknownType = root.lookupType('Unknown');
const DECODABLE: Readonly<Record<string, protobuf.Type>> = {
  'v1/Secret': root.lookupType('Secret'),
  'v1/ConfigMap': root.lookupType('ConfigMap'),
};

/**
 * Decodes a Kubernetes protobuf body: the `k8s\0` magic, then a runtime.Unknown envelope whose
 * `raw` holds the object. v1 Secrets and ConfigMaps come back in their JSON form; any other kind
 * (DeleteOptions, say) gives `object: undefined`.
 */
export function decodeKubeProtobuf(body: Buffer): {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown> | undefined;
} {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new ProtobufDecodeError('provided object is not a protobuf message: missing the k8s magic prefix');
  }
  let envelope: Record<string, unknown>;
  try {
    envelope = toPlain(UnknownType, UnknownType.decode(body.subarray(MAGIC.length)));
  } catch (error) {
    throw new ProtobufDecodeError(`cannot decode the protobuf envelope: ${(error as Error).message}`);
  }
  const typeMeta = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const apiVersion = typeMeta.apiVersion ?? '';
  const kind = typeMeta.kind ?? '';
  if (envelope.contentEncoding) {
    throw new ProtobufDecodeError(
      `unsupported protobuf content encoding "${String(envelope.contentEncoding)}"`,
    );
  }
  const type = DECODABLE[`${apiVersion}/${kind}`];
  if (!type) return { apiVersion, kind, object: undefined };
  const raw = envelope.raw instanceof Uint8Array ? envelope.raw : new Uint8Array();
  let message: Record<string, unknown>;
  try {
    message = toPlain(type, type.decode(raw));
  } catch (error) {
    throw new ProtobufDecodeError(`cannot decode ${apiVersion} ${kind}: ${(error as Error).message}`);
  }
  return { apiVersion, kind, object: { apiVersion, kind, ...toJsonForm(message) } };
}

function toPlain(type: protobuf.Type, message: protobuf.Message): Record<string, unknown> {
  // Bytes stay Uint8Array; 64-bit integers become numbers (generations and seconds fit).
  return type.toObject(message, { longs: Number, defaults: false, arrays: false, objects: false });
}

/** Converts decoded protobuf values into the Kubernetes JSON representation. */
function toJsonForm(message: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) {
    result[key] = key === 'metadata' ? objectMetaToJson(value as Record<string, unknown>) : jsonValue(value);
  }
  return result;
}

function objectMetaToJson(meta: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) {
    if (key === 'creationTimestamp' || key === 'deletionTimestamp') {
      // Go always marshals the non-pointer creationTimestamp, as an empty Time when unset; JSON
      // would say null. The field is left out, for the server to set.
      const time = value as { seconds?: number };
      if (time.seconds) result[key] = timeToJson(time);
    } else if (key === 'managedFields') {
      result[key] = (value as Record<string, unknown>[]).map(managedFieldsEntryToJson);
    } else {
      result[key] = jsonValue(value);
    }
  }
  return result;
}

function managedFieldsEntryToJson(entry: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (key === 'time') {
      result.time = timeToJson(value as { seconds?: number });
    } else if (key === 'fieldsV1') {
      const raw = (value as { Raw?: Uint8Array }).Raw;
      result.fieldsV1 = raw ? JSON.parse(Buffer.from(raw).toString('utf8')) : {};
    } else {
      result[key] = value;
    }
  }
  return result;
}

/** metav1.Time marshals to RFC 3339 in UTC with whole seconds. */
function timeToJson(time: { seconds?: number }): string {
  return new Date((time.seconds ?? 0) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Bytes become base64 strings, as `[]byte` fields marshal in JSON. */
function jsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(jsonValue);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonValue(v)]));
  }
  return value;
}
