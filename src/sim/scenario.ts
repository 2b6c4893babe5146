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

/** A built-in scenario by name (`happy-path`) or a YAML file by path. */
export function loadScenario(nameOrFile: string): Scenario {
  const builtIns = builtInNames();
  if (!looksLikePath(nameOrFile) && builtIns.includes(nameOrFile)) {
    const file = path.join(builtInScenarioDir(), `${nameOrFile}.yaml`);
    return parseScenario(readFileSync(file, 'utf8'), `scenarios/${nameOrFile}.yaml`);
  }
  if (!looksLikePath(nameOrFile) && !existsSync(nameOrFile)) {
    throw new ScenarioError(`unknown scenario "${nameOrFile}"`, {
      hint: `Built-in scenarios: ${builtIns.join(', ')}. Or give the path to a scenario YAML file.`,
    });
  }
  let text: string;
  try {
    text = readFileSync(nameOrFile, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error);
    throw new ScenarioError(`${nameOrFile}: cannot read the scenario file: ${reason}`, { cause: error });
  }
  return parseScenario(text, nameOrFile);
}

/** Validates scenario YAML; `sourceName` is what error messages call the file. */
export function parseScenario(text: string, sourceName: string): Scenario {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) {
    const position = lines.linePos(syntax.pos[0]);
    const firstLine = syntax.message.split('\n')[0];
    throw new ScenarioError(
      `${sourceName}: line ${position.line}, column ${position.col}: YAML syntax error: ${firstLine}`,
      { hint: 'Fix the YAML syntax of the scenario file, then run again.' },
    );
  }
  let raw: unknown;
  try {
    raw = doc.toJS();
  } catch (error) {
    // The yaml library refuses alias bombs ("billion laughs") here, after a clean parse.
    throw new ScenarioError(`${sourceName}: cannot read the scenario: ${(error as Error).message}`, {
      hint: 'Write the scenario without deeply repeated YAML aliases, then run again.',
      cause: error,
    });
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

/** The same scenario with every simulated wait at zero: demos and tests run as fast as they can. */
export function withFastTiming(scenario: Scenario): Scenario {
  return {
    ...structuredClone(scenario),
    timing: { operatorStart: 0, podRestart: 0, databaseUpgrade: 0, failover: 0 },
  };
}
