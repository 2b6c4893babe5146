import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { decodeKubeProtobuf, ProtobufDecodeError } from '../../../../src/sim/kube/protobuf.js';

// A tiny hand-written encoder, independent of the module's schema: each helper writes one field
// with its wire type (0 varint, 2 length-delimited), as Go's generated marshallers do.
type Field = (writer: protobuf.Writer) => void;

const str =
  (id: number, value: string): Field =>
  (w) =>
    w.uint32((id << 3) | 2).string(value);
const bytes =
  (id: number, value: Uint8Array): Field =>
  (w) =>
    w.uint32((id << 3) | 2).bytes(value);
const varint =
  (id: number, value: number): Field =>
  (w) =>
    w.uint32((id << 3) | 0).int64(value);
const message =
  (id: number, ...fields: Field[]): Field =>
  (w) =>
    w.uint32((id << 3) | 2).bytes(encode(...fields));
/** A protobuf map is a repeated message {key = 1, value = 2}. */
const mapEntries = (id: number, entries: Record<string, string | Uint8Array>): Field[] =>
  Object.entries(entries).map(([key, value]) =>
    message(id, str(1, key), typeof value === 'string' ? str(2, value) : bytes(2, value)),
  );

function encode(...fields: Field[]): Uint8Array {
  const writer = protobuf.Writer.create();
  for (const field of fields) field(writer);
  return writer.finish();
}

/** `k8s\0` + runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding "", contentType ""}. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const unknown = encode(message(1, str(1, apiVersion), str(2, kind)), bytes(2, raw), str(3, ''), str(4, ''));
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}

describe('decodeKubeProtobuf', () => {
  it('decodes a helm release Secret', () => {
    const release = Buffer.from('H4sIAAAAAAAC/+xYW2/bOBb+K4KeXcAkRUoYSMLP'); // helm stores base64(gzip(json))
    const raw = encode(
      message(
        1,
        str(1, 'sh.helm.release.v1.redis-enterprise.v1'),
        str(3, 'redis'),
        message(8, varint(1, 1_795_262_400)),
        ...mapEntries(11, {
          name: 'redis-enterprise',
          owner: 'helm',
          status: 'pending-install',
          version: '1',
        }),
      ),
      ...mapEntries(2, { release }),
      str(3, 'helm.sh/release.v1'),
    );
    const decoded = decodeKubeProtobuf(envelope('v1', 'Secret', raw));
    assert.equal(decoded.apiVersion, 'v1');
    assert.equal(decoded.kind, 'Secret');
    assert.deepEqual(decoded.object, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'sh.helm.release.v1.redis-enterprise.v1',
        namespace: 'redis',
        creationTimestamp: '2026-11-21T12:00:00Z',
        labels: { name: 'redis-enterprise', owner: 'helm', status: 'pending-install', version: '1' },
      },
      data: { release: release.toString('base64') },
      type: 'helm.sh/release.v1',
    });
  });

  it('decodes every ObjectMeta and Secret field the emulator stores', () => {
    const managedFields = JSON.stringify({ 'f:data': { '.': {}, 'f:release': {} } });
    const raw = encode(
      message(
        1,
        str(1, 'admission-tls'),
        str(2, 'admission-'),
        str(3, 'redis'),
        str(5, '6f1c0b8e-6a52-4f5e-9d3e-0e7f8d2c1a00'),
        str(6, '42'),
        varint(7, 3),
        message(8, varint(1, 1_795_262_400), varint(2, 500)),
        message(9, varint(1, 1_795_262_460)),
        varint(10, 30),
        ...mapEntries(12, { 'meta.helm.sh/release-name': 'redis-enterprise' }),
        message(
          13,
          str(1, 'Deployment'),
          str(3, 'redis-enterprise-operator'),
          str(4, 'uid-1'),
          str(5, 'apps/v1'),
          varint(6, 1),
          varint(7, 1),
        ),
        str(14, 'a'),
        str(14, 'b'),
        message(
          17,
          str(1, 'helm'),
          str(2, 'Update'),
          str(3, 'v1'),
          message(4, varint(1, 1_795_262_400)),
          str(6, 'FieldsV1'),
          message(7, bytes(1, Buffer.from(managedFields))),
        ),
      ),
      ...mapEntries(2, { cert: Buffer.from([0, 1, 2, 255]) }),
      ...mapEntries(4, { extra: 'plain text' }),
      varint(5, 1),
    );
    const { object } = decodeKubeProtobuf(envelope('v1', 'Secret', raw));
    assert.deepEqual(object, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'admission-tls',
        generateName: 'admission-',
        namespace: 'redis',
        uid: '6f1c0b8e-6a52-4f5e-9d3e-0e7f8d2c1a00',
        resourceVersion: '42',
        generation: 3,
        creationTimestamp: '2026-11-21T12:00:00Z',
        deletionTimestamp: '2026-11-21T12:01:00Z',
        deletionGracePeriodSeconds: 30,
        annotations: { 'meta.helm.sh/release-name': 'redis-enterprise' },
        ownerReferences: [
          {
            kind: 'Deployment',
            name: 'redis-enterprise-operator',
            uid: 'uid-1',
            apiVersion: 'apps/v1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
        finalizers: ['a', 'b'],
        managedFields: [
          {
            manager: 'helm',
            operation: 'Update',
            apiVersion: 'v1',
            time: '2026-11-21T12:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: JSON.parse(managedFields),
          },
        ],
      },
      data: { cert: 'AAEC/w==' },
      stringData: { extra: 'plain text' },
      immutable: true,
    });
  });

  it('decodes a ConfigMap with data and binaryData', () => {
    // Go marshals the unset (zero) creationTimestamp as an empty Time message.
    const raw = encode(
      message(1, str(1, 'settings'), message(8)),
      ...mapEntries(2, { mode: 'fast', empty: '' }),
      ...mapEntries(3, { blob: Buffer.from('bin') }),
      varint(4, 0),
    );
    assert.deepEqual(decodeKubeProtobuf(envelope('v1', 'ConfigMap', raw)).object, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
      data: { mode: 'fast', empty: '' },
      binaryData: { blob: Buffer.from('bin').toString('base64') },
      immutable: false,
    });
  });

  it('names other kinds without decoding them (helm sends DeleteOptions)', () => {
    const deleteOptions = encode(str(4, 'Background'));
    assert.deepEqual(decodeKubeProtobuf(envelope('meta.k8s.io/v1', 'DeleteOptions', deleteOptions)), {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'DeleteOptions',
      object: undefined,
    });
    assert.equal(decodeKubeProtobuf(envelope('apps/v1', 'Deployment', new Uint8Array())).object, undefined);
  });

  it('refuses a body without the magic prefix, or a corrupt one', () => {
    assert.throws(() => decodeKubeProtobuf(Buffer.from('{"kind":"Secret"}')), ProtobufDecodeError);
    assert.throws(() => decodeKubeProtobuf(Buffer.from('k8s')), ProtobufDecodeError);
    const truncated = envelope('v1', 'Secret', encode(message(1, str(1, 'x')))).subarray(0, 12);
    assert.throws(() => decodeKubeProtobuf(truncated), ProtobufDecodeError);
  });
});
