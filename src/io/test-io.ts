import { Io, type IoOptions } from './io.js';

export interface TestIo {
  io: Io;
  stdout(): string;
  stderr(): string;
}

/** An Io over string buffers, for tests (after gh's iostreams.Test()). */
export function createTestIo(
  options: Partial<Omit<IoOptions, 'stdout' | 'stderr'>> & {
    /** stderr is a terminal: spinners and redrawing (a fake TTY). */
    stderrIsTTY?: boolean;
  } = {},
): TestIo {
  const { stderrIsTTY, ...ioOptions } = options;
  let out = '';
  let err = '';
  const io = new Io({
    stdin: ioOptions.stdin ?? { isTTY: false },
    env: ioOptions.env ?? {},
    ...ioOptions,
    stdout: {
      write: (chunk: string) => {
        out += chunk;
      },
    },
    stderr: {
      isTTY: stderrIsTTY === true,
      write: (chunk: string) => {
        err += chunk;
      },
    },
  });
  return { io, stdout: () => out, stderr: () => err };
}
