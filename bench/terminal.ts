/**
 * `npm run bench -- --only terminal`: `ctl demo` (the README's first command) in a 120x40
 * pseudo-terminal (util-linux `script`) against the same command piped, alternating. Issue 34's
 * target: a run at a person's terminal takes the time it takes in a pipe, within 10 %; the
 * terminal's bytes are information (the live lines are bounded to 64 KB a minute).
 */

import { existsSync } from 'node:fs';
import { alternate, ctlBin, type Figure, median, ms, run, scratch } from './lib.js';

const SCRIPT = '/usr/bin/script';
const RATIO_TARGET = 1.1;

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export async function terminal(runs: number): Promise<Figure[]> {
  if (!existsSync(SCRIPT)) throw new Error(`${SCRIPT} (util-linux) is needed for a pseudo-terminal`);
  const work = scratch('ctl-bench-terminal-');
  const bytes: Record<string, number[]> = { terminal: [], piped: [] };
  try {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: work.dir,
      XDG_STATE_HOME: work.dir,
      TERM: 'xterm-256color',
    };
    const demo = [process.execPath, ctlBin, 'demo'];
    const timed = async (side: 'terminal' | 'piped'): Promise<number> => {
      const result =
        side === 'terminal'
          ? await run(
              SCRIPT,
              ['-qfec', `stty cols 120 rows 40 && exec ${demo.map(quote).join(' ')}`, '/dev/null'],
              {
                env,
                cwd: work.dir,
              },
            )
          : await run(demo[0]!, demo.slice(1), { env, cwd: work.dir });
      if (result.code !== 0)
        throw new Error(`ctl demo (${side}) exited ${result.code}\n${result.stderr.slice(-2000)}`);
      bytes[side]!.push(Buffer.byteLength(result.stdout) + Buffer.byteLength(result.stderr));
      return result.ms;
    };
    const times = await alternate({ terminal: () => timed('terminal'), piped: () => timed('piped') }, runs);
    const inTerminal = median(times.terminal!);
    const piped = median(times.piped!);
    return [
      {
        bench: 'terminal',
        figure: '`ctl demo` in a 120x40 pseudo-terminal',
        value: ms(inTerminal),
        target: `ratio <= ${RATIO_TARGET}`,
        ok: inTerminal / piped <= RATIO_TARGET,
        compared: `the same piped, ${ms(piped)}`,
        ratio: inTerminal / piped,
      },
      {
        bench: 'terminal',
        figure: '`ctl demo`: bytes to the terminal',
        value: `${median(bytes.terminal!)} B`,
        target: '(information: under 1 MB)',
        ok: undefined,
        compared: `piped: ${median(bytes.piped!)} B`,
        note: `${runs} run(s) of each, alternating`,
      },
    ];
  } finally {
    work.remove();
  }
}
