import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from './temp.js';

/** One check of a plan's JSON (`ctl upgrade plan -o json`), as the tests read it. */
export interface PlanCheck {
  id: string;
  status: string;
  message: string;
  fix: string;
}

/**
 * A scenario file written by a test (names and namespaces of its own), in a temporary folder
 * removed when the test process exits; `writtenBy` goes into its description.
 */
export function writeScenario(writtenBy: string, name: string, body: string): string {
  const file = path.join(tempDir('ctl-scenario-'), `${name}.yaml`);
  writeFileSync(file, `name: ${name}\ndescription: "written by ${writtenBy}"\n${body}`);
  return file;
}

/** The check `id` of a plan (its JSON text or the parsed document); fails naming the ids there are. */
export function checkIn(plan: string | { checks: PlanCheck[] }, id: string): PlanCheck {
  const doc = typeof plan === 'string' ? (JSON.parse(plan) as { checks: PlanCheck[] }) : plan;
  const check = doc.checks.find((c) => c.id === id);
  assert.ok(check, `no check ${id} in ${doc.checks.map((c) => c.id).join(', ')}`);
  return check;
}
