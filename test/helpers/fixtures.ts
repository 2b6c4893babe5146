import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleYaml } from './simulator.js';
import { repoRoot } from './tools.js';

/**
 * ctl's own test data: test/fixtures/ (manifests written for these tests) and the simulated
 * operator's bundle. The upstream manifests are read only by the upstream suite (test/upstream/).
 */

/** A file of test/fixtures/ (the source tree: tsc does not copy YAML into dist). */
export function fixtureFile(name: string): string {
  return join(repoRoot, 'test', 'fixtures', name);
}

let bundleDir: string | undefined;
const bundlesWritten = new Set<string>();

/**
 * The simulated operator's bundle.yaml (its CRDs, RBAC, admission Service and Deployment, as
 * src/sim/artifacts serves it), written once per test process and version into a temporary
 * folder that is removed when the process exits. Never written again: a kubectl of a test
 * running beside may be reading it.
 */
export function simBundleFile(version = '7.8.2-6'): string {
  if (!bundleDir) {
    const dir = mkdtempSync(join(tmpdir(), 'ctl-fixture-bundle-'));
    bundleDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const file = join(bundleDir, `bundle-${version}.yaml`);
  if (!bundlesWritten.has(file)) {
    writeFileSync(file, bundleYaml(version, 'redis', 'kubernetes'));
    bundlesWritten.add(file);
  }
  return file;
}
