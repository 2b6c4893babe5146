// Preloaded with `node --import` by the scale benchmark only: writes the process's peak resident
// set size (KB) and the CPU time it used (user + system, ms), both from getrusage, as JSON to the
// file named in CTL_BENCH_USAGE_FILE when the process exits.

// node:fs without its ES facade, which reads every export and loads fs's streams (~6 ms of CPU):
// the probe adds as little as it can to what it measures.
const { writeFileSync } = process.getBuiltinModule('node:fs');

const file = process.env.CTL_BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
    writeFileSync(file, JSON.stringify({ maxRssKb: usage.maxRSS, cpuMs }));
  });
}
