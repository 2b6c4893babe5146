import type { OutputFormat } from '../io/io.js';
import type { ClusterLocation } from '../kube/management-access.js';

/** The global options of CLI.md, as the command line read them: what every command gets. */
export interface GlobalOptions extends ClusterLocation {
  /** The last `--context` given. */
  context?: string;
  /** Every `--context` given, in order; more than one only for `ctl upgrade run` (a fleet). */
  contexts?: string[];
  output: OutputFormat;
  /** `-o yaml`: `output` is json (the same data), written as YAML documents. */
  yaml?: boolean;
  /**
   * `-o name` / `-o jsonpath=<template>` (kubectl's): `output` is json, and the Io prints what
   * the template finds in each document, or the names it lists (src/io/document-printers.ts).
   */
  document?: { kind: 'name' } | { kind: 'jsonpath'; template: string };
  color: boolean;
  verbose: number;
  quiet: boolean;
}
