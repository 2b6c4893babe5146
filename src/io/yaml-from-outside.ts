/**
 * YAML (or JSON) that comes from outside ctl, parsed, and what is wrong with it, without its
 * text: a user's file (--user-defined-modules, --fleet, --catalog), a kubeconfig, a release
 * bundle or a helm repository's index.yaml from the network. The `yaml` parser's message quotes
 * the lines around the fault (a code frame), and some of its reasons quote the source itself (an
 * unresolved tag or alias, an escape sequence, a whole plain scalar); js-yaml's (client-node's
 * kubeconfig reader) quote tag and alias names the same way. Those lines may hold a secret (a
 * credential in a URL, a kubeconfig's token, a password pasted in the wrong place). So only the
 * place (line and column) and what is wrong, in ctl's own words by the error's code or reason,
 * are told, as kubectl's `error parsing ...: yaml: line 16: ...` does. Warnings are never
 * printed: the parser would write them with process.emitWarning, the line quoted, to stderr.
 * Codes and messages: eemeli/yaml src/errors.ts (ErrorCode) and the composers that raise them;
 * nodeca/js-yaml lib/loader.js (throwError).
 */

import jsYaml from 'js-yaml';
import { parse } from 'yaml';

/**
 * The one document of `text` (YAML is a superset of JSON: one parser reads both). Its warnings
 * (an unknown tag) are not printed; an error is thrown, for yamlProblem to describe.
 */
export function parseYaml(text: string): unknown {
  return parse(text, { logLevel: 'error' });
}

/**
 * Every document of `text` (a manifest stream, `---` between them), in order, as kubectl reads
 * them. Manifests are Kubernetes' own YAML, read by Go's parser (kubectl, sigs.k8s.io/yaml), and
 * the `yaml` package refuses some that Go's parser takes: the upstream release's bundle.yaml (from
 * v7.22.2-40 at least, redis-enterprise-k8s-docs) has a single-quoted description whose second
 * line is indented no deeper than its key ("missing closing 'quote" to `yaml`, line 4799 of the
 * 8.0 bundle), so ctl refused the release's own bundle. js-yaml takes it, as client-node's
 * kubeconfig reader does, and reads a large bundle about five times faster. The first error of
 * any document is thrown, for yamlProblem to describe. Nothing is printed (js-yaml calls no
 * warning handler unless given one).
 */
export function parseYamlDocuments(text: string): unknown[] {
  const values = jsYaml.loadAll(text, null, { schema: MANIFEST_SCHEMA });
  refuseAliasBomb(values, 2 * text.length + 10_000);
  return values;
}

/**
 * Any tag read as the plain value under it (a scalar, sequence or mapping), as Go's parser does
 * for a tag it does not know and as `yaml` did with its warnings off: a manifest's `!vault x` or
 * `!!binary` must not stop a run. The core schema's own tags (str, int, bool, null, float, seq,
 * map) still resolve first; no timestamps or merge keys (YAML 1.2's core schema, as before).
 */
const MANIFEST_SCHEMA = jsYaml.CORE_SCHEMA.extend(
  ['!', 'tag:yaml.org,2002:'].flatMap((prefix) =>
    (['scalar', 'sequence', 'mapping'] as const).map(
      (kind) =>
        new jsYaml.Type(prefix, {
          kind,
          multi: true,
          construct: (data: unknown) => data ?? (kind === 'scalar' ? '' : kind === 'sequence' ? [] : {}),
        }),
    ),
  ),
);

/**
 * js-yaml gives an alias the anchored value itself, so a few lines of aliases of aliases ("billion
 * laughs") make a value whose every later walk (the objects sent to the API, their JSON) grows
 * exponentially. A walk of at most `budget` nodes, each counted as often as it is reached: a
 * manifest without aliases has fewer nodes than characters.
 */
function refuseAliasBomb(values: unknown[], budget: number): void {
  let left = budget;
  const stack: unknown[] = [...values];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    const children = Array.isArray(value) ? value : Object.values(value);
    left -= children.length + 1;
    if (left < 0) throw new AliasBombError();
    for (const child of children) stack.push(child);
  }
}

/** Named as `yaml`'s own refusal of an alias bomb (a ReferenceError), which yamlProblem tells. */
class AliasBombError extends Error {
  override name = 'ReferenceError';
  constructor() {
    super('Excessive alias count indicates a resource exhaustion attack');
  }
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
  RESOURCE_EXHAUSTION: 'nesting deeper than the parser allows',
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

/**
 * js-yaml's reasons that quote nothing of the file (fixed strings in lib/loader.js), told as
 * they are. Any other reason of js-yaml is either one of QUOTING_REASONS or not told.
 */
const JS_YAML_FIXED_REASONS = new Set([
  'a line break is expected',
  'a whitespace character is expected after the key-value separator within a block mapping',
  'abnormal merge sequence size',
  'alias node should not have any properties',
  'bad explicit indentation width of a block scalar; it cannot be less than one',
  'bad indentation of a mapping entry',
  'bad indentation of a sequence entry',
  'can not read a block mapping entry; a multiline key may not be an implicit key',
  'can not read an implicit mapping pair; a colon is missed',
  'cannot merge mappings; the provided source object is unacceptable',
  'deficient indentation',
  'directives end mark is expected',
  'duplicated mapping key',
  'duplication of a tag property',
  'duplication of an anchor property',
  'end of the stream or a document separator is expected',
  'expected a single document in the stream, but found more',
  'expected hexadecimal character',
  "expected the node content, but found ','",
  'expected valid JSON character',
  'incomplete explicit mapping pair; a key node is missed; or followed by a non-tabulated empty line',
  'missed comma between flow collection entries',
  'missing indentation for block scalar',
  'name of an alias node must contain at least one character',
  'name of an anchor node must contain at least one character',
  'nested arrays are not supported inside keys',
  'null byte is not allowed in input',
  'repeat of a chomping mode identifier',
  'repeat of an indentation width identifier',
  'tab characters must not be used in indentation',
  'the stream contains non-printable characters',
  'unexpected end of the document within a double quoted scalar',
  'unexpected end of the document within a single quoted scalar',
  'unexpected end of the stream within a double quoted scalar',
  'unexpected end of the stream within a flow collection',
  'unexpected end of the stream within a single quoted scalar',
  'unexpected end of the stream within a verbatim tag',
  'unknown escape sequence',
  'unacceptable YAML version of the document',
  'duplication of %YAML directive',
  'YAML directive accepts exactly one argument',
  'ill-formed argument of the YAML directive',
  'TAG directive accepts exactly two arguments',
  'ill-formed tag handle (first argument) of the TAG directive',
  'ill-formed tag prefix (second argument) of the TAG directive',
  'directive name must not be less than one character in length',
  'named tag handle cannot contain such characters',
  'tag suffix cannot contain exclamation marks',
  'tag suffix cannot contain flow indicator characters',
]);

/**
 * js-yaml's reasons that go on to quote the file (a tag, an alias, a handle): the start of each,
 * and ctl's words.
 */
const JS_YAML_QUOTING_REASONS: [string, string][] = [
  ['unknown tag ', WHAT.TAG_RESOLVE_FAILED as string],
  ['unidentified alias ', 'an alias whose anchor is not set before it'],
  ['undeclared tag handle ', 'a tag handle no %TAG directive declares'],
  ['tag name ', 'a tag name YAML does not allow'],
  ['tag prefix is malformed', 'a %TAG directive YAML does not allow'],
  ['there is a previously declared suffix', 'a tag handle declared twice'],
  ['unacceptable node kind for ', WHAT.BAD_COLLECTION_TYPE as string],
  ['cannot resolve a node with ', WHAT.TAG_RESOLVE_FAILED as string],
  // These end in a number of js-yaml's, not the file's; said without it all the same.
  ['nesting exceeded maxDepth', 'nesting deeper than the parser allows'],
  ['merge keys exceeded maxTotalMergeKeys', 'too many merge keys'],
];

interface YamlErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  /** yaml's place, 1-based. */
  linePos?: { line?: unknown; col?: unknown }[];
  /** js-yaml's reason (its message without place and code frame), and its place, 0-based. */
  reason?: unknown;
  mark?: { line?: unknown; column?: unknown };
}

/** Whether `error` is a YAML parser's (yaml's or js-yaml's), which yamlProblem describes. */
export function isYamlError(error: unknown): boolean {
  const parsed = (error ?? {}) as YamlErrorShape;
  return (
    parsed.name === 'YAMLParseError' || parsed.name === 'YAMLException' || builtWrong(parsed) !== undefined
  );
}

/** `line 3, column 7: a key given twice in one mapping`: where, and what is wrong, nothing quoted. */
export function yamlProblem(error: unknown): string {
  const parsed = (error ?? {}) as YamlErrorShape;
  return `${whereOf(parsed)}${whatIsWrong(parsed)}`;
}

function whereOf(parsed: YamlErrorShape): string {
  const at = parsed.linePos?.[0];
  if (typeof at?.line === 'number')
    return `line ${at.line}${typeof at.col === 'number' ? `, column ${at.col}` : ''}: `;
  const mark = parsed.mark;
  if (typeof parsed.reason === 'string' && typeof mark?.line === 'number')
    return `line ${mark.line + 1}${typeof mark.column === 'number' ? `, column ${mark.column + 1}` : ''}: `;
  return '';
}

/**
 * What yaml found wrong while building a parsed document's value (toJS), thrown with no place:
 * an alias whose anchor is not set (the message names the alias, which the file wrote), or an
 * alias bomb ("billion laughs").
 */
function builtWrong(parsed: YamlErrorShape): string | undefined {
  if (parsed.name !== 'ReferenceError') return undefined;
  const message = String(parsed.message);
  if (message.startsWith('Unresolved alias')) return 'an alias whose anchor is not set before it';
  if (message.startsWith('Excessive alias count')) return 'too many aliases';
  return undefined;
}

function whatIsWrong(parsed: YamlErrorShape): string {
  const built = builtWrong(parsed);
  if (built) return built;
  if (typeof parsed.reason === 'string') return jsYamlWhat(parsed.reason);
  if (typeof parsed.message === 'string') {
    // The parser's own words before its place and code frame (` at line 3, column 7:\n\n...`).
    const reason = parsed.message.split(/ at line \d+/)[0] ?? '';
    if (FIXED_REASONS.has(reason)) return reason.charAt(0).toLowerCase() + reason.slice(1);
  }
  if (typeof parsed.code === 'string' && WHAT[parsed.code]) return WHAT[parsed.code] as string;
  return 'not valid YAML';
}

function jsYamlWhat(reason: string): string {
  if (JS_YAML_FIXED_REASONS.has(reason)) return reason;
  const quoting = JS_YAML_QUOTING_REASONS.find(([start]) => reason.startsWith(start));
  return quoting ? quoting[1] : 'not valid YAML';
}
