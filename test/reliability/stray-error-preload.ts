/**
 * Loaded with `node --import` before ctl: once ctl says, with -v, where its credentials come
 * from (the password is registered with the redactor by then, and the plan's reads have yet to
 * run), rejects a promise nobody handles, with an error that quotes CTL_PASSWORD in its message
 * and in a property, and an escape sequence that clears the screen. ctl's own code is untouched:
 * this stands for any error a future bug leaves unawaited.
 */

const password = process.env.CTL_PASSWORD ?? '';
const write = process.stderr.write.bind(process.stderr) as (...args: unknown[]) => boolean;
let fired = false;
process.stderr.write = ((...args: unknown[]) => {
  if (!fired && String(args[0]).includes('credentials: user')) {
    fired = true;
    void Promise.reject(
      Object.assign(new Error(`stray failure quoting ${password} \u001b[2J`), {
        input: `https://admin:${password}@api.example.test/`,
      }),
    );
  }
  return write(...args);
}) as typeof process.stderr.write;
