import { closeSync, constants, fstatSync, openSync, type Stats, statSync, writeSync } from 'node:fs';
import { describeKind } from './bounded-file.js';
import type { Io } from './io.js';
import type { ProgressEvent, ProgressReporter } from './progress.js';
import { terminalText, workflowData, workflowProperty } from './safe-text.js';

/**
 * GitHub Actions: each step becomes a collapsible group, warnings and errors become
 * annotations. Workflow commands go to stderr, which the runner reads too, so stdout keeps
 * carrying only data (NDJSON with -o json).
 */
export class GitHubActionsReporter implements ProgressReporter {
  #open = false;

  constructor(
    private readonly inner: ProgressReporter,
    private readonly io: Io,
  ) {}

  emit(event: Omit<ProgressEvent, 'ts'>): void {
    if (event.type === 'step-start') {
      this.#close();
      this.io.workflowCommand(`::group::${escapeData(event.message)}`);
      this.#open = true;
    }
    this.inner.emit(event);
    if (event.type === 'warning') this.io.workflowCommand(annotation('warning', event));
    if (event.type === 'error') this.io.workflowCommand(annotation('error', event));
    if (event.type === 'step-done' || event.type === 'step-skip' || event.type === 'error') this.#close();
  }

  close(): void {
    this.#close();
    this.inner.close();
  }

  #close(): void {
    if (this.#open) this.io.workflowCommand('::endgroup::');
    this.#open = false;
  }
}

function annotation(level: 'warning' | 'error', event: Omit<ProgressEvent, 'ts'>): string {
  const title = event.step ? ` title=ctl ${escapeProperty(event.step)}` : '';
  const hint = typeof event.data?.hint === 'string' ? `\n${event.data.hint}` : '';
  return `::${level}${title}::${escapeData(event.message + hint)}`;
}

/**
 * The runner's escaping rules for workflow command data and properties (src/io/safe-text.ts):
 * a newline in a message cannot end the command and start another, and other controls are shown.
 */
export const escapeData = workflowData;
const escapeProperty = workflowProperty;

/**
 * Appends Markdown to the job summary when GitHub Actions provides the file. The renderers
 * (src/run/summary.ts) escape every value; this is the edge: redacted like all ctl writes (the
 * summary is shown to everyone who can read the workflow run; the redactor knows each secret
 * as markdownText escapes it), and no control character but the newline reaches the file.
 *
 * The runner gives each step a regular file of its own (GITHUB_STEP_SUMMARY: "the path on the
 * runner to the file that contains job summaries from workflow commands. This file is unique to
 * the current step", GitHub's "Variables reference" and "Workflow commands: Adding a job
 * summary"); the variable is still only a path from the environment. Appending to a FIFO there
 * blocked ctl in open() until a reader came, for ever without one; a device or a folder failed
 * with an error that replaced the run's own result. So only a regular file (or none yet: it is
 * created, as the runner's own `>>` would) is written: the path is checked before the open, the
 * open never waits (O_NONBLOCK: a FIFO swapped in meanwhile fails at once, ENXIO, or is refused
 * by the check on the open file), and any failure is `warn`ed, never thrown: the summary is a
 * view of the result, not the result. True when the summary was written.
 */
export function writeStepSummary(
  env: NodeJS.ProcessEnv,
  markdown: string,
  redact: (text: string) => string,
  warn: (message: string) => void,
): boolean {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  const safe = terminalText(redact(markdown));
  try {
    appendToRegularFile(file, safe.endsWith('\n') ? safe : `${safe}\n`);
    return true;
  } catch (error) {
    warn(
      `the job summary was not written: GITHUB_STEP_SUMMARY ${terminalText(file)} ${summaryProblem(error)}; the result above stands`,
    );
    return false;
  }
}

/** Not O_WRONLY|O_APPEND alone: O_NONBLOCK keeps the open of a FIFO from waiting for a reader. */
const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0);

class NotARegularFile extends Error {}

function appendToRegularFile(file: string, text: string): void {
  const refuse = (stats: Stats): void => {
    if (!stats.isFile()) throw new NotARegularFile(`is ${describeKind(stats)}, not a regular file`);
  };
  // A missing file is created by the open; anything else must be a regular file before it is opened.
  const before = statSync(file, { throwIfNoEntry: false });
  if (before) refuse(before);
  const fd = openSync(file, APPEND_FLAGS, 0o644);
  try {
    refuse(fstatSync(fd));
    const bytes = Buffer.from(text, 'utf8');
    for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written);
  } finally {
    closeSync(fd);
  }
}

function summaryProblem(error: unknown): string {
  if (error instanceof NotARegularFile) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  // ENXIO: a FIFO with no reader, swapped in after the check.
  if (code === 'ENXIO') return 'is a FIFO (named pipe) with no reader, not a regular file';
  return `could not be written (${code ?? String(error)})`;
}
