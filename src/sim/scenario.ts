/**
 * Scenarios: what the simulated cluster looks like when it starts (SIMULATOR.md "Scenario
 * file"). Built-in ones live in `scenarios/<name>.yaml` at the package root; users pass a path
 * to their own. Every problem is a ScenarioError (exit 2) naming the file, the field and the reason.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { simPackageRoot } from './world/package-root.js';
import { ScenarioError } from './world/errors.js';
import { resolveScenario } from './scenario/expand.js';
import { problemsFromIssues, scenarioError } from './scenario/report.js';
import { type Scenario, scenarioFileSchema } from './scenario/schema.js';

export type {
  Scenario,
  ScenarioDatabase,
  ScenarioFault,
  ScenarioModule,
  ScenarioTiming,
  ScenarioUser,
} from './scenario/schema.js';
export { DEFAULT_ADMIN } from './scenario/schema.js';

/** Where the yaml package lists its error codes (what each means). */
const YAML_ERROR_CODES = 'its codes: https://eemeli.org/yaml/#errors';

/** `scenarios/` at the package root. */
export function builtInScenarioDir(): string {
  return path.join(simPackageRoot(), 'scenarios');
}

function builtInNames(): string[] {
  const dir = builtInScenarioDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => file.slice(0, -'.yaml'.length))
    .sort();
}

function looksLikePath(nameOrFile: string): boolean {
  return /[\\/]/.test(nameOrFile) || /\.ya?ml$/i.test(nameOrFile);
}

/**
 * Reads a scenario file given by path, whole, as text. ctl's commands pass their reader of files
 * from outside (regular files only, within a bound, never waited on): the simulator imports nothing
 * of ctl's. A refusal of the reader's own (an error without an errno code) is thrown as it is.
 */
export type ReadScenarioFile = (file: string) => string;

/** A built-in scenario by name (`happy-path`) or a YAML file by path, read with `readFile`. */
export function loadScenario(
  nameOrFile: string,
  readFile: ReadScenarioFile = (file) => readFileSync(file, 'utf8'),
): Scenario {
  const builtIns = builtInNames();
  if (!looksLikePath(nameOrFile) && builtIns.includes(nameOrFile)) {
    const file = path.join(builtInScenarioDir(), `${nameOrFile}.yaml`);
    return parseScenario(readFileSync(file, 'utf8'), `scenarios/${nameOrFile}.yaml`);
  }
  if (!looksLikePath(nameOrFile) && !existsSync(nameOrFile)) {
    const near = nearestNames(nameOrFile, builtIns);
    const guess =
      near.length === 0
        ? ''
        : near.length <= 2
          ? `; did you mean ${near.join(' or ')}?`
          : `; did you mean one of ${near.join(', ')}?`;
    throw new ScenarioError(`unknown scenario "${nameOrFile}"${guess}`, {
      hint: `Built-in scenarios: ${builtIns.join(', ')}. Or give the path to a scenario YAML file.`,
    });
  }
  let text: string;
  try {
    text = readFile(nameOrFile);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    const reason = code === 'ENOENT' ? 'no such file' : String(error);
    throw new ScenarioError(`${nameOrFile}: cannot read the scenario file: ${reason}`, { cause: error });
  }
  return parseScenario(text, nameOrFile);
}

/**
 * The built-in names a mistyped one is closest to, nearest first; none when nothing is close. A
 * name whose first word names a family of scenarios (`olm-installed`: the `olm-*` ones) is
 * answered within it: its closest members, else all of them, never a scenario of another kind
 * that is only spelt alike (`helm-installed` is two letters from `olm-installed`).
 */
export function nearestNames(typed: string, names: readonly string[]): string[] {
  const dash = typed.indexOf('-');
  const family =
    dash > 0 ? names.filter((name) => name.startsWith(typed.slice(0, dash + 1).toLowerCase())) : [];
  if (family.length === 0) return closestNames(typed, names);
  const near = closestNames(typed, family);
  return near.length > 0 ? near : family;
}

/**
 * The names at most a third of its letters off `typed` (as commander's "did you mean" for
 * commands), nearest first.
 */
function closestNames(typed: string, names: readonly string[]): string[] {
  const limit = Math.max(1, Math.floor(typed.length / 3));
  const scored = names
    .map((name) => ({ name, distance: editDistance(typed.toLowerCase(), name) }))
    .filter((entry) => entry.distance <= limit);
  const best = Math.min(...scored.map((entry) => entry.distance));
  return scored.filter((entry) => entry.distance === best).map((entry) => entry.name);
}

/** Levenshtein distance with transpositions (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Validates scenario YAML; `sourceName` is what error messages call the file. A scenario is the
 * user's file and may hold passwords (admin, users): a YAML fault is told by its place and the
 * yaml package's error code, never the parser's message, which quotes the lines around it and,
 * for some faults, the text itself (an escape sequence, a tag, an alias name). ctl describes
 * such faults in its own words (src/io/yaml-from-outside.ts); the simulator imports nothing of
 * ctl's (SIMULATOR.md "Independence"), so it says the code, which the yaml package documents.
 */
export function parseScenario(text: string, sourceName: string): Scenario {
  const lines = new LineCounter();
  // logLevel error: building the document would print a warning quoting a mapping used as a key.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, logLevel: 'error' });
  const syntax = doc.errors[0];
  if (syntax) {
    const position = lines.linePos(syntax.pos[0]);
    throw new ScenarioError(
      `${sourceName}: line ${position.line}, column ${position.col}: YAML syntax error: ${syntax.code}`,
      {
        hint: `Fix the YAML syntax of the scenario file at that line (${YAML_ERROR_CODES}), then run again.`,
      },
    );
  }
  let raw: unknown;
  try {
    raw = doc.toJS();
  } catch (error) {
    // An alias whose anchor is not set (its message names the alias), or an alias bomb
    // ("billion laughs"), both refused here, after a clean parse; neither has a place.
    const unresolved = error instanceof Error && error.message.startsWith('Unresolved alias');
    throw new ScenarioError(
      `${sourceName}: cannot read the scenario: ${unresolved ? 'an alias whose anchor is not set before it' : 'too many YAML aliases'}`,
      {
        hint: unresolved
          ? 'Set the anchor (&name) before each alias (*name), or write the value out, then run again.'
          : 'Write the scenario without deeply repeated YAML aliases, then run again.',
        cause: error,
      },
    );
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw scenarioError(sourceName, [
      { path: [], message: 'expected a mapping with name, description, operator and cluster' },
    ]);

  const parsed = scenarioFileSchema.safeParse(raw);
  if (!parsed.success)
    throw scenarioError(sourceName, problemsFromIssues(parsed.error.issues, raw), { doc, lines });
  const { scenario, problems } = resolveScenario(parsed.data);
  if (problems.length > 0) throw scenarioError(sourceName, problems, { doc, lines });
  return scenario;
}

/** One line per built-in scenario, for `ctl sim scenarios`. */
export function listScenarios(): { name: string; description: string }[] {
  return builtInNames().map((name) => {
    const file = path.join(builtInScenarioDir(), `${name}.yaml`);
    // Only the header is needed; a full load would expand scale-1000 for nothing.
    const header = parseDocument(readFileSync(file, 'utf8')).toJS() as { description?: unknown } | null;
    return { name, description: typeof header?.description === 'string' ? header.description : '' };
  });
}

/** Every simulated wait at zero (seconds). */
export const FAST_TIMING: Readonly<Scenario['timing']> = {
  operatorStart: 0,
  podRestart: 0,
  databaseUpgrade: 0,
  failover: 0,
};

/** The same scenario with every simulated wait at zero: demos and tests run as fast as they can. */
export function withFastTiming(scenario: Scenario): Scenario {
  return { ...structuredClone(scenario), timing: { ...FAST_TIMING } };
}
