#!/usr/bin/env node
// The package.json that `npm pack` ships (scripts/shipped-manifest.mjs): no scripts, no
// development dependencies.
//
//   node scripts/pack-manifest.mjs strip     prepack: keep package.json aside, write the shipped one
//   node scripts/pack-manifest.mjs restore   postpack: put package.json back
//
// A pack stopped between the two leaves the original in package.json.before-pack: the next
// strip (or restore) puts it back first, so the checkout's package.json is never lost.
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shippedManifest } from './shipped-manifest.mjs';

const root = join(import.meta.dirname, '..');
const manifest = join(root, 'package.json');
const aside = join(root, 'package.json.before-pack');

function restore() {
  if (existsSync(aside)) renameSync(aside, manifest);
}

const mode = process.argv[2];
if (mode === 'strip') {
  restore();
  const shipped = shippedManifest(JSON.parse(readFileSync(manifest, 'utf8')));
  // A copy aside, then a rename over package.json: whoever reads it meanwhile reads a whole file.
  copyFileSync(manifest, aside);
  writeFileSync(`${manifest}.shipped`, shipped);
  renameSync(`${manifest}.shipped`, manifest);
} else if (mode === 'restore') {
  restore();
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
}
