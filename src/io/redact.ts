/**
 * Secrets registered here are replaced by a placeholder in every line meant for people
 * (stderr, verbose logs). Registration happens where a secret is first read, so no code path
 * has to remember to redact.
 */
export const REDACTED = '[REDACTED]';

export class Redactor {
  readonly #secrets = new Set<string>();

  add(secret: string | undefined): void {
    // Very short values would blank out ordinary words; real secrets are longer.
    if (secret && secret.length >= 4) this.#secrets.add(secret);
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out.replace(/(\b(?:Basic|JWT|Bearer)\s+)[A-Za-z0-9._~+/=-]{8,}/g, `$1${REDACTED}`);
  }
}
