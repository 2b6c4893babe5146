#!/usr/bin/env node
// Reads the update graph of Redis's certified OLM bundles at the source, for the catalog's `olm`
// section (src/release/catalog.json, docs/catalog.schema.json): every bundle of
// redhat-openshift-ecosystem/certified-operators `operators/redis-enterprise-operator-cert/`, its
// CSV's spec.skips, spec.replaces and olm.skipRange annotation, and its channels
// (metadata/annotations.yaml). Reads a git clone without a work tree (git ls-tree / git show), so
// the commit read is the one named.
//
//   node scripts/read-olm-bundles.mjs <git-dir> [<commit>]   prints the section as JSON
//
// CSV names are `redis-enterprise-operator.v<bundle>`; the section stores the bundle part only.
import { execFileSync } from 'node:child_process';
import { parse } from 'yaml';

const [gitDir, commit = 'HEAD'] = process.argv.slice(2);
if (!gitDir) {
  process.stderr.write('usage: node scripts/read-olm-bundles.mjs <git-dir> [<commit>]\n');
  process.exit(2);
}
const ROOT = 'operators/redis-enterprise-operator-cert/';
const PREFIX = 'redis-enterprise-operator.v';
const git = (...args) =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
const sha = git('rev-parse', commit).trim();
const strip = (csv) => (csv.startsWith(PREFIX) ? csv.slice(PREFIX.length) : csv);

const bundles = [];
for (const dir of git('ls-tree', '--name-only', sha, ROOT).split('\n').filter(Boolean)) {
  const files = git('ls-tree', '-r', '--name-only', sha, dir).split('\n');
  const csvFile = files.find((f) => f.endsWith('.clusterserviceversion.yaml'));
  if (!csvFile) continue;
  const csv = parse(git('show', `${sha}:${csvFile}`));
  const annotationsFile = files.find((f) => f.endsWith('metadata/annotations.yaml'));
  const annotations = annotationsFile
    ? (parse(git('show', `${sha}:${annotationsFile}`))?.annotations ?? {})
    : {};
  const channels = annotations['operators.operatorframework.io.bundle.channels.v1'];
  const entry = { bundle: strip(csv.metadata.name) };
  if (channels)
    entry.channels = String(channels)
      .split(',')
      .map((c) => c.trim());
  entry.skips = (csv.spec.skips ?? []).map(strip);
  if (csv.spec.replaces) entry.replaces = strip(csv.spec.replaces);
  const skipRange = csv.metadata.annotations?.['olm.skipRange'];
  if (skipRange) entry.skipRange = skipRange;
  bundles.push(entry);
}
const numbers = (bundle) => (bundle.match(/\d+/g) ?? []).map(Number);
bundles.sort((a, b) => {
  const x = numbers(a.bundle);
  const y = numbers(b.bundle);
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? -1) !== (y[i] ?? -1)) return (x[i] ?? -1) - (y[i] ?? -1);
  return a.bundle.localeCompare(b.bundle);
});
process.stdout.write(`${JSON.stringify({ commit: sha, bundles }, null, 2)}\n`);
