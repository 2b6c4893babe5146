import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { contextFilePath, contextFolders } from '../../../src/io/context-folder.js';
import { earlierPathSegment, pathSegment } from '../../../src/io/path-segment.js';
import { pinnedCaFile, trustedCaPath } from '../../../src/io/trusted-ca.js';
import { tempDir } from '../../helpers/temp.js';

/** A context of `length` characters as EKS names them. */
function contextOf(length: number): string {
  const start = 'arn:aws:eks:eu-west-1:123456789012:cluster/';
  return `${start}${'c'.repeat(length - start.length)}`;
}

describe('a context folder of an earlier ctl (before 8617bc7 cut long names)', () => {
  it('only a name of 201 to 255 characters had another folder', () => {
    assert.equal(earlierPathSegment(contextOf(200)), undefined, 'the same folder then and now');
    assert.equal(earlierPathSegment(contextOf(201)), contextOf(201).replace(/[:/]/g, '_'));
    assert.equal(earlierPathSegment(contextOf(255)), contextOf(255).replace(/[:/]/g, '_'));
    assert.equal(earlierPathSegment(contextOf(256)), undefined, 'ENAMETOOLONG then: nothing kept');
    assert.equal(pathSegment(contextOf(201)).length, 200);
    assert.deepEqual(contextFolders('/r', contextOf(100), ['ns']), [`/r/${pathSegment(contextOf(100))}/ns`]);
    assert.deepEqual(contextFolders('/r', contextOf(230), ['ns']), [
      `/r/${pathSegment(contextOf(230))}/ns`,
      `/r/${earlierPathSegment(contextOf(230))}/ns`,
    ]);
  });

  it("today's file first, the earlier one where only it exists, today's where neither does", () => {
    const root = tempDir('ctl-context-folder-');
    const context = contextOf(230);
    const today = join(root, pathSegment(context), 'ns', 'rec.json');
    const earlier = join(root, earlierPathSegment(context) ?? '', 'ns', 'rec.json');
    assert.equal(contextFilePath(root, context, ['ns', 'rec.json']), today, 'neither');
    mkdirSync(join(earlier, '..'), { recursive: true });
    writeFileSync(earlier, '{}');
    assert.equal(contextFilePath(root, context, ['ns', 'rec.json']), earlier, 'only the earlier');
    assert.equal(
      contextFilePath(root, context, ['ns', 'other.json']),
      today.replace('rec.json', 'other.json'),
    );
    mkdirSync(join(today, '..'), { recursive: true });
    writeFileSync(today, '{}');
    assert.equal(contextFilePath(root, context, ['ns', 'rec.json']), today, 'both');
  });

  it('a certificate pinned by the earlier ctl is used, and a new pin replaces it there', () => {
    const config = tempDir('ctl-context-folder-ca-');
    const env = { XDG_CONFIG_HOME: config };
    const identity = { context: contextOf(230), namespace: 'redis', cluster: 'rec' };
    const earlier = join(
      config,
      'ctl',
      'trusted',
      earlierPathSegment(identity.context) ?? '',
      'redis',
      'rec.pem',
    );
    assert.equal(pinnedCaFile({ insecure: false }, identity, env), undefined, 'nothing pinned');
    mkdirSync(join(earlier, '..'), { recursive: true });
    writeFileSync(earlier, 'PEM');
    assert.equal(pinnedCaFile({ insecure: false }, identity, env), earlier);
    assert.equal(trustedCaPath(identity, env), earlier, '`ctl auth trust` writes the pin that is read');
    assert.equal(pinnedCaFile({ insecure: true }, identity, env), undefined, '--insecure trusts no pin');
  });
});
