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

/*
 * A value the reader fills in is a plain capital word (FILE, VERSION, USERNAME:PASSWORD), as
 * kubectl's own help writes them (`kubectl config rename-context CONTEXT_NAME NEW_NAME`), never
 * `<file>`: pasted unchanged, `<file>` is a redirection (it reads a file named `file`, and
 * `<name> -n x` truncates a file named `-n`) and `<file|url>` a pipe, while FILE is only a wrong
 * argument. Such a word needs no quotes, so every word of a command goes through shellQuote,
 * and no value from outside that looks like a placeholder is ever left unquoted.
 */

/**
 * The one variable ctl writes before a program (src/kube/kube-target.ts invocation: several
 * kubeconfig files); no other (`LD_PRELOAD=`, `PATH=`) is ever ctl's.
 */
const ASSIGNMENT = /^(KUBECONFIG)=(.*)$/s;

/**
 * The words of `line` when it is exactly what ctl writes for a command (each word as
 * {@link shellQuote} writes it, one space apart, an optional `NAME=<word>` first); undefined for
 * any other text. A line read back from somewhere ctl does not own (a state file, a state
 * ConfigMap in the cluster) is only shown as a command to paste when this holds: in ctl's form a
 * shell sees one command with these words, never `;`, `$(...)`, a backtick, a redirection or a
 * second line. The caller checks which program it runs.
 */
export function wordsOfQuotedCommand(line: string): string[] | undefined {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    let word = '';
    let quoted = false;
    for (; i < line.length && line[i] !== ' ';) {
      const char = line[i] as string;
      if (char === "'") {
        const end = line.indexOf("'", i + 1);
        if (end < 0) return undefined;
        word += line.slice(i + 1, end);
        quoted = true;
        i = end + 1;
      } else if (char === '\\' && line[i + 1] === "'") {
        word += "'";
        i += 2;
      } else {
        word += char;
        i += 1;
      }
    }
    if (word === '' && !quoted) return undefined; // two spaces, or a space at either end
    words.push(word);
    i += 1;
  }
  if (words.length === 0) return undefined;
  // The program's word, after an optional KUBECONFIG=: a word before it in the form `NAME=...`
  // is an assignment to sh, not a program (`LD_PRELOAD=/tmp/x.so ctl ...`), quoted or not.
  const program = ASSIGNMENT.test(words[0] as string) ? 1 : 0;
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[program] ?? '')) return undefined;
  const written = words.map((word, index) => {
    const assignment = index === 0 ? ASSIGNMENT.exec(word) : null;
    return assignment && !PLAIN.test(word)
      ? `${assignment[1]}=${shellQuote(assignment[2] ?? '')}`
      : shellQuote(word);
  });
  return written.join(' ') === line ? words : undefined;
}

/** Splits a POSIX shell command line into words (single and double quotes, backslashes). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else current += char;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && i + 1 < line.length) current += line[++i];
      else current += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\' && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}
