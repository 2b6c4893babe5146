/**
 * A JSON body in a command ctl prints, with a value ctl cannot know when it prints it (a digest
 * the target CSV holds once OLM has installed it, one the reader looks up). The value is a shell
 * variable, set before the command on the same line or by the reader, spliced into the
 * single-quoted JSON as `"'"${NAME:?}"'"`: the quote closes, the variable expands inside double
 * quotes (one word, never code), the quote reopens. Unset or empty, `${NAME:?}` stops the command
 * before it runs (POSIX sh parameter expansion), so a pasted line never sends a placeholder such
 * as `<digest of ...>` to the API server, as a placeholder inside the quotes would.
 */

import { shellQuote } from '../io/shell-words.js';

const MARK = '\u0000shell-variable:';
const NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * The value to put in a body where the printed command takes `$name`; JSON.stringify writes it
 * `"\u0000shell-variable:NAME\u0000"`, which no value ctl reads (a name, a version) is.
 */
export function fromShellVariable(name: string): string {
  if (!NAME.test(name)) throw new Error(`not a variable name ctl prints: ${name}`);
  return `${MARK}${name}\u0000`;
}

/**
 * A fromShellVariable value as a whole JSON string value: its opening quote follows `:`, `,` or
 * `[` (inside a JSON string a `"` is always escaped, `\"`, so this is a string's start).
 */
const IN_JSON = /(?<=[:,[])"\\u0000shell-variable:([A-Z][A-Z0-9_]*)\\u0000"/g;

/** The body as JSON quoted for sh, each fromShellVariable value taken from its variable. */
export function quoteJsonBody(body: unknown): string {
  return shellQuote(JSON.stringify(body)).replace(IN_JSON, (_, name: string) => `"'"\${${name}:?}"'"`);
}
