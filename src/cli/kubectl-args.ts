/**
 * kubectl's spellings of ctl's flags, read before commander sees the arguments. kubectl's
 * verbosity is a level (`-v=6`, `--v=6`, `-v 6`: klog's flag), ctl's a count (`-v` API calls,
 * `-vv` bodies). kubectl shows each request from level 6 and request bodies from level 8
 * (kubernetes.io/docs/reference/kubectl/quick-reference "Kubectl output verbosity and
 * debugging"), so 1..7 is `-v` and 8 or more is `-vv`; 0 is neither.
 */
export function kubectlVerbosity(level: number): number {
  if (level <= 0) return 0;
  return level >= 8 ? 2 : 1;
}

export function normalizeKubectlArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const inline = /^--?v=(\d+)$/.exec(arg);
    if (inline) {
      out.push(...repeatV(Number(inline[1])));
      continue;
    }
    const next = argv[i + 1];
    if ((arg === '-v' || arg === '--v') && next !== undefined && /^\d+$/.test(next)) {
      out.push(...repeatV(Number(next)));
      i += 1;
      continue;
    }
    out.push(arg);
  }
  return out;
}

function repeatV(level: number): string[] {
  const count = kubectlVerbosity(level);
  return count === 0 ? [] : [`-${'v'.repeat(count)}`];
}

/**
 * `-v=abc`, `--v=x`: kubectl's spelling with a level that is not a number. commander would read
 * `-v` and then complain of an unknown option `-=abc`, which helps nobody; this names the word
 * (undefined when every -v is fine). Words after `--` are arguments, not flags.
 */
export function badVerbosityArg(argv: readonly string[]): string | undefined {
  for (const arg of argv) {
    if (arg === '--') return undefined;
    if (/^--?v=/.test(arg) && !/^--?v=\d+$/.test(arg)) return arg;
  }
  return undefined;
}
