/**
 * A `helm` for ctl's --helm-bin in the signal and secret tests: it appends one JSON line per
 * event to HELM_WRAPPER_LOG ({"event":"start","argv":[...]}, {"event":"SIGTERM"}, ...), holds an
 * `upgrade` for HELM_WRAPPER_DELAY_MS (a slow helm, so a signal lands while it runs), then runs
 * the real helm (HELM_WRAPPER_REAL) with the same arguments and forwards any signal to it.
 * Started through a two-line shell script (`exec node helm-wrapper.js "$@"`), so its pid is the
 * one ctl spawned.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const log = process.env.HELM_WRAPPER_LOG ?? '';
const real = process.env.HELM_WRAPPER_REAL ?? 'helm';
const holdMs = Number(process.env.HELM_WRAPPER_DELAY_MS ?? 0);
/** How long a held upgrade takes to stop after SIGTERM (helm marking its release failed). */
const stopMs = Number(process.env.HELM_WRAPPER_STOP_MS ?? 0);
const argv = process.argv.slice(2);

function record(event: string, extra: Record<string, unknown> = {}): void {
  if (log) appendFileSync(log, `${JSON.stringify({ event, pid: process.pid, ...extra })}\n`);
}

let child: ChildProcess | undefined;
let hold: NodeJS.Timeout | undefined;

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    record(signal);
    if (child) child.kill(signal);
    else {
      if (hold) clearTimeout(hold);
      setTimeout(() => {
        record('exit', { code: 143 });
        process.exit(signal === 'SIGTERM' ? 143 : 130);
      }, stopMs);
    }
  });
}

record('start', { argv });
const run = (): void => {
  hold = undefined;
  child = spawn(real, argv, { stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    record('exit', { code, signal });
    process.exit(code ?? 1);
  });
};
if (argv.includes('upgrade') && holdMs > 0) hold = setTimeout(run, holdMs);
else run();
