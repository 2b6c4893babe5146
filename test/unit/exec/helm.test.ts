import assert from 'node:assert/strict';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OperationError } from '../../../src/errors.js';
import { Helm } from '../../../src/exec/helm.js';
import { shellQuote } from '../../../src/io/shell-words.js';
import { createTestIo } from '../../../src/io/test-io.js';
import { tempDir } from '../../helpers/temp.js';

/** A stand-in helm that records its argv and the signals it gets, then exits like helm does. */
async function fakeHelm(): Promise<{ bin: string; log: string }> {
  const dir = tempDir('ctl-helm-');
  const log = join(dir, 'log');
  const bin = join(dir, 'helm');
  await writeFile(
    bin,
    `#!${process.execPath}
const fs = require('node:fs');
fs.appendFileSync(${JSON.stringify(log)}, 'argv ' + JSON.stringify(process.argv.slice(2)) + '\\n');
fs.appendFileSync(${JSON.stringify(log)}, 'KUBECONFIG ' + JSON.stringify(process.env.KUBECONFIG ?? null) + '\\n');
fs.appendFileSync(${JSON.stringify(log)}, 'HELM_TEST_MARK ' + JSON.stringify(process.env.HELM_TEST_MARK ?? null) + '\\n');
if (process.argv.includes('fail')) { process.stderr.write('Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress\\n'); process.exit(1); }
process.on('SIGTERM', () => { fs.appendFileSync(${JSON.stringify(log)}, 'SIGTERM\\n'); setTimeout(() => process.exit(143), 100); });
fs.appendFileSync(${JSON.stringify(log)}, 'ready\\n');
setTimeout(() => process.exit(0), process.argv.includes('slow') ? 5000 : 0);
`,
  );
  await chmod(bin, 0o755);
  return { bin, log };
}

describe('Helm', () => {
  it('passes argv through without a shell and adds the kube flags', async () => {
    const { bin, log } = await fakeHelm();
    const { io } = createTestIo();
    const helm = new Helm({
      io,
      binary: bin,
      dryRun: false,
      signal: new AbortController().signal,
      kube: { kubeconfigs: ['/k'], context: 'c' },
    });
    await helm.change(['upgrade', 'rel', 'chart', '--version', '7.8.2-6', '--set', 'a=$(id)']);
    const text = await readFile(log, 'utf8');
    assert.match(
      text,
      /\["--kubeconfig","\/k","--kube-context","c","upgrade","rel","chart","--version","7.8.2-6","--set","a=\$\(id\)"\]/,
    );
  });

  it("gets the environment ctl was given, never the process's own, less ctl's variables", async () => {
    const { bin, log } = await fakeHelm();
    const { io } = createTestIo();
    const before = process.env.HELM_TEST_MARK;
    process.env.HELM_TEST_MARK = 'from-the-process';
    try {
      const helm = new Helm({
        io,
        binary: bin,
        dryRun: false,
        signal: new AbortController().signal,
        env: { PATH: process.env.PATH, KUBECONFIG: '/given', CTL_PASSWORD: 'not-for-helm' },
      });
      await helm.change(['upgrade', 'rel', 'chart']);
    } finally {
      if (before === undefined) delete process.env.HELM_TEST_MARK;
      else process.env.HELM_TEST_MARK = before;
    }
    const text = await readFile(log, 'utf8');
    assert.match(text, /^KUBECONFIG "\/given"$/m);
    assert.match(text, /^HELM_TEST_MARK null$/m, "a variable of the process only is not helm's");
  });

  it('runs the helm upgrade the plan prints: the same target flags, or KUBECONFIG for several files', async () => {
    const { shellWords } = await import('../../../src/steps/databases-work.js');
    const { helmUpgradeArgv, helmUpgradeCommand } =
      await import('../../../src/planning/equivalent-commands.js');
    const upgrade = {
      release: 'rel',
      namespace: 'redis',
      chart: 'redis-enterprise-operator',
      repo: 'https://helm.redis.io',
      chartVersion: '7.8.2-6',
      openshift: true,
    };
    const targets = [
      {},
      { context: "prod'; touch x #" },
      { kubeconfigs: ['/k/prod config.yaml'], context: 'prod' },
      { kubeconfigs: ['/k/a', '/k/b'], context: 'prod' },
    ];
    for (const kube of targets) {
      const { bin, log } = await fakeHelm();
      const helm = new Helm({
        io: createTestIo().io,
        binary: bin,
        dryRun: false,
        signal: new AbortController().signal,
        kube,
      });
      await helm.change(helmUpgradeArgv(upgrade, true));
      const [argvLine, envLine] = (await readFile(log, 'utf8')).split('\n');
      const printed = shellWords(helmUpgradeCommand(kube, upgrade));
      const env = printed[0]?.startsWith('KUBECONFIG=') ? printed.shift() : undefined;
      assert.equal(printed.shift(), 'helm');
      assert.equal(argvLine, `argv ${JSON.stringify(printed)}`, JSON.stringify(kube));
      if (env) assert.equal(envLine, `KUBECONFIG ${JSON.stringify(env.slice('KUBECONFIG='.length))}`);
    }
  });

  it('prints but does not run a change in dry-run', async () => {
    const { bin, log } = await fakeHelm();
    const test = createTestIo();
    const helm = new Helm({ io: test.io, binary: bin, dryRun: true, signal: new AbortController().signal });
    assert.equal(await helm.change(['upgrade', 'rel', 'chart']), undefined);
    assert.match(test.stderr(), /would run: .*helm upgrade rel chart/);
    await assert.rejects(readFile(log));
  });

  it('stops helm with SIGTERM, never SIGKILL, when the run is cancelled', async () => {
    const { bin, log } = await fakeHelm();
    const controller = new AbortController();
    const helm = new Helm({ io: createTestIo().io, binary: bin, dryRun: false, signal: controller.signal });
    const running = helm.change(['upgrade', 'slow']);
    // Cancel only once the fake has installed its SIGTERM handler (a loaded machine starts slowly).
    while (!(await readFile(log, 'utf8').catch(() => '')).includes('ready')) await sleep(20);
    controller.abort('SIGINT');
    await assert.rejects(running);
    // The fake exits 100 ms after SIGTERM; SIGKILL would have left no trace in the log.
    assert.match(await readFile(log, 'utf8'), /SIGTERM/);
  });

  it('turns a pending-release failure into advice', async () => {
    const { bin } = await fakeHelm();
    const helm = new Helm({
      io: createTestIo().io,
      binary: bin,
      dryRun: false,
      signal: new AbortController().signal,
    });
    await assert.rejects(helm.change(['upgrade', 'fail']), (error: unknown) => {
      assert.ok(error instanceof OperationError);
      assert.match(error.message, /another operation/);
      assert.match(error.hint ?? '', /helm rollback/);
      return true;
    });
  });

  it('says how to get helm when it is missing', async () => {
    const helm = new Helm({
      io: createTestIo().io,
      binary: '/nonexistent/helm',
      dryRun: false,
      signal: new AbortController().signal,
    });
    await assert.rejects(helm.read(['version']), /helm was not found/);
  });

  it('quotes only what needs quoting, for display', () => {
    assert.equal(shellQuote('--version'), '--version');
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
  });
});
