/**
 * The comparison the terminal tests share (terminal.test.ts, terminal-fan-out.test.ts): the same
 * ctl run in a real pseudo-terminal and piped, each on a fresh simulated cluster of a built-in
 * scenario under other names, judged on its exit, its time against the piped twin (a hang guard)
 * and the bytes the terminal got.
 */

import assert from 'node:assert/strict';
import type { Scenario } from '../helpers/simulator.js';
import { assertTerminalLeftClean, byteBound, type PtyControl, runInPty, runPiped, timeBound } from './pty.js';
import { figure, startBed, type BedOptions } from './support.js';

/** The built-in scenario under other names: scenario, namespace, cluster and databases. */
export function renamed(prefix: string): (scenario: Scenario) => Scenario {
  return (scenario) => {
    const namespace = `${prefix}-ns`;
    const moved = (ns: string | undefined): string | undefined =>
      ns === scenario.namespace ? namespace : ns;
    return {
      ...scenario,
      name: `${prefix}-${scenario.name}`,
      namespace,
      cluster: { ...scenario.cluster, name: `${prefix}-rec` },
      databases: scenario.databases.map((db) => ({ ...db, namespace: moved(db.namespace) ?? namespace })),
    };
  };
}

export interface Compared {
  pty: Awaited<ReturnType<typeof runInPty>>;
  piped: Awaited<ReturnType<typeof runPiped>>;
}

/**
 * The same run in a terminal (120x40 unless `size` says) and piped, each on a fresh cluster of
 * the scenario; the exit code, the time ratio (a hang guard) and the terminal's bytes asserted for
 * both. A run that is mostly simulated waits (`sideBySide`) has its twins run at once: they meet
 * the same load, and the file waits once. A run on zero timing is all CPU: its twins run in turn,
 * as at once they only share the cores (and the simulated operator makes more passes), but for the
 * longest of them (1,000 databases), whose twins in turn met different loads on a busy machine.
 */
export async function compare(
  label: string,
  scenario: string,
  args: string[],
  options: BedOptions & {
    watch?: (output: string, control: PtyControl) => void;
    entry?: string;
    size?: { columns: number; rows: number };
    sideBySide?: boolean;
    /** Each twin's hang guard (default runInPty's and runPiped's 120 s). */
    timeoutMs?: number;
    /**
     * A wait of ctl's own that one twin may make and the other not, added to the time bound: after
     * an OLM channel switch ctl waits up to 10 s for OLM to rewrite the Subscription's status,
     * and tells a rewrite by `lastUpdated`, which has a resolution of a second, so a twin whose
     * simulated OLM rewrote it in the same second waits and the other does not.
     */
    ownWaitMs?: number;
  } = {},
): Promise<Compared> {
  const { watch, entry, size, sideBySide = false, timeoutMs, ownWaitMs = 0, ...bedOptions } = options;
  const guard = timeoutMs === undefined ? {} : { timeoutMs };
  const inTerminal = async (): Promise<Compared['pty']> => {
    const bed = await startBed(scenario, bedOptions);
    try {
      return await runInPty(args, {
        env: bed.env,
        cwd: bed.dir,
        watch,
        ...(entry ? { entry } : {}),
        ...(size ?? {}),
        ...guard,
      });
    } finally {
      await bed.close();
    }
  };
  const piped = async (): Promise<Compared['piped']> => {
    const bed = await startBed(scenario, bedOptions);
    try {
      return await runPiped(args, { env: bed.env, cwd: bed.dir, ...(entry ? { entry } : {}), ...guard });
    } finally {
      await bed.close();
    }
  };
  if (sideBySide) {
    const [ptyRun, pipedRun] = await Promise.all([inTerminal(), piped()]);
    return judge(label, { pty: ptyRun, piped: pipedRun }, ownWaitMs);
  }
  const ptyRun = await inTerminal();
  return judge(label, { pty: ptyRun, piped: await piped() }, ownWaitMs);
}

export function judge(label: string, runs: Compared, ownWaitMs = 0): Compared {
  const { pty, piped } = runs;
  figure(
    `pty ${label}: exit ${pty.code}, ${pty.bytes} bytes in ${pty.ms} ms; piped: ${piped.bytes} bytes in ${piped.ms} ms (ratio ${(pty.ms / Math.max(1, piped.ms)).toFixed(2)})`,
  );
  const tail = pty.output.slice(-3000);
  assert.equal(pty.killed, undefined, `${label}: killed (${pty.killed}) after ${pty.bytes} bytes:\n${tail}`);
  assert.equal(pty.code, 0, `${label} in a terminal:\n${tail}`);
  assert.equal(piped.code, 0, `${label} piped:\n${piped.stderr.slice(-3000)}`);
  const timeLimit = timeBound(piped.ms) + ownWaitMs;
  assert.ok(
    pty.ms <= timeLimit,
    `${label}: ${pty.ms} ms in a terminal against ${piped.ms} ms piped (bound ${timeLimit} ms)`,
  );
  const bound = byteBound(pty.ms, piped.bytes);
  assert.ok(pty.bytes < bound, `${label}: ${pty.bytes} bytes to the terminal (bound ${bound})`);
  assertTerminalLeftClean(pty.output, label);
  return runs;
}

/** Every `N/M ready` the operator step showed, in order: readiness only goes forward. */
export function assertReadinessForward(output: string, label: string): void {
  const seen = [...output.matchAll(/operator (\S+): (\d+)\/(\d+) ready/g)].map((m) => ({
    version: m[1],
    ready: Number(m[2]),
  }));
  for (let i = 1; i < seen.length; i++) {
    const [before, now] = [seen[i - 1]!, seen[i]!];
    if (before.version === now.version)
      assert.ok(now.ready >= before.ready, `${label}: readiness went back: ${JSON.stringify(seen)}`);
  }
}
