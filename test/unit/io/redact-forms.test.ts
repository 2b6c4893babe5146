/**
 * The forms a secret comes back in besides those of secret-forms.test.ts: percent-encoded (a
 * server quoting a query, a form body or a redirect), base64 alone, as ctl's JSON writes a
 * character JSON.stringify leaves raw (DEL, bidi marks), a server's escaped line inside ctl's
 * JSON, one line of a secret over several lines, the start of a secret where a message was
 * clipped (describeApiError's 300 characters), and the Basic form of a participant's own user.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeApiError } from '../../../src/api/api-errors.js';
import { Redactor } from '../../../src/io/redact.js';
import { oneLine, safeJson } from '../../../src/io/safe-text.js';

function redactorWith(password: string): Redactor {
  const redactor = new Redactor();
  redactor.addUsername('admin@example.com');
  redactor.add(password, 'password');
  return redactor;
}

describe('secrets in the forms a server may quote them', () => {
  const PASSWORDS = ['pct %20&=?/+ secret', 'Del\u007fSecret99', 'Bidi\u202eSecret99', 'plain-Secret-42'];

  it('percent-encoded, form-encoded and base64, standard and URL-safe', () => {
    for (const password of PASSWORDS) {
      const redactor = redactorWith(password);
      const bytes = Buffer.from(password, 'utf8');
      for (const form of [
        encodeURIComponent(password),
        encodeURIComponent(password).replace(/%20/g, '+'),
        bytes.toString('base64'),
        bytes.toString('base64url'),
      ]) {
        const out = redactor.redact(`Location: https://api/login?password=${form}&next=1`);
        assert.ok(!out.includes(form), `${JSON.stringify(password)}: ${form} left in ${out}`);
      }
    }
  });

  it("as ctl's JSON writes it, and a server's escaped line inside ctl's JSON", () => {
    for (const password of PASSWORDS) {
      const redactor = redactorWith(password);
      for (const text of [
        safeJson({ message: `login failed for ${password}` }),
        safeJson({ message: oneLine(`login failed for ${password}`) }),
      ]) {
        const out = redactor.redact(text);
        assert.match(out, /\[REDACTED\]/, `${JSON.stringify(password)}: nothing redacted in ${out}`);
        assert.ok(!/Secret|secret/.test(out), `${JSON.stringify(password)} left in ${out}`);
        // Still the same JSON shape: the placeholder holds no quote or backslash.
        assert.doesNotThrow(() => JSON.parse(out));
      }
    }
  });

  it('HTML-escaped (an error page), as Python writes it, and its UTF-8 read as Latin-1', () => {
    // What a gateway's error page or a Python service's message made of each (before: all left).
    const cases: [string, string][] = [
      ['Pa&ss<wo>rd"1', '<p>password=Pa&amp;ss&lt;wo&gt;rd&quot;1</p>'],
      ["Pa'ss&w0rd", '<p>Pa&#39;ss&amp;w0rd</p>'],
      ["Pa'ss&w0rd", '<p>Pa&#x27;ss&amp;w0rd</p>'],
      ["Pa'ss&w0rd", "<p>Pa'ss&amp;w0rd</p>"],
      [`it's"both\\x`, `{'password': 'it\\'s"both\\\\x'}`],
      ['p\u00e4ss-w\u00f6rd9', "{'password': 'p\\xe4ss-w\\xf6rd9'}"],
      ['p\u00e4ss-w\u00f6rd9', "b'p\\xc3\\xa4ss-w\\xc3\\xb6rd9'"],
      ['p\u00e4ss-w\u00f6rd9', Buffer.from('p\u00e4ss-w\u00f6rd9', 'utf8').toString('latin1')],
      ['Bidi\u202eSecret9', "{'password': 'Bidi\\u202eSecret9'}"],
      ['Emoji\u{1f600}Secret', "{'password': 'Emoji\\U0001f600Secret'}"],
    ];
    for (const [password, text] of cases) {
      const out = redactorWith(password).redact(`error: ${text}`);
      assert.match(out, /\[REDACTED\]/, `${JSON.stringify(password)}: nothing redacted in ${out}`);
      assert.ok(
        !/ss|Secret|both|single/.test(out.replace('password', '')),
        `${JSON.stringify(password)} left in ${out}`,
      );
    }
  });

  it('each line of a secret over several lines', () => {
    const redactor = new Redactor();
    redactor.add('first-line-of-it\nsecond-line-of-it\n', 'password');
    const out = redactor.redact('error: first-line-of-it\nhint: second-line-of-it');
    assert.equal(out, 'error: [REDACTED]\nhint: [REDACTED]');
  });

  it('the start of a secret where a server message was clipped', () => {
    const password = 'Clipped-Secret-Password-123';
    const redactor = redactorWith(password);
    // The password straddles the 300th character of the server's message.
    const message = `${'x'.repeat(288)} ${password} trailing words`;
    const printed = describeApiError({ status: 400, headers: {}, body: { message } });
    assert.ok(printed.endsWith('…'), printed);
    const out = redactor.redact(printed);
    assert.ok(!out.includes(password.slice(0, 8)), `the start of the password is left: ${out.slice(-40)}`);
    assert.ok(out.endsWith('[REDACTED]…'), out.slice(-40));
    // Text that only happens to precede the mark is kept.
    assert.equal(redactor.redact('and more…'), 'and more…');
    // Several clipped messages in one text (a JSON list of them), each cut at another place.
    assert.equal(
      redactor.redact(`["${password.slice(0, 6)}…", "x…", "${password.slice(0, 20)}…", "${password}"]`),
      '["[REDACTED]…", "x…", "[REDACTED]…", "[REDACTED]"]',
    );
  });

  it('the Basic form of every user, whichever was named last', () => {
    const redactor = new Redactor();
    // The local user and a participant's own (src/commands/remote-clusters.ts), both named
    // before either password is read.
    redactor.addUsername('admin@example.com');
    redactor.addUsername('remote@example.com');
    redactor.add('local-password', 'password');
    redactor.add('remote-password', 'password');
    for (const pair of ['admin@example.com:local-password', 'remote@example.com:remote-password']) {
      const basic = Buffer.from(pair).toString('base64');
      const out = redactor.redact(`echo: authorization=${basic}`);
      assert.ok(!out.includes(basic), `${pair} left in ${out}`);
    }
  });

  it('after Basic, Bearer or JWT, a credential is redacted and a word is not', () => {
    const redactor = redactorWith('plain-Secret-42');
    // Words after the scheme name stay readable (the simulator's 401 read "HTTP Basic [REDACTED]").
    for (const text of [
      'Authentication required: send the credentials with HTTP Basic authentication',
      'the server wants Bearer authentication.',
      'JWT tokens expire; Basic credentials do not',
      'use Bearer token-based access',
      'basic configuration, bearer authentication',
    ])
      assert.equal(redactor.redact(text), text);
    // Credentials nobody registered still go: base64 of user:pass, a JWT, an opaque token.
    const unknownBasic = Buffer.from('someone:not-registered-pw').toString('base64');
    for (const credential of [
      `Basic ${unknownBasic}`,
      `Basic ${unknownBasic.replace(/=+$/, '')}`,
      'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl',
      'JWT abcdEFGH1234ijkl',
      'Bearer mirror-token-4c1d9e7a2b',
      // The scheme in any case (RFC 9110 11.1: case-insensitive), as a server may echo it.
      'bearer mirror-token-4c1d9e7a2b',
      'BEARER mirror-token-4c1d9e7a2b',
      'bEaReR eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl',
      `basic ${unknownBasic}`,
      `BASIC ${unknownBasic}`,
      'jwt abcdEFGH1234ijkl',
    ]) {
      const out = redactor.redact(`echo: Authorization: ${credential} end`);
      assert.equal(out, `echo: Authorization: ${credential.split(' ')[0]} [REDACTED] end`);
    }
  });
});
