#!/usr/bin/env node
// The package.json that `npm pack` ships: what an installed ctl needs (name, version, bin,
// engines, files, type, licence and the registry's descriptive fields), without the scripts
// (`prepare` would make npm try to build an installed package) and without the development
// dependencies (npm warns about them on every install that runs no scripts).
//
//   node scripts/pack-manifest.mjs strip     prepack: keep package.json aside, write the shipped one
//   node scripts/pack-manifest.mjs restore   postpack: put package.json back
//
// A pack stopped between the two leaves the original in package.json.before-pack: the next
// strip (or restore) puts it back first, so the checkout's package.json is never lost.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const manifest = join(root, 'package.json');
const aside = join(root, 'package.json.before-pack');
const SHIPPED = [
  'name',
  'version',
  'description',
  'keywords',
  'license',
  'repository',
  'type',
  'bin',
  'engines',
  'files',
];

function restore() {
  if (existsSync(aside)) renameSync(aside, manifest);
}

const mode = process.argv[2];
if (mode === 'strip') {
  restore();
  const full = JSON.parse(readFileSync(manifest, 'utf8'));
  const shipped = Object.fromEntries(SHIPPED.filter((key) => key in full).map((key) => [key, full[key]]));
  renameSync(manifest, aside);
  writeFileSync(manifest, `${JSON.stringify(shipped, null, 2)}\n`);
} else if (mode === 'restore') {
  restore();
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
}
