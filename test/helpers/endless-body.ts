import type { ServerResponse } from 'node:http';

/**
 * Writes `chunk` for ever, as fast as the reader takes it, until the response is closed: the
 * body of an input with no end (a streaming catalog URL, a helm index), for the tests of ctl's
 * size limits.
 */
export function pumpForever(res: ServerResponse, chunk: Buffer): void {
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}
