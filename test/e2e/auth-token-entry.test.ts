import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { type CtlResult, ctlEnv, repoRoot, runCtl } from '../helpers/run-ctl.js';
import { adminCtlEnv, ADMIN, type SimFixture, startSim } from '../unit/sim/rest/fixture.js';

/**
 * `ctl auth token` has its own entry (src/token-main.ts, dist/bundle/token-main.js) for the runs
 * that talk to the management API alone; bin/ctl.js sends everything else to the whole tree. For
 * a table of argument lists, environments and stdin, the BUILT ctl and the whole tree forced
 * (test/helpers/whole-tree-ctl.ts) give the same stdout, stderr and exit code against the
 * management API emulator, and the rows meant for the token's entry do take it.
 */

const wholeTree = resolve(repoRoot, 'dist', 'test', 'helpers', 'whole-tree-ctl.js');

interface Row {
  args: string[];
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Whether bin/ctl.js takes the token's own entry for it. */
  entry: 'token' | 'tree';
  /** The exit code both give, where the row is there for it. */
  code?: number;
}

/** Tokens, times and durations differ from run to run; everything else must not. */
function comparable(text: string): string {
  return text
    .replace(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g, '<jwt>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/\(\d+ ms\)/g, '(<n> ms)');
}

describe('ctl auth token: its own entry and the whole tree answer alike (e2e)', () => {
  let sim: SimFixture;
  let dir: string;
  let caFile: string;
  let passwordFile: string;
  let isAuthTokenCommand: (argv: readonly string[], env: NodeJS.ProcessEnv) => boolean;

  before(async () => {
    sim = await startSim({ serverVersion: '7.8.2-6' });
    dir = await mkdtemp(join(tmpdir(), 'ctl-e2e-token-entry-'));
    caFile = join(dir, 'ca.pem');
    await writeFile(caFile, sim.ca.certPem);
    passwordFile = join(dir, 'password');
    await writeFile(passwordFile, `${ADMIN.password}\n`);
    await chmod(passwordFile, 0o600);
    const entry = pathToFileURL(resolve(repoRoot, 'dist', 'bundle', 'token-main.js')).href;
    ({ isAuthTokenCommand } = (await import(entry)) as { isAuthTokenCommand: typeof isAuthTokenCommand });
  });
  after(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  function envOf(row: Row): Record<string, string | undefined> {
    return { ...adminCtlEnv(sim, dir, caFile), ...row.env };
  }

  const rows = (): Row[] => [
    { args: ['auth', 'token'], entry: 'token', code: 0 },
    { args: ['auth', 'token', '-o', 'json', '--ttl', '600'], entry: 'token', code: 0 },
    { args: ['-n', 'redis', '--context', 'c', 'auth', 'token', '--auth-form', 'header'], entry: 'token' },
    { args: ['-vv', 'auth', 'token', '--no-color'], entry: 'token' },
    { args: ['auth', 'token', '-v=6', '-q'], entry: 'token' },
    { args: ['auth', 'token', '--ttl', '0'], entry: 'token', code: 2 },
    { args: ['auth', 'token', '--ttl=abc'], entry: 'token' },
    { args: ['auth', 'token', '--api-url', 'http://127.0.0.1:9443'], entry: 'token' },
    { args: ['auth', 'token', '--api-url', 'not a url'], entry: 'token' },
    {
      args: ['auth', 'token', '--password-stdin'],
      env: { CTL_PASSWORD: undefined },
      stdin: `${ADMIN.password}\n`,
      entry: 'token',
    },
    {
      args: ['auth', 'token', '--password-stdin'],
      env: { CTL_PASSWORD: undefined },
      stdin: '',
      entry: 'token',
    },
    {
      args: ['auth', 'token', '--password-file', 'PASSWORD_FILE'],
      env: { CTL_PASSWORD: undefined },
      entry: 'token',
    },
    { args: ['auth', 'token', '--password-stdin', '--password-file', 'PASSWORD_FILE'], entry: 'token' },
    { args: ['auth', 'token', '--password-file', 'no-such-file'], entry: 'token' },
    { args: ['auth', 'token'], env: { CTL_PASSWORD: 'wrong' }, entry: 'token', code: 4 },
    { args: ['auth', 'token'], env: { CTL_CA_FILE: undefined }, entry: 'token', code: 1 },
    { args: ['auth', 'token', '--insecure'], env: { CTL_CA_FILE: undefined }, entry: 'token' },
    { args: ['auth', 'token', '--ca-file', 'no-such-ca.pem'], entry: 'token' },
    { args: ['--context', 'a', '--context', 'b', 'auth', 'token'], entry: 'token' },
    { args: ['auth', 'token', '--kubeconfig', 'no-such-kubeconfig'], entry: 'token' },
    // The whole tree's: help, bad flags and values, Kubernetes lookups, a proxy, YAML.
    { args: ['auth', 'token', '--help'], entry: 'tree' },
    { args: ['auth', 'token', '--bogus'], entry: 'tree', code: 2 },
    { args: ['auth', 'token', '--auth-form', 'basic'], entry: 'tree' },
    { args: ['auth', 'token', '--ttl'], entry: 'tree' },
    { args: ['auth', 'token', 'extra'], entry: 'tree' },
    { args: ['auth', 'token', '-o', 'yaml'], entry: 'tree' },
    {
      args: ['auth', 'token'],
      env: { CTL_API_URL: undefined, KUBECONFIG: join(repoRoot, 'no-such-kubeconfig') },
      entry: 'tree',
    },
    { args: ['auth', 'token'], env: { HTTPS_PROXY: 'http://127.0.0.1:9' }, entry: 'tree' },
  ];

  /**
   * One row: which entry bin/ctl.js takes, then the BUILT ctl and the whole tree side by side (two
   * processes that only read the emulator), compared.
   */
  async function checkRow(row: Row): Promise<void> {
    const args = row.args.map((arg) => (arg === 'PASSWORD_FILE' ? passwordFile : arg));
    const env = envOf(row);
    const label = `${JSON.stringify(args)} ${JSON.stringify(row.env ?? {})}`;
    assert.equal(
      isAuthTokenCommand(args, ctlEnv(env)),
      row.entry === 'token',
      `${label}: takes the ${row.entry}'s entry`,
    );
    const options = { cwd: dir, env, ...(row.stdin === undefined ? {} : { stdin: row.stdin }) };
    const [viaBin, viaTree]: [CtlResult, CtlResult] = await Promise.all([
      runCtl(args, options),
      runCtl(args, { ...options, entry: wholeTree }),
    ]);
    assert.equal(viaBin.code, viaTree.code, `${label}: exit\n${viaBin.stderr}\n${viaTree.stderr}`);
    if (row.code !== undefined) assert.equal(viaBin.code, row.code, `${label}: exit\n${viaBin.stderr}`);
    assert.equal(comparable(viaBin.stdout), comparable(viaTree.stdout), `${label}: stdout`);
    assert.equal(comparable(viaBin.stderr), comparable(viaTree.stderr), `${label}: stderr`);
  }

  // The rows are independent (each its own arguments and environment; none changes the
  // emulator: a token more, or a refused password, which it does not count): ROWS_AT_ONCE rows at
  // a time, since many of them wait (retries against an address where nothing listens, a proxy
  // that refuses). Every row is checked; the first failure, in the rows' order, is the test's.
  const ROWS_AT_ONCE = 3;

  it('the same stdout, stderr and exit code for every row', async () => {
    const all = rows();
    for (let start = 0; start < all.length; start += ROWS_AT_ONCE) {
      const outcomes = await Promise.allSettled(all.slice(start, start + ROWS_AT_ONCE).map(checkRow));
      const failed = outcomes.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    }
  });
});
