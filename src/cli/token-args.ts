import type { AuthTokenValues } from './auth-action.js';
import { normalizeKubectlArgs } from './kubectl-args.js';
import { CONNECTION_OPTIONS, GLOBAL_OPTIONS, type OptionSpec, TOKEN_OPTIONS } from './option-specs.js';

// `ctl auth token`'s arguments read without commander, from the same declarations
// (option-specs.ts), for the token's own entry (src/token-main.ts): loading commander is most of
// what the token costs beyond a bare HTTPS request (docs/performance.md).
//
// It reads only the plain spellings and answers undefined for anything else, and bin/ctl.js then
// runs the whole tree, which parses, answers and fails as it always has. So every message
// (--help, a bad or unknown flag, a missing value, a bad choice, an extra word) still comes from
// commander, and what this accepts it reads to the same values as commander (test/unit/cli/
// token-args.test.ts checks that against the tree for thousands of argument lists).
//
// Accepted: global options anywhere (commander's root reads them anywhere), then `auth`, then
// `token`, then token's options; a value as the next word or, for a long flag, after `=`;
// switches alone or grouped (-vv, -qv); kubectl's -v=N (kubectl-args.ts). Not accepted, so left
// to the tree: a value that starts with '-', a short flag with its value attached (-nredis),
// `--`, -h, --help, --version, any other word or flag.

interface Flag {
  spec: OptionSpec;
  /** commander's attribute name: --api-url -> apiUrl, --no-color -> color. */
  key: string;
  short?: string;
  long: string;
  takesValue: boolean;
  negate: boolean;
}

const ROOT_FLAGS = GLOBAL_OPTIONS.map(flagOf);
const TOKEN_FLAGS = [...TOKEN_OPTIONS, ...CONNECTION_OPTIONS].map(flagOf);

/** The values commander would give `ctl auth token`'s action for `argv`, or undefined (see above). */
export function parseTokenArgs(argv: readonly string[]): AuthTokenValues | undefined {
  const args = normalizeKubectlArgs(argv);
  const root = defaults(ROOT_FLAGS);
  const own = defaults(TOKEN_FLAGS);
  let words = 0; // 0: before `auth`, 1: after `auth`, 2: after `token`
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg.length <= 1 || !arg.startsWith('-')) {
      if (words === 0 && arg === 'auth') words = 1;
      else if (words === 1 && arg === 'token') words = 2;
      else return undefined;
      continue;
    }
    // Root options are read anywhere; token's only after `token` (before it, commander fails).
    const known = words === 2 ? [...ROOT_FLAGS, ...TOKEN_FLAGS] : ROOT_FLAGS;
    const values = (flag: Flag) => (ROOT_FLAGS.includes(flag) ? root : own);
    const equals = arg.indexOf('=');
    if (arg.startsWith('--') && equals > 2) {
      const flag = known.find((f) => f.long === arg.slice(0, equals));
      if (!flag?.takesValue || !setValue(flag, values(flag), arg.slice(equals + 1))) return undefined;
      continue;
    }
    const flag = known.find((f) => f.long === arg || f.short === arg);
    if (flag) {
      if (!flag.takesValue) setSwitch(flag, values(flag));
      else {
        const value = args[i + 1];
        i += 1;
        if (value === undefined || value.startsWith('-') || !setValue(flag, values(flag), value))
          return undefined;
      }
      continue;
    }
    // A group of switches, -vv or -qv: commander reads each letter in turn.
    if (arg.startsWith('--')) return undefined;
    const group = [...arg.slice(1)].map((letter) => known.find((f) => f.short === `-${letter}`));
    if (group.some((f) => f === undefined || f.takesValue)) return undefined;
    for (const f of group as Flag[]) setSwitch(f, values(f));
  }
  return words === 2 ? { all: { ...root, ...own }, own } : undefined;
}

function flagOf(spec: OptionSpec): Flag {
  const match = /^(?:(-[a-zA-Z]), )?(--[a-z][a-z-]*)( <[a-z]+>)?$/.exec(spec.flags);
  if (!match) throw new Error(`token-args: cannot read the flags "${spec.flags}"`);
  const long = match[2] as string;
  const negate = long.startsWith('--no-');
  const name = long.slice(negate ? 5 : 2);
  return {
    spec,
    key: name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()),
    ...(match[1] ? { short: match[1] } : {}),
    long,
    takesValue: match[3] !== undefined,
    negate,
  };
}

/** commander's starting values: the declared defaults, and true for a --no-x switch. */
function defaults(flags: readonly Flag[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const flag of flags) {
    if (flag.spec.default !== undefined) values[flag.key] = flag.spec.default;
    else if (flag.negate) values[flag.key] = true;
  }
  return values;
}

function setSwitch(flag: Flag, values: Record<string, unknown>): void {
  if (flag.spec.repeat === 'count') values[flag.key] = (values[flag.key] as number) + 1;
  else values[flag.key] = !flag.negate;
}

/** False for a value commander would refuse (not one of the choices). */
function setValue(flag: Flag, values: Record<string, unknown>, value: string): boolean {
  if (flag.spec.choices && !flag.spec.choices.includes(value)) return false;
  if (flag.spec.repeat === 'collect') values[flag.key] = [...((values[flag.key] as string[]) ?? []), value];
  else values[flag.key] = value;
  return true;
}
