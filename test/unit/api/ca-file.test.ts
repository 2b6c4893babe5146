import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { connectApi, type ConnectionSettings } from '../../../src/api/connect.js';
import { UsageError } from '../../../src/errors.js';
import { createTestIo } from '../../../src/io/test-io.js';
import { tempDir } from '../../helpers/temp.js';

/** --ca-file is an input like every other: a regular file of bounded size, read without waiting. */
describe('--ca-file is read bounded', () => {
  const settings = (caFile: string): ConnectionSettings => ({
    apiUrl: 'https://127.0.0.1:1',
    passwordStdin: false,
    insecure: false,
    authForm: 'auto',
    caFile,
  });
  const connect = (caFile: string) =>
    connectApi(settings(caFile), { io: createTestIo().io, env: {}, stdin: Readable.from([]) });

  it('refuses a FIFO at once (it would wait for a writer)', async () => {
    const fifo = path.join(tempDir('ctl-ca-'), 'ca.pem');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(connect(fifo), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /--ca-file .* is a FIFO \(named pipe\), not a regular file/);
      return true;
    });
  });

  it('refuses a device (it may never end)', async () => {
    await assert.rejects(
      connect('/dev/zero'),
      /--ca-file \/dev\/zero is a character device, not a regular file/,
    );
  });

  it('refuses a file larger than any CA bundle', async () => {
    const large = path.join(tempDir('ctl-ca-'), 'ca.pem');
    writeFileSync(large, `-----BEGIN CERTIFICATE-----\n${'A'.repeat(5 * 1024 * 1024)}\n`);
    await assert.rejects(connect(large), /--ca-file .* is 5 MiB, more than the 4 MiB ctl reads of it/);
  });

  it('still says when the file holds no certificate', async () => {
    const empty = path.join(tempDir('ctl-ca-'), 'ca.pem');
    writeFileSync(empty, 'not a certificate\n');
    await assert.rejects(connect(empty), /holds no PEM certificate/);
  });
});
