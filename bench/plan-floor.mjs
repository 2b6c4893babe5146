// The floor of any Node.js program that plans as ctl does (issue 39): Node's start-up plus the
// plan's own requests against the same simulator, as fast as they can go: the management API's
// token once, then every request the plan made (bench/scale.ts takes them from the simulator's
// audit of a plan: the same paths, queries and count), all at once on kept connections, each
// answer read whole and parsed as JSON. No CLI, no checks, no output: what is left of ctl's time
// above this is ctl's own.
//
//   FLOOR_REQUESTS   JSON [{ "api": "kube" | "rest", "method": "GET" | "POST", "path": "..." }]
//   FLOOR_KUBE_URL, FLOOR_KUBE_TOKEN, CTL_API_URL, CTL_USERNAME, CTL_PASSWORD, CTL_CA_FILE

// Node's modules without their ES facades, which read every export (node:fs's loads fs's streams,
// ~6 ms of CPU): the floor holds what the requests need, and Node's start.
const { readFileSync } = process.getBuiltinModule('node:fs');
const { Agent, request } = process.getBuiltinModule('node:https');

const env = process.env;
const ca = readFileSync(env.CTL_CA_FILE);
const agent = new Agent({ ca, keepAlive: true });

function send(url, method, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) });
        } catch {
          resolve({ status: res.statusCode, body: text });
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = (value) => {
  const text = JSON.stringify(value);
  return { text, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } };
};

const credentials = json({ username: env.CTL_USERNAME, password: env.CTL_PASSWORD, ttl: 300 });
const token = await send(
  `${env.CTL_API_URL}/v1/users/authorize`,
  'POST',
  credentials.headers,
  credentials.text,
);
if (token.status !== 200) process.exit(1);
const restAuth = { authorization: `JWT ${token.body.access_token}` };
const kubeAuth = { authorization: `Bearer ${env.FLOOR_KUBE_TOKEN}` };

const requests = JSON.parse(env.FLOOR_REQUESTS ?? '[]');
const answers = await Promise.all(
  requests
    .filter((r) => !(r.api === 'rest' && r.path.startsWith('/v1/users/')))
    .map((r) => {
      const base = r.api === 'kube' ? env.FLOOR_KUBE_URL : env.CTL_API_URL;
      const auth = r.api === 'kube' ? kubeAuth : restAuth;
      if (r.method === 'GET') return send(`${base}${r.path}`, 'GET', { ...auth, accept: 'application/json' });
      // The reviews the plan posts: the same round trip with a small body.
      const body = json({
        kind: r.path.includes('rules') ? 'SelfSubjectRulesReview' : 'SelfSubjectAccessReview',
      });
      return send(`${base}${r.path}`, r.method, { ...auth, ...body.headers }, body.text);
    }),
);
agent.destroy();
process.stdout.write(`${answers.length + 1} requests\n`);
