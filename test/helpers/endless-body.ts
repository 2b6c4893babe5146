import type { ServerResponse } from 'node:http';

/**
 * Writes `chunk` for ever, as fast as the reader takes it, until the response is closed: the
 * body of an input with no end (a streaming catalog URL, a helm index), for the tests of ctl's
 * size limits. `sent` counts each chunk handed to the socket.
 */
export function pumpForever(res: ServerResponse, chunk: Buffer, sent?: (bytes: number) => void): void {
  const pump = (): void => {
    while (!res.destroyed) {
      sent?.(chunk.length);
      if (!res.write(chunk)) break;
    }
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}
