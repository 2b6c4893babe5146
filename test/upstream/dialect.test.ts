import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseDocument } from 'yaml';
import { dialectFromCrd } from '../../src/kube/dialect.js';
import type { KubeObject } from '../../src/kube/reads.js';
import { upstreamFile } from './support.js';

describe('dialect detection with the upstream CRD', () => {
  it('the upstream cluster CRD is the redis dialect', () => {
    // One description in it is not valid YAML to the `yaml` package (Go's parser takes it);
    // parseDocument still builds the whole tree.
    const upstream = parseDocument(readFileSync(upstreamFile('crd-rec.yaml'), 'utf8')).toJS() as KubeObject;
    assert.equal(dialectFromCrd(upstream), 'redis');
  });
});
