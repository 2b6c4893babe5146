/**
 * A management API that quotes the password back the way its own JSON or URL encoder writes it,
 * in a body cut short (so ctl quotes the text, not a parsed value): Python's json.dumps escapes
 * every character past ASCII (`\u00e4`), Go's escapes `<`, `>` and `&` (`\u003c`), PHP's also
 * writes `/` as `\/`, a WHATWG form encoder escapes `!'()~` too, and some servers write percent
 * escapes in lower case. The redactor knew only JavaScript's forms, so each of these printed the
 * password. Driven through the built ctl (`auth token`, in each output mode and with -v=9).
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCertificateAuthority, createServerCertificate } from '../helpers/simulator.js';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import { tempDir } from '../helpers/temp.js';
import { figure } from './support.js';

const escapeTo = (pattern: RegExp, text: string, upper = false): string =>
  text.replace(pattern, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
const json = (text: string): string => JSON.stringify(text).slice(1, -1);
const form = (text: string): string => new URLSearchParams([['', text]]).toString().slice(1);

/** How other servers than JavaScript ones write a string back, each as its encoder does. */
const ENCODERS: Record<string, (password: string) => string> = {
  'python json.dumps': (p) => escapeTo(/[\u007f-\uffff]/g, json(p)),
  'json, upper-case \\u': (p) => escapeTo(/[\u007f-\uffff]/g, json(p), true),
  'go encoding/json': (p) => escapeTo(/[<>&\u2028\u2029]/g, json(p)),
  'php json_encode': (p) => escapeTo(/[\u007f-\uffff]/g, json(p)).replace(/\//g, '\\/'),
  'whatwg form encoding': form,
  'lower-case percent escapes': (p) => encodeURIComponent(p).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
  'lower-case form encoding': (p) => form(p).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
};

/** Each has characters one of the encoders above writes differently from JavaScript. */
const PASSWORDS = ['pässwörd-Ü1-😀', 'p<a>&ss"w(o)rd!~/x', "Ça/va'(bien)*"];

describe("a password quoted back in other encoders' forms", () => {
  const dir = tempDir('ctl-secret-encodings-');
  let server: Server;
  let url = '';
  let caFile = '';
  let encoder: (password: string) => string = (p) => p;

  before(async () => {
    const ca = await createCertificateAuthority('encodings CA');
    const certificate = await createServerCertificate(ca);
    caFile = path.join(dir, 'ca.pem');
    writeFileSync(caFile, ca.certPem);
    server = createServer({ key: certificate.keyPem, cert: certificate.certPem }, (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        let password = '';
        try {
          password = String((JSON.parse(body) as { password?: unknown }).password ?? '');
        } catch {
          // Not a sign-in: nothing to echo.
        }
        res.writeHead(401, { 'content-type': 'application/json' });
        // Cut short, so not JSON: ctl quotes the text as the server wrote it.
        res.end(`{"error_code":"unauthorized","message":"password ${encoder(password)} refused`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test("no encoder's form of the password is printed, in any output mode", async () => {
    let runs = 0;
    let echoed = 0;
    for (const [name, encode] of Object.entries(ENCODERS)) {
      encoder = encode;
      for (const password of PASSWORDS) {
        const printedForm = encode(password);
        for (const args of [
          ['auth', 'token'],
          ['auth', 'token', '-o', 'json', '-v=9'],
          ['auth', 'token', '-o', 'yaml'],
        ]) {
          const result = await runCtlInProcess(args, {
            env: {
              CTL_API_URL: url,
              CTL_CA_FILE: caFile,
              CTL_USERNAME: 'admin@example.com',
              CTL_PASSWORD: password,
              KUBECONFIG: path.join(dir, 'no-kubeconfig'),
            },
            timeoutMs: 45_000,
          });
          runs += 1;
          const printed = `${result.stdout}\n${result.stderr}`;
          assert.notEqual(result.code, 0, `${args.join(' ')}: the server refused the sign-in`);
          if (printed.includes('[REDACTED] refused')) echoed += 1;
          assert.ok(
            !printed.includes(printedForm),
            `${name}: ${args.join(' ')} printed ${printedForm} of ${password}:\n${printed.slice(-1500)}`,
          );
        }
      }
    }
    figure(
      `a password echoed in ${Object.keys(ENCODERS).length} other encoders' forms: ${runs} runs, ${echoed} quoted the echo (redacted), 0 forms shown`,
    );
    assert.equal(echoed, runs, 'every run quoted the echo, so the test saw each form');
  });
});
