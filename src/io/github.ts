import { appendFileSync } from 'node:fs';
import type { Io } from './io.js';
import type { ProgressEvent, ProgressReporter } from './progress.js';

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
      this.io.stderrWrite(`::group::${escapeData(event.message)}\n`);
      this.#open = true;
    }
    this.inner.emit(event);
    if (event.type === 'warning') this.io.stderrWrite(annotation('warning', event));
    if (event.type === 'error') this.io.stderrWrite(annotation('error', event));
    if (event.type === 'step-done' || event.type === 'step-skip' || event.type === 'error') this.#close();
  }

  close(): void {
    this.#close();
    this.inner.close();
  }

  #close(): void {
    if (this.#open) this.io.stderrWrite('::endgroup::\n');
    this.#open = false;
  }
}

function annotation(level: 'warning' | 'error', event: Omit<ProgressEvent, 'ts'>): string {
  const title = event.step ? ` title=ctl ${escapeProperty(event.step)}` : '';
  const hint = typeof event.data?.hint === 'string' ? `\n${event.data.hint}` : '';
  return `::${level}${title}::${escapeData(event.message + hint)}\n`;
}

/** The runner's escaping rules for workflow command data and properties. */
export function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** Appends Markdown to the job summary when GitHub Actions provides the file. */
export function writeStepSummary(env: NodeJS.ProcessEnv, markdown: string): boolean {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  appendFileSync(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  return true;
}
