/**
 * A Kubernetes list parsed without its objects' `metadata.managedFields`: the API server's
 * record of which manager set which field (server-side apply), about half the bytes of a
 * database resource as the server writes it, and nothing ctl reads. At 10,000 databases the
 * list is ~15 MB; parsing it whole made ~10,000 x 20 objects ctl never looked at, and the
 * garbage collector copied them all (docs/performance.md, issue 39). The API offers no way to
 * leave the field out of a list (kubectl hides it on the client side too:
 * `--show-managed-fields`).
 *
 * The members are cut from the JSON text before JSON.parse, which stays the only parser. The
 * cut is exact on valid JSON: a `"` right after a structural `{` or `,` opens a key (inside a
 * string every `"` is escaped as `\"`, and a string that ends in `{` or `,` cannot be followed
 * by a letter), so `"managedFields":` there is always the member's key; its value is matched as
 * a JSON list with strings (escapes included) and lists nested at most two deep, which is what
 * managedFields holds (objects of FieldsV1, whose keys are strings). Anything else (whitespace
 * between the tokens, a deeper list) is left in the text, and parses as before; if the cut text
 * does not parse, the whole text is parsed instead.
 */

/** A JSON string token, escapes included. */
const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
/** A JSON list holding no list: any character but quotes and brackets, or whole strings. */
const FLAT_LIST = String.raw`\[(?:[^"\[\]]|${STRING})*\]`;
/** A JSON list holding lists at most one deep more. */
const LIST = String.raw`\[(?:[^"\[\]]|${STRING}|${FLAT_LIST})*\]`;
/**
 * The member with the comma that separates it: the comma before it (`,"managedFields":[...]`
 * before `,` or `}`), or, as an object's first member, the comma after it (or none when alone).
 */
const MANAGED_FIELDS = new RegExp(
  String.raw`,"managedFields":${LIST}(?=[,}])|(?<=\{)"managedFields":${LIST}(?:,(?=")|(?=\}))`,
  'g',
);

/** JSON.parse(text), without any object member `managedFields` that holds a list. */
export function parseWithoutManagedFields(text: string): unknown {
  const lean = text.replace(MANAGED_FIELDS, '');
  if (lean.length !== text.length) {
    try {
      return JSON.parse(lean);
    } catch {
      // Not what this file expects of a list: the whole text decides, as without the cut.
    }
  }
  return JSON.parse(text);
}
