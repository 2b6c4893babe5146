#!/usr/bin/env node
// npm run catalog:refresh -- --docs <redis/docs checkout> [--bundles <certified-operators checkout>]
//   [--k8s-docs <redis-enterprise-k8s-docs clone>] [--docs-commit <sha>] [--bundles-commit <sha>]
//   [--out <file>] [--check] [--list-limitations]
//
// Writes src/release/catalog.json from the sources (scripts/catalog/refresh.mjs says what comes
// from where); --check writes nothing and exits 1 when the result differs from the file.
// docs/catalog.md says how to refresh and which commits the shipped catalog came from.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { refreshCatalog } from './catalog/refresh.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const args = {
    out: path.join(root, 'src/release/catalog.json'),
    overrides: path.join(root, 'scripts/catalog/overrides.json'),
  };
  const names = {
    '--docs': 'docs',
    '--bundles': 'bundles',
    '--k8s-docs': 'k8sDocs',
    '--docs-commit': 'docsCommit',
    '--bundles-commit': 'bundlesCommit',
    '--out': 'out',
    '--overrides': 'overrides',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--check') args.check = true;
    else if (arg === '--list-limitations') args.listLimitations = true;
    else if (arg === '--help' || arg === '-h') args.help = true;
    else if (names[arg] && argv[i + 1] !== undefined) args[names[arg]] = argv[++i];
    else throw new Error(`unknown argument ${arg} (try --help)`);
  }
  return args;
}

const USAGE = `Usage: npm run catalog:refresh -- --docs <redis/docs checkout> [--bundles <certified-operators checkout>]
  [--k8s-docs <RedisLabs/redis-enterprise-k8s-docs git clone, bare or not: its tags>]
  [--docs-commit <sha>] [--bundles-commit <sha>] [--out <file>] [--overrides <file>] [--check]
  [--list-limitations]`;

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  if (!args.docs) {
    console.error(`--docs is required\n${USAGE}`);
    return 2;
  }
  const base = JSON.parse(readFileSync(args.out, 'utf8'));
  const overrides = JSON.parse(readFileSync(args.overrides, 'utf8'));
  const { document, report } = refreshCatalog({ ...args, base, overrides });
  let text = `${JSON.stringify(document, null, 2)}\n`;
  try {
    const prettier = await import('prettier');
    const config = (await prettier.resolveConfig(args.out)) ?? {};
    text = await prettier.format(text, { ...config, parser: 'json' });
  } catch {
    // Without prettier the JSON is still valid, only laid out differently.
  }
  for (const operator of report.added) console.error(`added ${operator}`);
  for (const operator of report.kept)
    console.error(
      `dropped ${operator}: no notes at this commit name it (add it to the overrides if it should stay)`,
    );
  if (args.listLimitations) for (const item of report.uncovered) console.error(`no rule: ${item}`);
  else if (report.uncovered.length > 0)
    console.error(
      `${report.uncovered.length} breaking changes and known limitations in the notes have no rule (--list-limitations lists them)`,
    );
  if (report.reviewed) {
    const r = report.reviewed;
    console.error(
      `reviewed: ${r.entries} limitations (${r.items} items of the notes): ${r.rule} by a rule, ${r.check} by a check, ${r.step} by a step, ${r['not-upgrade']} not part of an upgrade, ${r['not-observable']} not observable`,
    );
  }
  for (const notice of report.notices ?? []) console.error(notice);
  for (const key of report.carriedSections)
    console.error(`carried section ${key} from ${args.out} unchanged`);
  for (const problem of report.problems) console.error(`problem: ${problem}`);
  if (report.problems.length > 0) return 1;
  if (args.check) {
    // The same document, key order included; layout (one line or several) is prettier's choice.
    const same = JSON.stringify(JSON.parse(readFileSync(args.out, 'utf8'))) === JSON.stringify(document);
    console.error(
      same ? `${args.out} is what the sources give` : `${args.out} differs from what the sources give`,
    );
    return same ? 0 : 1;
  }
  writeFileSync(args.out, text);
  console.error(`wrote ${args.out} (${document.releases.length} releases, ${document.rules.length} rules)`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  },
);
