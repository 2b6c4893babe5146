import { Io, type IoOptions } from './io.js';

export interface TestIo {
  io: Io;
  stdout(): string;
  stderr(): string;
}

/** An Io over string buffers, for tests (after gh's iostreams.Test()). */
export function createTestIo(options: Partial<Omit<IoOptions, 'stdout' | 'stderr'>> = {}): TestIo {
  let out = '';
  let err = '';
  const io = new Io({
    stdin: options.stdin ?? { isTTY: false },
    env: options.env ?? {},
    ...options,
    stdout: {
      write: (chunk: string) => {
        out += chunk;
      },
    },
    stderr: {
      write: (chunk: string) => {
        err += chunk;
      },
    },
  });
  return { io, stdout: () => out, stderr: () => err };
}
