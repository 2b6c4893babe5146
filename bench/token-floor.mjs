// The floor of any Node.js client of `ctl auth token`'s request: one HTTPS POST with node:https
// and the CA, the token printed; no CLI, no retries. bench/benchmarks.ts times it beside ctl and
// curl to show what Node itself costs (on Node 20 the first TLS context parses Node's bundled
// root certificates, ~20 ms that curl does not spend): docs/performance.md.

// Node's modules without their ES facades (plan-floor.mjs says why).
const { readFileSync } = process.getBuiltinModule('node:fs');
const { request } = process.getBuiltinModule('node:https');

const env = process.env;
const body = JSON.stringify({ username: env.CTL_USERNAME, password: env.CTL_PASSWORD, ttl: 300 });
const req = request(
  `${env.CTL_API_URL}/v1/users/authorize`,
  {
    method: 'POST',
    ca: readFileSync(env.CTL_CA_FILE),
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  },
  (res) => {
    let text = '';
    res.on('data', (chunk) => (text += chunk));
    res.on('end', () => {
      if (res.statusCode !== 200) process.exit(1);
      process.stdout.write(`${JSON.parse(text).access_token}\n`);
    });
  },
);
req.on('error', () => process.exit(1));
req.end(body);
