import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { createTestIo } from '../../../src/io/test-io.js';

const PASSWORD = 'Sup3r"Secret\\pw';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';

function ioWithSecrets(options: Parameters<typeof createTestIo>[0] = {}) {
  const test = createTestIo(options);
  test.io.redactor.addUsername('admin@example.com');
  test.io.redactor.add(PASSWORD, 'password');
  test.io.redactor.add(TOKEN, 'password');
  return test;
}

describe('stdout is redacted, except the secret a command was asked for', () => {
  it('data and JSON hide a registered secret in any form; the JSON stays valid', () => {
    const { io, stdout } = ioWithSecrets();
    io.data(`FAIL api-reachable: {"password":${JSON.stringify(PASSWORD)}}`);
    io.json({ checks: [{ message: `echoed {"password":${JSON.stringify(PASSWORD)}}` }], token: TOKEN });
    const [line, json] = stdout().trimEnd().split('\n');
    assert.equal(line, 'FAIL api-reachable: {"password":"[REDACTED]"}');
    const document = JSON.parse(json ?? '') as { checks: { message: string }[]; token: string };
    assert.equal(document.checks[0]?.message, 'echoed {"password":"[REDACTED]"}');
    assert.equal(document.token, '[REDACTED]');
  });

  it('-o yaml is redacted too', () => {
    const { io, stdout } = ioWithSecrets({ yaml: (value) => `value: ${JSON.stringify(value)}\n` });
    io.json({ message: `password ${PASSWORD}` });
    assert.ok(!stdout().includes(PASSWORD));
    const document = parse(stdout().replace(/^---\n/, '')) as { value: { message: string } };
    assert.equal(document.value.message, 'password [REDACTED]');
  });

  it("auth token's own output keeps the token, in text and in JSON", () => {
    const { io, stdout } = ioWithSecrets();
    io.requestedSecret(TOKEN);
    io.jsonWithRequestedSecret({ access_token: TOKEN, token_type: 'JWT' });
    const [text, json] = stdout().trimEnd().split('\n');
    assert.equal(text, TOKEN);
    assert.equal((JSON.parse(json ?? '') as { access_token: string }).access_token, TOKEN);
  });
});
