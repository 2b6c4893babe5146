/**
 * What a command leaves open that only its end may close: a kept connection pool's idle sockets
 * (src/kube/agent.ts). A process of ctl exits after its command and closes them anyway
 * (src/cli/run-cli.ts runProcess); a command run inside another program (`main(argv, runtime)`:
 * the test suite runs most of its commands so) must close them itself, or that program stays
 * open on them. Registered by what opens them, and only then: `--help` loads none of it.
 */

const closers = new Set<() => void>();

/** Calls `close` when the command ends (once, however it ends). */
export function atCommandEnd(close: () => void): void {
  closers.add(close);
}

/** The command has ended: closes what it registered. */
export function endCommand(): void {
  const due = [...closers];
  closers.clear();
  for (const close of due) {
    try {
      close();
    } catch {
      // Closing is best effort: the command's answer is already given.
    }
  }
}
