import { appendFileSync } from 'node:fs';
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
 */
export function writeStepSummary(
  env: NodeJS.ProcessEnv,
  markdown: string,
  redact: (text: string) => string,
): boolean {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  const safe = terminalText(redact(markdown));
  appendFileSync(file, safe.endsWith('\n') ? safe : `${safe}\n`);
  return true;
}
