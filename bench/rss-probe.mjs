// Preloaded with `node --import` by the plan benchmark only: writes the process's peak resident
// set size (KB, from getrusage) to the file named in CTL_BENCH_RSS_FILE when the process exits.

// node:fs without its ES facade (usage-probe.mjs says why).
const { writeFileSync } = process.getBuiltinModule('node:fs');

const file = process.env.CTL_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
