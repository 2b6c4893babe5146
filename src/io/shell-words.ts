/**
 * Words quoted for a POSIX shell (sh, bash, zsh), for the commands ctl prints for a person to
 * paste. A value from outside (a name, a path, a JSON body) stays one argument and never becomes
 * code: anything but the plain characters goes in single quotes, a `'` inside as `'\''`.
 */

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes a word for sh when it needs it: `it's` -> `'it'\''s'`. */
export function shellQuote(word: string): string {
  if (PLAIN.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Words with a `<placeholder>` for the reader to fill in stay unquoted, as in the upstream docs
 * (`--from-file=license=<license-file>`): quoting them would only hide the placeholder.
 */
export function quoteUnlessPlaceholder(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]*(<[a-z0-9._-]+>[A-Za-z0-9_@%+=:,./-]*)+$/.test(word)
    ? word
    : shellQuote(word);
}
