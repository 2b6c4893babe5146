/**
 * A stream's text cut into lines as its chunks come: the returned function takes each chunk and
 * calls `onLine` with every line it completes (without its `\n`); an unfinished line waits for
 * the next chunk. Only the new chunk is searched for line ends: searching the whole unfinished
 * line again on every chunk was quadratic in its length, and a plan's one-line JSON of a few
 * hundred KB, read in small chunks, cost the e2e test files seconds of CPU each.
 */
export function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let partial = '';
  return (chunk) => {
    let start = 0;
    let newline: number;
    while ((newline = chunk.indexOf('\n', start)) >= 0) {
      const line = partial + chunk.slice(start, newline);
      partial = '';
      start = newline + 1;
      onLine(line);
    }
    partial += chunk.slice(start);
  };
}
