// Reads the certified OLM bundles of Redis Enterprise in a redhat-openshift-ecosystem/
// certified-operators checkout (operators/redis-enterprise-operator-cert/<bundle>/): each
// bundle's `com.redhat.openshift.versions` (metadata/annotations.yaml), and its CSV's
// `spec.replaces` and `spec.skips` (manifests/*.clusterserviceversion.yaml). Line-based on
// purpose: these files are flat YAML written by the same pipeline, and the script takes no
// dependency; a file it cannot read is reported, never guessed.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const BUNDLES_DIR = 'operators/redis-enterprise-operator-cert';

/** `8.0.20-26.2` -> operator `8.0.20-26`; old directories `v6.2.8-2` (no bundle build) -> itself. */
export function operatorOfBundle(bundle) {
  const match = /^v?(\d+\.\d+\.\d+-\d+)(?:\.\d+)?[a-z]?$/.exec(bundle);
  return match?.[1];
}

function annotation(text, key) {
  for (const line of text.split('\n')) {
    const match = /^\s*([\w./-]+)\s*:\s*(.*?)\s*$/.exec(line);
    if (match && match[1] === key) return match[2].replace(/^["']|["']$/g, '');
  }
  return undefined;
}

/** `spec.replaces` and `spec.skips` of a CSV (two-space indented under `spec:`). */
function updates(csv) {
  const lines = csv.split('\n');
  const spec = lines.findIndex((l) => /^spec:\s*$/.test(l));
  let replaces;
  const skips = [];
  for (let i = spec + 1; spec >= 0 && i < lines.length; i++) {
    const line = lines[i];
    if (/^\S/.test(line)) break;
    const rep = /^ {2}replaces:\s*(\S+)\s*$/.exec(line);
    if (rep) replaces = rep[1].replace(/^["']|["']$/g, '');
    if (/^ {2}skips:\s*$/.test(line)) {
      for (let j = i + 1; j < lines.length && /^ {2,4}- /.test(lines[j]); j++)
        skips.push(
          lines[j]
            .replace(/^ {2,4}- /, '')
            .trim()
            .replace(/^["']|["']$/g, ''),
        );
    }
  }
  return { replaces, skips };
}

/** Every bundle directory's facts, sorted by directory name. */
export function readBundles(checkout) {
  const root = path.join(checkout, BUNDLES_DIR);
  const out = [];
  for (const name of readdirSync(root).sort()) {
    const dir = path.join(root, name);
    const annotations = path.join(dir, 'metadata', 'annotations.yaml');
    if (!existsSync(annotations)) continue;
    const operator = operatorOfBundle(name);
    if (!operator) continue;
    const text = readFileSync(annotations, 'utf8');
    const manifests = path.join(dir, 'manifests');
    const csvFile = existsSync(manifests)
      ? readdirSync(manifests).find((f) => f.endsWith('.clusterserviceversion.yaml'))
      : undefined;
    const csv = csvFile ? readFileSync(path.join(manifests, csvFile), 'utf8') : '';
    out.push({
      bundle: name.replace(/^v/, ''),
      operator,
      openshiftVersions: annotation(text, 'com.redhat.openshift.versions'),
      ...updates(csv),
      file: `${BUNDLES_DIR}/${name}/metadata/annotations.yaml`,
    });
  }
  return out;
}
