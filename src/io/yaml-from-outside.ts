/**
 * YAML (or JSON) that comes from outside ctl, parsed, and what is wrong with it, without its
 * text: a user's file (--user-defined-modules, --fleet, --catalog), a kubeconfig, a release
 * bundle or a helm repository's index.yaml from the network. Every one is read here, by one
 * parser (js-yaml) with one schema and one bound on aliases, much as kubectl's parser (Go's,
 * through sigs.k8s.io/yaml) reads it (OUTSIDE_SCHEMA says where they differ): the `yaml` package
 * refused files Go reads (the published bundle.yaml's quoting, parseYamlDocuments says how), so a
 * file written that way was refused as a --catalog, a --fleet or a helm index too.
 *
 * js-yaml's message quotes the lines around the fault (a code frame), and some of its reasons a
 * tag, an alias or a handle of the file. Those lines may hold a secret (a credential in a URL, a
 * kubeconfig's token, a password pasted in the wrong place). So only the place (line and column)
 * and what is wrong, in ctl's own words or in js-yaml's fixed ones, are told, as kubectl's
 * `error parsing ...: yaml: line 16: ...` does. Nothing is printed while parsing (js-yaml calls
 * no warning handler unless given one). Reasons: nodeca/js-yaml lib/loader.js (throwError).
 */

import jsYaml from 'js-yaml';

/**
 * The one document of `text` (YAML is a superset of JSON: one parser reads both); an empty text
 * is null, as an empty document. A text of several documents is refused, with the line where the
 * second one begins (js-yaml's load says "expected a single document" with no place: a
 * kubeconfig with a stray `---` was refused without saying where). An error is thrown, for
 * yamlProblem to describe.
 */
export function parseYaml(text: string): unknown {
  let second: { line: number; column: number } | undefined;
  let firstEnd: number | undefined;
  const values = jsYaml.loadAll(text, null, {
    schema: OUTSIDE_SCHEMA,
    // A document's top node opens and closes at depth 1 (`depth` is js-yaml's own, lib/loader.js
    // composeNode, not in its typings): the second begins at the first `---` after the first
    // one's end, or, after a `...` end marker without one, where its node does.
    listener(event, state) {
      if ((state as { depth?: number }).depth !== 1 || second !== undefined) return;
      if (event === 'close') firstEnd ??= state.position;
      else if (firstEnd !== undefined) second = placeOfSecond(state.input, firstEnd, state.position);
    },
  });
  if (values.length > 1) {
    // A place only, as js-yaml's marks: no buffer, name or snippet that would quote the text.
    throw new jsYaml.YAMLException(SEVERAL_DOCUMENTS, second as jsYaml.Mark | undefined);
  }
  refuseAliasBomb(values, aliasBudget(text));
  return values[0] ?? null;
}

/** The line and column (0-based, as js-yaml's marks) of the second document's start. */
function placeOfSecond(
  input: string,
  firstEnd: number,
  secondNode: number,
): { line: number; column: number } {
  const marker = /(^|\n)---/.exec(input.slice(firstEnd, secondNode));
  const at = marker ? firstEnd + marker.index + (marker[1] ?? '').length : secondNode;
  const before = input.slice(0, at);
  return { line: before.split('\n').length - 1, column: at - (before.lastIndexOf('\n') + 1) };
}

/** parseYaml's reason for a second document, told with its place. */
const SEVERAL_DOCUMENTS = 'several documents where one is expected';

/**
 * Every document of `text` (a manifest stream, `---` between them), in order, as kubectl reads
 * them. The `yaml` package refuses some that Go's parser takes: the upstream release's
 * bundle.yaml (from v7.22.2-40 at least, redis-enterprise-k8s-docs) has a single-quoted
 * description whose second line is indented no deeper than its key ("missing closing 'quote" to
 * `yaml`, line 4799 of the 8.0 bundle), so ctl refused the release's own bundle. js-yaml takes
 * it, as client-node's kubeconfig reader does, and reads a large bundle about five times faster.
 * The first error of any document is thrown, for yamlProblem to describe.
 */
export function parseYamlDocuments(text: string): unknown[] {
  const values = jsYaml.loadAll(text, null, { schema: OUTSIDE_SCHEMA });
  refuseAliasBomb(values, aliasBudget(text));
  return values;
}

/**
 * The plain scalars gopkg.in/yaml.v2 resolves as booleans (resolve.go, resolveMapList: "y", "Y",
 * "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON" true; "n", "N", "no", "No", "NO",
 * "false", "False", "FALSE", "off", "Off", "OFF" false; read in kubernetes/kubernetes
 * vendor/gopkg.in/yaml.v2/resolve.go, the yaml.v2 that sigs.k8s.io/yaml's YAMLToJSON and
 * Unmarshal use). kubectl reads a kubeconfig through YAMLToJSON into an untyped value, so these
 * are JSON booleans before any field is filled; helm's index.yaml is read by sigs.k8s.io/yaml's
 * Unmarshal, which turns such a boolean into "true" or "false" where the field is a string.
 * yaml.v3 (sigs.k8s.io/yaml/goyaml.v3) reads them as text unless the field is a bool: kubectl and
 * helm read YAML with v2.
 */
const GO_BOOLEANS = new Map<string, boolean>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map(
    (word) => [word, true] as const,
  ),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map(
    (word) => [word, false] as const,
  ),
]);

/**
 * YAML 1.2's core schema (str, int, bool, null, float, seq, map) with what Go's parser
 * (gopkg.in/yaml.v2, kubectl's and helm's through sigs.k8s.io/yaml) does beyond it. Dates stay
 * text, as Go's parser leaves a timestamp read into an untyped value (yaml.v2 decode.go,
 * decoder.scalar: "for backward compatibility reasons we set it as a string").
 * - booleans are YAML 1.1's, as yaml.v2 resolves a plain scalar (GO_BOOLEANS): `yes`, `on`, `y`
 *   and their false forms are booleans, as kubectl reads `insecure-skip-tls-verify: yes`; quoted
 *   (or tagged `!!str`) they stay text, as in Go.
 * - any other tag is read as the plain value under it (a scalar, sequence or mapping), as Go's
 *   parser reads a tag it cannot resolve (yaml.v2 resolve.go: `if !resolvableTag(tag) { return
 *   tag, in }`): a manifest's `!vault x` or `!!binary` must not stop a run, and a tag never makes
 *   anything but text, lists and mappings (js-yaml 4 has no `!!js/function`; here it is its
 *   text). The core schema's own tags resolve first.
 * - merge keys (`<<: *defaults`), which Go's parser and client-node's kubeconfig reader (js-yaml's
 *   default schema) take: a kubeconfig that uses one reads as before. js-yaml bounds them
 *   (maxTotalMergeKeys, 10,000 keys copied) and refuseAliasBomb counts what they share.
 */
const OUTSIDE_SCHEMA = jsYaml.CORE_SCHEMA.extend({
  implicit: [
    // Same tag and kind as the core schema's bool: js-yaml's extend puts this one in its place.
    new jsYaml.Type('tag:yaml.org,2002:bool', {
      kind: 'scalar',
      resolve: (data: unknown) => typeof data === 'string' && GO_BOOLEANS.has(data),
      construct: (data: string) => GO_BOOLEANS.get(data) === true,
      predicate: (value: unknown) => typeof value === 'boolean',
      represent: (value: object) => String(value),
    }),
    new jsYaml.Type('tag:yaml.org,2002:merge', {
      kind: 'scalar',
      resolve: (data: unknown) => data === '<<',
    }),
  ],
  explicit: ['!', 'tag:yaml.org,2002:'].flatMap((prefix) =>
    (['scalar', 'sequence', 'mapping'] as const).map(
      (kind) =>
        new jsYaml.Type(prefix, {
          kind,
          multi: true,
          construct: (data: unknown) => data ?? (kind === 'scalar' ? '' : kind === 'sequence' ? [] : {}),
        }),
    ),
  ),
});

/** A text without aliases has fewer nodes than characters: twice as many, and some room. */
function aliasBudget(text: string): number {
  return 2 * text.length + 10_000;
}

/**
 * js-yaml gives an alias the anchored value itself, so a few lines of aliases of aliases ("billion
 * laughs") make a value whose every later walk (the objects sent to the API, their JSON, a schema
 * check) grows exponentially. A walk of at most `budget` nodes, each counted as often as it is
 * reached, refuses it before anything else walks it.
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

/** An alias bomb, refused with no place: yamlProblem tells it as "too many aliases". */
class AliasBombError extends Error {
  override name = 'YAMLAliasBomb';
  constructor() {
    super('too many aliases');
  }
}

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
  SEVERAL_DOCUMENTS,
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
  ['unknown tag ', 'a tag YAML does not know'],
  ['unidentified alias ', 'an alias whose anchor is not set before it'],
  ['undeclared tag handle ', 'a tag handle no %TAG directive declares'],
  ['tag name ', 'a tag name YAML does not allow'],
  ['tag prefix is malformed', 'a %TAG directive YAML does not allow'],
  ['there is a previously declared suffix', 'a tag handle declared twice'],
  ['unacceptable node kind for ', 'a tag that does not fit its collection'],
  ['cannot resolve a node with ', 'a tag YAML does not know'],
  // These end in a number of js-yaml's, not the file's; said without it all the same.
  ['nesting exceeded maxDepth', 'nesting deeper than the parser allows'],
  ['merge keys exceeded maxTotalMergeKeys', 'too many merge keys'],
];

interface YamlErrorShape {
  name?: unknown;
  /** js-yaml's reason (its message without place and code frame), and its place, 0-based. */
  reason?: unknown;
  mark?: { line?: unknown; column?: unknown };
}

/** Whether `error` is the YAML parser's (or the alias bomb's), which yamlProblem describes. */
export function isYamlError(error: unknown): boolean {
  // By name, not class: any copy of js-yaml (client-node's own) throws the same shape.
  return (error as YamlErrorShape | null)?.name === 'YAMLException' || error instanceof AliasBombError;
}

/** `line 3, column 7: duplicated mapping key`: where, and what is wrong, nothing quoted. */
export function yamlProblem(error: unknown): string {
  if (error instanceof AliasBombError) return error.message;
  const parsed = (isYamlError(error) ? error : {}) as YamlErrorShape;
  if (typeof parsed.reason !== 'string') return 'not valid YAML';
  const mark = parsed.mark;
  const where =
    typeof mark?.line === 'number'
      ? `line ${mark.line + 1}${typeof mark.column === 'number' ? `, column ${mark.column + 1}` : ''}: `
      : '';
  return `${where}${jsYamlWhat(parsed.reason)}`;
}

function jsYamlWhat(reason: string): string {
  if (JS_YAML_FIXED_REASONS.has(reason)) return reason;
  const quoting = JS_YAML_QUOTING_REASONS.find(([start]) => reason.startsWith(start));
  return quoting ? quoting[1] : 'not valid YAML';
}
