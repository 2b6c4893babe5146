/**
 * A release tree on disk (`<dir>/<version>/bundle.yaml`, `admission/webhook.yaml`, ...), built
 * from the simulator's own manifests, so `--bundle <dir>/{version}/bundle.yaml` works offline.
 */

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { BUNDLE_FILES, bundleFile } from '../../../src/sim/artifacts/bundles.js';
import { tempDir } from '../../helpers/temp.js';

export const SCC_YAML = stringify({
  apiVersion: 'security.openshift.io/v1',
  kind: 'SecurityContextConstraints',
  metadata: { name: 'redis-enterprise-scc-v2' },
  allowedCapabilities: ['SYS_RESOURCE'],
  users: [],
});

export function writeReleaseTree(versions: string[], dialect: 'engine' | 'redis' = 'redis'): string {
  const root = tempDir('ctl-release-');
  for (const version of versions) {
    for (const file of BUNDLE_FILES) {
      const path = join(root, version, file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bundleFile(file, version, dialect) ?? '');
    }
    mkdirSync(join(root, version, 'openshift'), { recursive: true });
    writeFileSync(join(root, version, 'openshift', 'scc.yaml'), SCC_YAML);
  }
  return join(root, '{version}', 'bundle.yaml');
}

/** Removes a tree writeReleaseTree made (tests leave nothing in the temp folder). */
export function removeReleaseTree(bundle: string): void {
  const root = bundle.slice(0, bundle.indexOf('/{version}/'));
  if (root.startsWith(join(tmpdir(), 'ctl-release-'))) rmSync(root, { recursive: true, force: true });
}
