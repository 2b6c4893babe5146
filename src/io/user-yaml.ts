/**
 * A YAML (or JSON) file the user gave (--user-defined-modules, --fleet, --catalog), parsed, and
 * what is wrong with it, without its text. The `yaml` parser's message quotes the lines around the fault
 * (a code frame), and some of its reasons quote the source itself (an unresolved tag or alias,
 * an escape sequence, a whole plain scalar): those lines may hold a secret (a credential in a
 * URL, a password a user pasted in the wrong place). So only the place (line and column, from
 * the error's `linePos`) and what is wrong, in ctl's own words by the error's `code`, are told,
 * as kubectl's `error parsing ...: yaml: line 16: ...` does (src/kube/client.ts kubeconfigProblem
 * does the same for a kubeconfig).
 * Codes and messages: eemeli/yaml src/errors.ts (ErrorCode) and the composers that raise them.
 */

import { parse } from 'yaml';

/**
 * The document of `text` (YAML is a superset of JSON: one parser reads both). Its warnings (an
 * unknown tag) are not printed: the parser would write them with process.emitWarning, code frame
 * and all, to stderr; an error is thrown, for yamlProblem to describe.
 */
export function parseUserYaml(text: string): unknown {
  return parse(text, { logLevel: 'error' });
}

/** One phrase per `yaml` ErrorCode: what is wrong, never what the file says. */
const WHAT: Record<string, string> = {
  ALIAS_PROPS: 'an alias with an anchor or a tag',
  BAD_ALIAS: 'an alias or anchor that is empty or ends in a colon',
  BAD_DIRECTIVE: 'a directive YAML does not know',
  BAD_DQ_ESCAPE: 'an invalid escape sequence in a double-quoted string',
  BAD_INDENT: 'bad indentation',
  BAD_PROP_ORDER: 'an anchor or a tag before its indicator',
  BAD_SCALAR_START: 'a plain value starting with a character that needs quotes',
  BLOCK_AS_IMPLICIT_KEY: 'a nested mapping on the line of its key',
  BLOCK_IN_FLOW: 'a block collection inside a flow collection ([...] or {...})',
  DUPLICATE_KEY: 'a key given twice in one mapping',
  IMPOSSIBLE: 'a construct the parser cannot read',
  KEY_OVER_1024_CHARS: 'a key longer than 1024 characters',
  MISSING_CHAR: 'a missing character (a closing quote, a colon, a dash, a comma)',
  MULTILINE_IMPLICIT_KEY: 'a key over several lines',
  MULTIPLE_ANCHORS: 'a node with two anchors',
  MULTIPLE_DOCS: 'several documents where one is expected',
  MULTIPLE_TAGS: 'a node with two tags',
  NON_STRING_KEY: 'a key that is not a string',
  RESOURCE_EXHAUSTION: 'too many aliases',
  TAB_AS_INDENT: 'a tab used as indentation',
  TAG_RESOLVE_FAILED: 'a tag YAML does not know',
  UNEXPECTED_TOKEN: 'unexpected text',
  BAD_COLLECTION_TYPE: 'a tag that does not fit its collection',
};

/**
 * Reasons of the parser that quote nothing of the file (fixed text in its source): more precise
 * than the code's phrase, so told as they are.
 */
const FIXED_REASONS = new Set([
  'Missing closing "quote',
  "Missing closing 'quote",
  'Map keys must be unique',
  'Implicit map keys need to be followed by map values',
  'Implicit keys need to be on a single line',
  'Sequence item without - indicator',
  'Tabs are not allowed as indentation',
  'Nested mappings are not allowed in compact mappings',
  'All mapping items must start at the same column',
  'All sequence items must start at the same column',
  'Comments must be separated from other tokens by white space characters',
  'Flow sequence in block collection must be sufficiently indented and end with a ]',
  'Flow map in block collection must be sufficiently indented and end with a }',
]);

interface YamlErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  linePos?: { line?: unknown; col?: unknown }[];
}

/** `line 3, column 7: a key given twice in one mapping`: where, and what is wrong, nothing quoted. */
export function yamlProblem(error: unknown): string {
  const parsed = (error ?? {}) as YamlErrorShape;
  const at = parsed.linePos?.[0];
  const where =
    typeof at?.line === 'number'
      ? `line ${at.line}${typeof at.col === 'number' ? `, column ${at.col}` : ''}: `
      : '';
  return `${where}${whatIsWrong(parsed)}`;
}

function whatIsWrong(parsed: YamlErrorShape): string {
  // Thrown after parsing, naming the alias (which the file wrote): said without it.
  if (parsed.name === 'ReferenceError' && String(parsed.message).startsWith('Unresolved alias'))
    return 'an alias whose anchor is not set before it';
  if (typeof parsed.message === 'string') {
    // The parser's own words before its place and code frame (` at line 3, column 7:\n\n...`).
    const reason = parsed.message.split(/ at line \d+/)[0] ?? '';
    if (FIXED_REASONS.has(reason)) return reason.charAt(0).toLowerCase() + reason.slice(1);
  }
  if (typeof parsed.code === 'string' && WHAT[parsed.code]) return WHAT[parsed.code] as string;
  return 'not valid YAML';
}
