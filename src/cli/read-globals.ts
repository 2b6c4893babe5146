import type { Command } from 'commander';
import type { GlobalOptions } from '../commands/options.js';
import { UsageError } from '../errors.js';
import { checkFilePath, INPUT_FILE_LIMITS } from '../io/paths.js';
import { Io } from '../io/io.js';
import type { Runtime } from './globals.js';

// Only a command's action loads this module (`--help` never needs the Io, nor these checks).

/** The global options (declared in globals.ts) as a command's action reads them. */
export function readGlobalOptions(
  command: Command,
  options: { multipleContexts?: boolean } = {},
): GlobalOptions {
  return readGlobalValues(command.optsWithGlobals(), options);
}

/** The same from the parsed values (commander's optsWithGlobals(), or token-args.ts's). */
export function readGlobalValues(
  raw: Record<string, unknown>,
  options: { multipleContexts?: boolean } = {},
): GlobalOptions {
  const contexts = raw.context === undefined ? [] : ([] as string[]).concat(raw.context as string | string[]);
  if (contexts.length > 1 && !options.multipleContexts && new Set(contexts).size > 1) {
    throw new UsageError(`--context is given ${contexts.length} times (${contexts.join(', ')})`, {
      hint: 'Only ctl upgrade run takes several contexts (one cluster each); give this command one.',
    });
  }
  const given = String(raw.output ?? 'text');
  // kubectl's `-o jsonpath=<template>` and `-o name`: json's data, printed another way.
  const jsonpath = /^jsonpath=/.exec(given) ? given.slice('jsonpath='.length) : undefined;
  const format = jsonpath !== undefined ? 'jsonpath' : given;
  if (!['text', 'json', 'yaml', 'name', 'jsonpath'].includes(format)) {
    throw new UsageError(`--output must be text, json, yaml, name or jsonpath=TEMPLATE, not "${format}"`, {
      hint: "Use -o text, -o json, -o yaml, -o name or -o jsonpath='{.field}'.",
    });
  }
  // yaml, name and jsonpath are json's data printed otherwise: the commands see json.
  const output = format === 'text' ? 'text' : 'json';
  const document =
    jsonpath !== undefined
      ? { kind: 'jsonpath' as const, template: jsonpath }
      : format === 'name'
        ? { kind: 'name' as const }
        : undefined;
  checkFilePath('--kubeconfig', raw.kubeconfig as string | undefined, 'input', INPUT_FILE_LIMITS.kubeconfig);
  return {
    kubeconfig: raw.kubeconfig as string | undefined,
    context: contexts.at(-1),
    contexts,
    namespace: raw.namespace as string | undefined,
    cluster: raw.cluster as string | undefined,
    output,
    yaml: format === 'yaml',
    ...(document ? { document } : {}),
    color: raw.color !== false,
    verbose: Number(raw.verbose ?? 0),
    quiet: raw.quiet === true,
  };
}

/** Builds the command's Io from the global options and hands it to main for error reporting. */
export async function createIo(globals: GlobalOptions, runtime: Runtime): Promise<Io> {
  // Loaded only for -o yaml (the yaml package is a dependency already: fleet files, bundles).
  const yaml = globals.yaml ? (await import('../io/yaml-output.js')).toYaml : undefined;
  const document = globals.document ? await documentPrinter(globals.document) : undefined;
  const io = new Io({
    yaml,
    document,
    stdout: runtime.stdout,
    stderr: runtime.stderr,
    stdin: runtime.stdin,
    env: runtime.env,
    programName: runtime.programName,
    output: globals.output,
    verbose: globals.verbose,
    quiet: globals.quiet,
    color: globals.color,
  });
  runtime.onIo(io);
  return io;
}

/** `-o name` / `-o jsonpath=...`: the printer, its template checked now (a bad one is exit 2). */
async function documentPrinter(
  document: NonNullable<GlobalOptions['document']>,
): Promise<(value: unknown) => string> {
  const printers = await import('../io/document-printers.js');
  return document.kind === 'name' ? printers.namePrinter : printers.jsonPathPrinter(document.template);
}
