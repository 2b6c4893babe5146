// Preloaded with `node --import` by the scale benchmark only: writes the process's peak resident
// set size (KB) and the CPU time it used (user + system, ms), both from getrusage, as JSON to the
// file named in CTL_BENCH_USAGE_FILE when the process exits.
import { writeFileSync } from 'node:fs';

const file = process.env.CTL_BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
    writeFileSync(file, JSON.stringify({ maxRssKb: usage.maxRSS, cpuMs }));
  });
}
