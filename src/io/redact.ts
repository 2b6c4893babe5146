import { oneLine } from './safe-text.js';

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
  #username: string | undefined;
  readonly #passwords = new Set<string>();
  /** Passwords shorter than 4 characters: redacted where no letter or digit touches them. */
  readonly #shortWords = new Set<string>();

  /**
   * Registers a secret in every form ctl may print it (issue 28): as is, JSON-escaped (a body
   * echoed in an error), escaped for one line (safe-text's oneLine), and, with the username,
   * as the Basic-auth base64 of `user:pass`.
   */
  add(secret: string | undefined, kind: 'password' | 'other' = 'other'): void {
    if (!secret) return;
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
    this.#username = username;
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
    for (const word of this.#shortWords) {
      const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'), REDACTED);
    }
    return out.replace(/(\b(?:Basic|JWT|Bearer)\s+)[A-Za-z0-9._~+/=-]{8,}/g, `$1${REDACTED}`);
  }

  #addBasic(): void {
    if (this.#username === undefined) return;
    for (const password of this.#passwords) {
      this.#secrets.add(Buffer.from(`${this.#username}:${password}`, 'utf8').toString('base64'));
    }
  }
}

/** The secret, and how JSON and a one-line escape (src/io/safe-text.ts) would print it. */
function secretForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, json, oneLine(secret), JSON.stringify(json).slice(1, -1)])];
}
