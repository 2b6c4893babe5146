/**
 * Issue 35, findings 5 to 9, end to end with the BUILT ctl: every input has a bound and a clear
 * error, within its stated limit and with the process's peak RSS under 256 MB while refusing;
 * downloads follow the transport rules; credentials in a catalog URL are printed and saved
 * nowhere, and the report is 0600.
 */

import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ctlBin, ctlEnv, runCtl } from '../helpers/run-ctl.js';
import { assertExit, withUpgradeSim } from './upgrade-support.js';
import { pumpForever } from '../helpers/endless-body.js';

const TARGET = '7.8.2-6';
const PEAK_RSS_LIMIT_KB = 256 * 1024;

/** ctl with stdin from `stdinPath`, and its peak RSS (VmHWM, read from /proc while it runs). */
async function ctlWithPeak(
  args: string[],
  options: { stdinPath?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number | null; stderr: string; peakKb: number; ms: number }> {
  const stdinFd = openSync(options.stdinPath ?? '/dev/null', 'r');
  const started = Date.now();
  const child = spawn(process.execPath, [ctlBin, ...args], {
    env: ctlEnv(options.env),
    stdio: [stdinFd, 'ignore', 'pipe'],
  });
  closeSync(stdinFd);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      peakKb = Math.max(peakKb, kb);
    } catch {
      // It has exited.
    }
  }, 20);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(killer);
  clearInterval(poll);
  if (Date.now() - started >= timeoutMs)
    stderr += `\n[test] ctl ${args.join(' ')} did not end within ${timeoutMs} ms`;
  return { code, stderr, peakKb, ms: Date.now() - started };
}

describe('every input has a bound (e2e)', { timeout: 600_000 }, () => {
  let dir: string;
  let server: Server;
  let base: string;
  const open = new Set<ServerResponse>();
  let catalogText = '';

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-input-bounds-'));
    catalogText = ['format: 1', 'updated: "2026-11-26"', 'releases: []', ''].join('\n');
    server = createServer((req, res) => {
      open.add(res);
      res.on('close', () => open.delete(res));
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/endless') {
        res.writeHead(200, { 'content-type': 'application/yaml' });
        pumpForever(res, Buffer.alloc(256 * 1024, '#'));
      } else if (url.pathname === '/start') {
        res.writeHead(302, { location: '/final?sig=SIGSECRET-98765' });
        res.end();
      } else if (url.pathname === '/final') {
        res.writeHead(200, { 'content-type': 'application/yaml' });
        res.end(catalogText);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(async () => {
    for (const res of open) res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('--password-stdin < /dev/zero: exit 2 at 64 KiB, peak RSS under 256 MB', async () => {
    const result = await ctlWithPeak(['auth', 'token', '--password-stdin'], {
      stdinPath: '/dev/zero',
      env: { CTL_API_URL: 'https://127.0.0.1:9', CTL_USERNAME: 'admin@example.com' },
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--password-stdin got more than 64 KiB: that is not a password/);
    assert.ok(result.peakKb < PEAK_RSS_LIMIT_KB, `peak RSS ${result.peakKb} kB`);
  });

  it('a --catalog URL that streams for ever: exit 2 at 4 MiB, peak RSS under 256 MB', async () => {
    const result = await ctlWithPeak(['upgrade', 'plan', '--to', TARGET, '--catalog', `${base}/endless`]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /larger than 4 MiB, the limit for --catalog/);
    assert.ok(result.peakKb < PEAK_RSS_LIMIT_KB, `peak RSS ${result.peakKb} kB`);
  });

  it('a --catalog FIFO, /dev/zero or a file over 4 MiB: exit 2 at once, naming it', async () => {
    const fifo = path.join(dir, 'catalog.fifo');
    execFileSync('mkfifo', [fifo]);
    const fromFifo = await runCtl(['upgrade', 'plan', '--to', TARGET, '--catalog', fifo], {
      timeoutMs: 30_000,
    });
    assertExit(fromFifo, 2, '--catalog <FIFO>');
    assert.match(fromFifo.stderr, /it is a FIFO \(named pipe\), not a regular file/);
    const zero = await runCtl(['upgrade', 'plan', '--to', TARGET, '--catalog', '/dev/zero'], {
      timeoutMs: 30_000,
    });
    assertExit(zero, 2, '--catalog /dev/zero');
    assert.match(zero.stderr, /it is a character device, not a regular file/);
  });

  it('plain http from another machine only with --allow-http', async () => {
    const refused = await runCtl([
      'upgrade',
      'plan',
      '--to',
      TARGET,
      '--catalog',
      'http://ctl-test.invalid/c.yaml',
    ]);
    assertExit(refused, 2, 'http catalog');
    assert.match(refused.stderr, /plain http can be read and changed on the way/);
    assert.match(refused.stderr, /--allow-http/);
    const allowed = await runCtl([
      'upgrade',
      'plan',
      '--to',
      TARGET,
      '--allow-http',
      '--catalog',
      'http://ctl-test.invalid/c.yaml',
    ]);
    assertExit(allowed, 2, 'http catalog with --allow-http');
    assert.doesNotMatch(allowed.stderr, /plain http can be read/);
    assert.match(allowed.stderr, /cannot download --catalog/);
  });

  it('credentials in a catalog URL: printed, saved and reported nowhere; the origin is where it ended; report 0600', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const url = `${base}/start?token=TOPSECRET-123456`;
      const out = path.join(sim.sandbox.dir, 'plan.json');
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--catalog', url, '--out', out, '-vv']);
      assert.ok(plan.code === 0 || plan.code === 3, `plan: exit ${plan.code}\n${plan.stderr}`);
      assert.match(
        plan.stdout,
        /release catalog of 2026-11-26 \(built-in \+ http:\/\/127\.0\.0\.1:\d+\/final\?sig=\*\*\*/,
      );
      const saved = readFileSync(out, 'utf8');
      assert.match(saved, /"origin": "built-in \+ http:\/\/127\.0\.0\.1:\d+\/final\?sig=\*\*\*"/);
      assert.equal(statSync(out).mode & 0o777, 0o600, '--out is 0600');
      const report = path.join(sim.sandbox.dir, 'report.json');
      const dry = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        TARGET,
        '--dry-run',
        '--catalog',
        url,
        '--report',
        report,
      ]);
      assert.ok(existsSync(report), dry.stderr);
      assert.equal(statSync(report).mode & 0o777, 0o600, 'the report is 0600');
      const missing = await sim.ctl([
        'upgrade',
        'plan',
        '--to',
        TARGET,
        '--catalog',
        `${base}/missing?token=TOPSECRET-123456`,
      ]);
      assertExit(missing, 2, 'plan --catalog <404 URL>');
      assert.match(missing.stderr, /\/missing\?token=\*\*\*: HTTP 404/);
      for (const [what, text] of [
        ['plan stdout', plan.stdout],
        ['plan stderr', plan.stderr],
        ['--out', saved],
        ['run stdout', dry.stdout],
        ['run stderr', dry.stderr],
        ['--report', readFileSync(report, 'utf8')],
        ['404 stderr', missing.stderr],
      ] as const) {
        assert.doesNotMatch(text, /TOPSECRET|SIGSECRET/, `${what} holds a URL credential`);
      }
    });
  });

  // Files handed over (a saved plan, a fleet file, a kubeconfig, a scenario) were read whole
  // whatever their size: a sparse file costs no disk, and a 200 MB plan held 490 MB before it was
  // refused as not JSON, a 200 MB kubeconfig 3.5 GB and a minute of CPU (src/io/paths.ts).
  it('a sparse --plan, --fleet, --kubeconfig, KUBECONFIG, ~/.kube/config or --scenario of 100 MiB: exit 2 at once, peak RSS under 256 MB', async () => {
    const sparse = (name: string, mib: number): string => {
      const file = path.join(dir, name);
      writeFileSync(file, '');
      truncateSync(file, mib * 1024 * 1024);
      return file;
    };
    const plan = sparse('plan.json', 100);
    const fleet = sparse('fleet.yaml', 100);
    const kubeconfig = sparse('kubeconfig', 100);
    const scenario = sparse('scenario.yaml', 100);
    const home = path.join(dir, 'home');
    mkdirSync(path.join(home, '.kube'), { recursive: true });
    const defaultKubeconfig = sparse(path.join('home', '.kube', 'config'), 100);
    const cases: { args: string[]; env?: Record<string, string>; names: string; limit: string }[] = [
      { args: ['upgrade', 'run', '--plan', plan, '--yes'], names: `--plan ${plan}`, limit: '64' },
      {
        args: ['upgrade', 'run', '--to', TARGET, '--fleet', fleet, '--yes'],
        names: `--fleet ${fleet}`,
        limit: '4',
      },
      {
        args: ['upgrade', 'plan', '--to', TARGET, '--kubeconfig', kubeconfig],
        names: `--kubeconfig ${kubeconfig}`,
        limit: '16',
      },
      {
        args: ['upgrade', 'plan', '--to', TARGET],
        env: { KUBECONFIG: kubeconfig },
        names: `KUBECONFIG ${kubeconfig}`,
        limit: '16',
      },
      {
        args: ['upgrade', 'status'],
        env: { HOME: home, KUBECONFIG: '' },
        names: `the kubeconfig ${defaultKubeconfig}`,
        limit: '16',
      },
      {
        args: ['sim', 'up', '--scenario', scenario, '--dir', path.join(dir, 'sim')],
        names: `--scenario ${scenario}`,
        limit: '8',
      },
    ];
    for (const { args, env, names, limit } of cases) {
      const result = await ctlWithPeak(args, { ...(env ? { env } : {}), timeoutMs: 30_000 });
      const what = args.slice(0, 3).join(' ');
      assert.equal(result.code, 2, `${what}: ${result.stderr}`);
      assert.ok(
        result.stderr.includes(`${names} is 100 MiB, more than the ${limit} MiB ctl reads of it`),
        `${what}: ${result.stderr}`,
      );
      assert.ok(result.peakKb < PEAK_RSS_LIMIT_KB, `${what}: peak RSS ${result.peakKb} kB`);
      assert.ok(result.ms < 10_000, `${what}: refused after ${result.ms} ms`);
    }
    assert.ok(!existsSync(path.join(dir, 'sim')), 'sim up refused the scenario before making --dir');
  });

  it('-v=abc: exit 2 with a hint, not "unknown option -=abc"', async () => {
    const result = await runCtl(['auth', 'token', '-v=abc']);
    assertExit(result, 2, 'auth token -v=abc');
    assert.match(result.stderr, /-v=abc: the verbosity level is not a number/);
    assert.match(result.stderr, /-v=6/);
    assert.doesNotMatch(result.stderr, /-=abc/);
  });
});
