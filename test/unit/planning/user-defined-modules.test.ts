/**
 * `--user-defined-modules <file>` (src/planning/user-defined-modules.ts): the file's shape is the
 * cluster resource's own (name, source.https.url, optional credentialsSecret), read like every
 * input file (regular files only, bounded), with no credentials in a URL; and the list the
 * cluster step writes keeps what the cluster resource already lists.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { loadUserDefinedModules } from '../../../src/planning/user-defined-modules.js';
import {
  listsEveryModule,
  mergedUserDefinedModules,
} from '../../../src/planning/user-defined-modules-patch.js';
import { tempDir } from '../../helpers/temp.js';

const dir = tempDir('ctl-udm-unit-');
let n = 0;
function file(text: string): string {
  const name = path.join(dir, `list-${++n}.yaml`);
  writeFileSync(name, text);
  return name;
}

async function refused(location: string, pattern: RegExp): Promise<void> {
  await assert.rejects(loadUserDefinedModules(location), (error: unknown) => {
    assert.ok(error instanceof UsageError, String(error));
    assert.match(error.message, pattern);
    return true;
  });
}

describe('--user-defined-modules file', () => {
  it('reads a YAML or JSON list in the REC shape', async () => {
    const yaml = file(
      '- name: quillmark\n  source:\n    https:\n      url: https://mirror.example/quillmark-rhel9.zip\n      credentialsSecret: mirror-creds\n- name: Tallyho\n  source: { https: { url: "https://mirror.example/t.zip" } }\n',
    );
    assert.deepEqual(await loadUserDefinedModules(yaml), [
      {
        name: 'quillmark',
        source: {
          https: { url: 'https://mirror.example/quillmark-rhel9.zip', credentialsSecret: 'mirror-creds' },
        },
      },
      { name: 'Tallyho', source: { https: { url: 'https://mirror.example/t.zip' } } },
    ]);
    const json = file(JSON.stringify([{ name: 'q', source: { https: { url: 'https://h/q.zip' } } }]));
    assert.equal((await loadUserDefinedModules(json)).length, 1);
  });

  it('refuses a bad shape, naming what is wrong', async () => {
    await refused(file('name: quillmark\n'), /not a list of user-defined modules/);
    await refused(file('[]\n'), /an empty list/);
    await refused(file('- name: q\n'), /0\.source/);
    await refused(file('- { name: q, source: { https: { url: "http://h/q.zip" } } }\n'), /https:\/\/ URL/);
    await refused(file('- { name: q, source: { https: { url: "https://h/q.zip" } }, extra: 1 }\n'), /extra/);
    await refused(
      file(
        '- { name: q, source: { https: { url: "https://h/a.zip" } } }\n- { name: q, source: { https: { url: "https://h/b.zip" } } }\n',
      ),
      /listed twice/,
    );
    await refused(
      file('- { name: "q; rm -rf", source: { https: { url: "https://h/q.zip" } } }\n'),
      /0\.name/,
    );
    await refused(
      file('- { name: q, source: { https: { url: "https://h/q.zip", credentialsSecret: "Not A Name" } } }\n'),
      /credentialsSecret/,
    );
    await refused(file('- [unclosed\n'), /neither JSON nor YAML/);
  });

  it('refuses credentials in a URL, without printing them', async () => {
    for (const url of ['https://alice:hunter2@h/q.zip', 'https://h/q.zip?X-Amz-Signature=hunter2']) {
      await assert.rejects(
        loadUserDefinedModules(file(`- { name: q, source: { https: { url: "${url}" } } }\n`)),
        (error: unknown) => {
          assert.ok(error instanceof UsageError);
          assert.match(error.message, /without credentials/);
          assert.doesNotMatch(`${error.message} ${error.hint ?? ''}`, /hunter2/);
          return true;
        },
      );
    }
  });

  it('reads regular files only, within 256 KiB; not a URL', async () => {
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await refused(fifo, /it is a FIFO \(named pipe\), not a regular file/);
    await refused(dir, /it is a directory/);
    const big = file('');
    truncateSync(big, 300 * 1024);
    await refused(big, /it is 300 KiB, larger than 256 KiB, the limit for --user-defined-modules/);
    await refused(path.join(dir, 'absent.yaml'), /no such file/);
    await refused('https://h/list.yaml', /a file is expected, not a URL/);
  });

  it('the list written keeps the live entries, the file replacing those it names', () => {
    const live = [
      { name: 'keepme', source: { https: { url: 'https://h/k.zip' } } },
      { name: 'quillmark', source: { https: { url: 'https://h/old.zip' } } },
    ];
    const given = [
      { name: 'quillmark', source: { https: { url: 'https://h/new.zip' } } },
      { name: 'fresh', source: { https: { url: 'https://h/f.zip' } } },
    ];
    assert.deepEqual(mergedUserDefinedModules(live, given), [live[0], given[0], given[1]]);
    assert.equal(listsEveryModule(live, given), false);
    assert.equal(listsEveryModule(mergedUserDefinedModules(live, given), given), true);
    assert.deepEqual(mergedUserDefinedModules(undefined, given), given);
  });
});
