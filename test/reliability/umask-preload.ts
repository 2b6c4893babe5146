/** Loaded with `node --import` before ctl: runs it under the umask in CTL_TEST_UMASK (octal). */
const mask = process.env.CTL_TEST_UMASK;
if (mask !== undefined) process.umask(Number.parseInt(mask, 8));
