import type { Command } from 'commander';
import { declareOptions } from './declare-options.js';
import { CONNECTION_OPTIONS } from './option-specs.js';

/**
 * The management API connection flags of CLI.md (option-specs.ts), shared by `ctl auth` and
 * `ctl upgrade`. Reading them is in read-connection.ts, which only an action loads.
 */
export function addConnectionOptions(command: Command): Command {
  return declareOptions(command, CONNECTION_OPTIONS);
}
