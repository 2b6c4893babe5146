/**
 * The sandbox both corpus files share (bad-input-corpus.test.ts, -2): a `happy-path` simulator and
 * a folder, opened before the file's tests and closed after them, with the figure of what the
 * file tried (bad-input-judge.ts keeps the tally).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { tally } from './bad-input-judge.js';
import { type Bed, figure, startBed } from './support.js';

export interface CorpusSandbox {
  bed: Bed;
  dir: string;
}

/** Registers the before/after hooks of the enclosing describe; the sandbox is ready in its tests. */
export function useCorpusSandbox(what: string): CorpusSandbox {
  const sandbox = {} as CorpusSandbox;
  before(async () => {
    sandbox.bed = await startBed('happy-path');
    sandbox.dir = mkdtempSync(path.join(tmpdir(), 'ctl-rel-corpus-'));
  });
  after(async () => {
    await sandbox.bed?.close();
    if (sandbox.dir) rmSync(sandbox.dir, { recursive: true, force: true });
    figure(
      `bad inputs tried (${what}) ${tally.inputs}: uncaught exceptions ${tally.uncaught}, stack traces ${tally.stacks}, undocumented exit codes ${tally.undocumented}, unexpected exit codes ${tally.wrongCode}`,
    );
  });
  return sandbox;
}
