import { markdownText, oneLine, safeJson } from './safe-text.js';

/**
 * Secrets registered here are replaced by a placeholder in everything ctl prints (stdout's
 * data and JSON, stderr, verbose logs). Registration happens where a secret is first read, so no code path
 * has to remember to redact.
 */
export const REDACTED = '[REDACTED]';

export class Redactor {
  readonly #secrets = new Set<string>();
  /** Secrets too short to blank everywhere: redacted where they stand as a JSON string. */
  readonly #quoted = new Set<string>();
  /** Every username seen (the local cluster's and each participant's): Basic is `user:pass`. */
  readonly #usernames = new Set<string>();
  readonly #passwords = new Set<string>();
  /** Passwords shorter than 4 characters: redacted where no letter or digit touches them. */
  readonly #shortWords = new Set<string>();
  /** The starts of the secrets, for clipped text (redactClipped); made again after an add. */
  #starts: Map<string, string[]> | undefined;

  /**
   * Registers a secret in every form ctl may print it (issue 28): as is, JSON-escaped (a body
   * echoed in an error), escaped for one line (safe-text's oneLine), and, with the username,
   * as the Basic-auth base64 of `user:pass`.
   */
  add(secret: string | undefined, kind: 'password' | 'other' = 'other'): void {
    if (!secret) return;
    // A secret over several lines (a password file with a second newline, a key) may be printed
    // a line at a time, or cut at a line by a message's first line: each line is a secret too.
    const lines = secret.split(/\r?\n|\r/).filter((line) => line.length >= 4);
    if (lines.length > 1 || (lines[0] !== undefined && lines[0] !== secret))
      for (const line of lines) this.add(line, kind);
    this.#starts = undefined;
    const forms = secretForms(secret);
    // Very short values would blank out ordinary words: those only where quoted in JSON.
    if (secret.length >= 4) for (const form of forms) this.#secrets.add(form);
    for (const form of forms) this.#quoted.add(JSON.stringify(form).slice(1, -1));
    this.#quoted.add(JSON.stringify(secret).slice(1, -1));
    if (kind === 'password') {
      this.#passwords.add(secret);
      // A short password (issue 35: "abc", echoed by a server) is still a password: redacted
      // wherever it stands as a word of its own, not inside longer words.
      if (secret.length < 4) for (const form of forms) this.#shortWords.add(form);
      this.#addBasic();
    }
  }

  /** The username, so the Basic-auth form of each password can be recognised. */
  addUsername(username: string | undefined): void {
    if (!username) return;
    this.#usernames.add(username);
    this.#addBasic();
  }

  redact(text: string): string {
    let out = text;
    // Longest first: a form that contains another is replaced whole.
    for (const secret of [...this.#secrets].sort((a, b) => b.length - a.length)) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    for (const short of this.#quoted) {
      for (const quote of ['"', '\\"']) {
        const quoted = `${quote}${short}${quote}`;
        if (out.includes(quoted)) out = out.split(quoted).join(`${quote}${REDACTED}${quote}`);
      }
    }
    // A message clipped to its length (`…`, api-errors.ts) may end inside a secret: the part
    // that is left before the mark is redacted too.
    if (out.includes(CLIP_MARK)) {
      this.#starts ??= startsByEnding(this.#secrets);
      out = redactClipped(out, this.#starts);
    }
    for (const word of this.#shortWords) {
      const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'), REDACTED);
    }
    // A credential nobody registered, after its scheme name in any case (RFC 9110 11.1: the
    // scheme is case-insensitive, so a server may echo `bearer` or `BEARER`): redacted unless it
    // is a word ("HTTP Basic authentication" stays readable).
    return out.replace(
      /(\b(?:Basic|JWT|Bearer)\s+)([A-Za-z0-9._~+/=-]{8,})/gi,
      (whole, scheme: string, token: string) => (isPlainWord(token) ? whole : `${scheme}${REDACTED}`),
    );
  }

  #addBasic(): void {
    this.#starts = undefined;
    for (const username of this.#usernames)
      for (const password of this.#passwords)
        this.#secrets.add(Buffer.from(`${username}:${password}`, 'utf8').toString('base64'));
  }
}

/**
 * A word of prose (`authentication`, `Credentials`, `token-based`, a sentence's last word with
 * its full stop), not a credential: base64, base64url and opaque tokens mix cases or carry
 * digits, `+`, `/`, `_` or `=`; a random one shaped like a word is rare (about 1 in 700 at 8
 * characters, 1 in 60 000 at 12), and a registered secret is redacted above whatever its shape.
 */
function isPlainWord(token: string): boolean {
  return /^[A-Za-z][a-z]+(?:-[a-z]+)*\.{0,3}$/.test(token);
}

/** The mark ctl puts where it cut someone else's text short. */
const CLIP_MARK = '\u2026';

/**
 * Each `<start of a secret>…` in `text`, the start 4 characters or more, as `[REDACTED]…`. Only
 * the characters before each mark are looked at, through `starts` (the 4 characters that end
 * each start of each secret): a large output with many marks costs about what its marks do.
 */
function redactClipped(text: string, starts: Map<string, string[]>): string {
  let out = '';
  let done = 0;
  for (let mark = text.indexOf(CLIP_MARK); mark >= 0; mark = text.indexOf(CLIP_MARK, mark + 1)) {
    if (mark - done < 4) continue;
    let longest = 0;
    for (const start of starts.get(text.slice(mark - 4, mark)) ?? []) {
      if (
        start.length > longest &&
        start.length <= mark - done &&
        text.startsWith(start, mark - start.length)
      )
        longest = start.length;
    }
    if (longest === 0) continue;
    out += `${text.slice(done, mark - longest)}${REDACTED}`;
    done = mark;
  }
  return done === 0 ? text : out + text.slice(done);
}

/** Every start (4 characters or more, short of the whole) of each secret, by its last 4 characters. */
function startsByEnding(secrets: Iterable<string>): Map<string, string[]> {
  const starts = new Map<string, string[]>();
  for (const secret of secrets) {
    for (let length = 4; length < secret.length; length += 1) {
      const start = secret.slice(0, length);
      const ending = start.slice(-4);
      const known = starts.get(ending);
      if (known) known.push(start);
      else starts.set(ending, [start]);
    }
  }
  return starts;
}

/**
 * The secret, and how it may come back to be printed: JSON-escaped (once, and twice: a body
 * quoted in a body), as ctl's JSON output writes it (safeJson escapes DEL, C1 and bidi marks
 * that JSON.stringify leaves raw), escaped for one line (src/io/safe-text.ts), percent-encoded (a
 * server quoting a query or a form body, a redirect's Location), base64 (a header or a body
 * quoted encoded), HTML-escaped (an error page), as Python writes it, and read as Latin-1.
 */
function secretForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const bytes = Buffer.from(secret, 'utf8');
  const base64 = bytes.toString('base64');
  return [
    ...new Set([
      secret,
      json,
      safeJson(secret).slice(1, -1),
      oneLine(secret),
      // A cell of GitHub's job summary (markdownText: backslash before Markdown's characters).
      markdownText(secret),
      // An escaped line (a server's message) inside ctl's JSON: `\x7f` becomes `\\x7f`.
      JSON.stringify(oneLine(secret)).slice(1, -1),
      JSON.stringify(json).slice(1, -1),
      ...otherJsonForms(secret),
      encodeURIComponent(secret),
      // The form encoding (application/x-www-form-urlencoded): a space is `+`.
      encodeURIComponent(secret).replace(/%20/g, '+'),
      // As the WHATWG form encoder writes it (URLSearchParams, browsers): `!'()~` escaped too.
      new URLSearchParams([['', secret]]).toString().slice(1),
      // Hex digits in lower case (RFC 3986 2.1 makes them equivalent; some servers write them so).
      ...[encodeURIComponent(secret), new URLSearchParams([['', secret]]).toString().slice(1)].map(
        (encoded) => encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
      ),
      base64,
      base64.replace(/=+$/, ''),
      bytes.toString('base64url'),
      ...htmlForms(secret),
      ...pythonForms(secret),
      // Its UTF-8 bytes read as Latin-1 (a server that decoded the body so, quoting it).
      bytes.toString('latin1'),
    ]),
  ];
}

/**
 * The secret as HTML escapes it: a proxy's or gateway's error page quoting the request (ctl
 * shows a short non-JSON answer as the server's message, src/api/api-errors.ts). `&`, `<` and
 * `>` always; a quote as is (text), or as the entity each library writes for it (`&quot;`,
 * `&#34;`, `&#39;`, `&#x27;`).
 */
function htmlForms(secret: string): string[] {
  if (!/[&<>"']/.test(secret)) return [];
  const text = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const forms: string[] = [];
  for (const quot of ['"', '&quot;', '&#34;'])
    for (const apos of ["'", '&#39;', '&#x27;']) forms.push(text.replace(/"/g, quot).replace(/'/g, apos));
  return forms;
}

/**
 * The secret as Python writes it in a message (the management API is a Python service): `repr`
 * (`'...'`, `\\` for a backslash, a quote escaped where both kinds occur, `\t`, `\xNN` for
 * other controls), `ascii` (past ASCII as `\xe4`, `\u20ac`, `\U0001f600`), and the repr of its
 * UTF-8 bytes (`b'p\xc3\xa4ss'`).
 */
function pythonForms(secret: string): string[] {
  const quote = secret.includes("'") && !secret.includes('"') ? '"' : "'";
  const escape = (char: string, ascii: boolean): string => {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\') return '\\\\';
    if (char === quote) return `\\${quote}`;
    const named = PYTHON_NAMED[char];
    if (named) return named;
    if (code < 0x20 || code === 0x7f || (code >= 0x80 && (ascii || code < 0xa0 || UNPRINTABLE.test(char))))
      return code <= 0xff
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : code <= 0xffff
          ? `\\u${code.toString(16).padStart(4, '0')}`
          : `\\U${code.toString(16).padStart(8, '0')}`;
    return char;
  };
  const bytes = [...Buffer.from(secret, 'utf8')].map((byte) =>
    byte >= 0x80 ? `\\x${byte.toString(16).padStart(2, '0')}` : escape(String.fromCharCode(byte), true),
  );
  return [
    [...secret].map((char) => escape(char, false)).join(''),
    [...secret].map((char) => escape(char, true)).join(''),
    bytes.join(''),
  ];
}

const PYTHON_NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** Format and separator characters past Latin-1 that Python's `str.isprintable` refuses (bidi marks ...). */
const UNPRINTABLE = /^[\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]$/;

/**
 * The secret as other JSON encoders than JavaScript's escape it, for a server's body that ctl
 * quotes as text (one cut short, so not parsed): Python's json.dumps (`ensure_ascii`, the
 * default) writes every character past ASCII as `\u00e4`; Go's encoding/json writes `<`, `>`,
 * `&`, U+2028 and U+2029 as `\u003c`...; PHP's json_encode escapes past ASCII as Python does, and
 * writes `/` as `\/`. The hex digits in lower case (as those three write them) and in upper case.
 */
function otherJsonForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const escape = (pattern: RegExp, text: string): string =>
    text.replace(pattern, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const ascii = escape(/[\u007f-\uffff]/g, json);
  const html = escape(/[<>&\u2028\u2029]/g, json);
  const php = ascii.replace(/\//g, '\\/');
  const forms = [ascii, html, php, json.replace(/\//g, '\\/')];
  return [
    ...forms,
    ...forms.map((form) => form.replace(/\\u[0-9a-f]{4}/g, (u) => `\\u${u.slice(2).toUpperCase()}`)),
  ];
}
