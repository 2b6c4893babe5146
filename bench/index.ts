/**
 * `npm run bench`: every figure of docs/performance.md, each side by side with the command it
 * is compared with, as medians and a ratio. Options: `--only <name>[,<name>]` (startup, token,
 * plan, reaction, overhead, scale, fanout, terminal), `--runs <n>` (timed runs per side, default 9), `--strict` (exit 1
 * when a target is missed), `--json` (the figures as JSON on stdout).
 */

import { overhead, plan, reaction, startup, token } from './benchmarks.js';
import { fanout } from './fanout.js';
import type { Figure } from './lib.js';
import { scale } from './scale.js';
import { terminal } from './terminal.js';

const BENCHMARKS: Record<string, (runs: number) => Promise<Figure[]>> = {
  startup: (runs) => startup(Math.max(runs, 15)),
  token: (runs) => token(runs),
  plan: (runs) => plan(Math.min(runs, 5)),
  reaction: () => reaction(20),
  overhead: (runs) => overhead(Math.min(runs, 3)),
  scale: (runs) => scale(Math.min(runs, 5)),
  fanout: (runs) => fanout(Math.min(runs, 3)),
  terminal: (runs) => terminal(Math.min(runs, 3)),
};

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

async function main(): Promise<number> {
  const runs = Number(option('--runs') ?? 9);
  const only = option('--only')?.split(',') ?? Object.keys(BENCHMARKS);
  const unknown = only.filter((name) => !BENCHMARKS[name]);
  if (unknown.length > 0 || !Number.isInteger(runs) || runs < 1) {
    process.stderr.write(
      `usage: npm run bench -- [--only ${Object.keys(BENCHMARKS).join(',')}] [--runs n] [--strict] [--json]\n`,
    );
    return 2;
  }
  const figures: Figure[] = [];
  for (const name of only) {
    process.stderr.write(`bench: ${name} ...\n`);
    const started = performance.now();
    const got = await (BENCHMARKS[name] as (runs: number) => Promise<Figure[]>)(runs);
    process.stderr.write(`bench: ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    for (const figure of got) process.stderr.write(`  ${line(figure)}\n`);
    figures.push(...got);
  }
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  else process.stdout.write(`\n${table(figures)}\n`);
  const missed = figures.filter((f) => f.ok === false);
  if (missed.length > 0) process.stderr.write(`\n${missed.length} figure(s) missed their target.\n`);
  return missed.length > 0 && process.argv.includes('--strict') ? 1 : 0;
}

function formatRatio(ratio: number): string {
  return ratio < 0.1 ? ratio.toFixed(3) : ratio.toFixed(2);
}

function verdict(figure: Figure): string {
  return figure.ok === undefined ? 'info' : figure.ok ? 'MET' : 'MISSED';
}

function line(figure: Figure): string {
  const ratio = figure.ratio === undefined ? '' : ` ratio ${formatRatio(figure.ratio)}`;
  return `${figure.figure}: ${figure.value} (${figure.target}: ${verdict(figure)})${ratio}${figure.compared ? ` vs ${figure.compared}` : ''}${figure.note ? `; ${figure.note}` : ''}`;
}

function table(figures: Figure[]): string {
  const rows = [
    ['bench', 'figure', 'ctl', 'compared with', 'ratio', 'target', ''],
    ...figures.map((f) => [
      f.bench,
      f.figure,
      f.value,
      f.compared ?? '',
      f.ratio === undefined ? '' : formatRatio(f.ratio),
      f.target,
      verdict(f),
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const notes = figures.filter((f) => f.note).map((f) => `  ${f.bench}, ${f.figure}: ${f.note}`);
  return [
    ...rows.map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    ),
    ...(notes.length > 0 ? ['', 'notes:', ...notes] : []),
  ].join('\n');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
