/**
 * A kubeconfig user's token file (`tokenFile`, kubectl's key, and `token-file`, client-node's) and
 * an auth-provider's `tokenFile`, end to end: the BUILT ctl plans against the simulator (which
 * answers 401 to any other token) with a kubeconfig whose user names its token by file; for a
 * user's `tokenFile` the real kubectl (test/helpers/tools.ts) reads the same kubeconfig, and both
 * send the same token: the file's, even beside a `token` (client-go's transport prefers the file
 * that reads; the `token` only while it does not). kubectl ignores `token-file` (it asks for a
 * username), which ctl keeps reading as client-node does. A FIFO, a directory, /dev/zero or a file past 64 KiB there is refused
 * at once with exit 2, the input exit code of every kubeconfig file (CLI.md "Exit codes"), naming
 * the user and the field, long before the Kubernetes deadlines (10 s to connect, 30 s for an
 * answer); client-node read each of them itself, and a FIFO held ctl for good. A regular file
 * works as with kubectl: its path taken from the kubeconfig's folder, its newline trimmed (an
 * auth-provider's tokenFile too), and only the file of the user in use is read. Nothing is left
 * behind.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { loadScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import { type CtlResult, runCtl } from '../helpers/run-ctl.js';
import { testProcessEnv } from '../helpers/test-env.js';
import { kubectlFor, runTool, type ToolResult } from '../helpers/tools.js';
import { hangGuardMs, within } from '../helpers/wait.js';
import { assertExit } from './upgrade-support.js';

/** Refused before any request: well within the 10 s a connection may take, on a busy machine too. */
const REFUSED_WITHIN_MS = 10_000;

interface Kubeconfig {
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: { user: string } }[];
}

describe(
  "a kubeconfig's token files are regular files within their bound (e2e)",
  { timeout: 300_000 },
  () => {
    let dir: string;
    let cluster: SimulatedCluster;
    let simKubeconfig: Kubeconfig;
    let userName: string;
    let token: string;
    let fifo: string;
    let made: string[];

    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'ctl-token-file-e2e-'));
      cluster = await within(
        'the simulated cluster to start',
        hangGuardMs(60_000),
        startSimulatedCluster({
          scenario: loadScenario('happy-path'),
          dir: path.join(dir, 'sim'),
          fast: true,
        }),
      );
      simKubeconfig = parse(readFileSync(cluster.kubeconfigPath, 'utf8')) as Kubeconfig;
      const user = simKubeconfig.users[0];
      assert.ok(user && typeof user.user.token === 'string', "the simulator's kubeconfig has a token");
      userName = user.name;
      token = user.user.token as string;
      fifo = path.join(dir, 'token.fifo');
      execFileSync('mkfifo', [fifo]);
      made = readdirSync(dir).sort();
    });
    after(async () => {
      await cluster?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /**
     * The simulator's kubeconfig, in a folder of its own under `name`, with its user's credential
     * replaced by `user` and the `others` users beside it (which no context uses).
     */
    const kubeconfigWith = (
      name: string,
      user: Record<string, unknown>,
      others: Kubeconfig['users'] = [],
    ): string => {
      const folder = path.join(dir, name);
      mkdirSync(folder, { recursive: true });
      const file = path.join(folder, 'kubeconfig');
      writeFileSync(file, stringify({ ...simKubeconfig, users: [{ name: userName, user }, ...others] }), {
        mode: 0o600,
      });
      made = [...new Set([...made, name])].sort();
      return file;
    };

    /**
     * `ctl upgrade plan` with that kubeconfig, from `dir` (not the kubeconfig's folder): in the
     * test's process, but in a process of its own where the kubeconfig names the FIFO or
     * /dev/zero, whose read would block (a synchronous one, the test's whole process).
     */
    const plan = (kubeconfig: string): Promise<CtlResult> =>
      (/token\.fifo|\/dev\/zero/.test(readFileSync(kubeconfig, 'utf8')) ? runCtl : runCtlInProcess)(
        ['upgrade', 'plan'],
        {
          cwd: dir,
          env: {
            ...cluster.env,
            KUBECONFIG: kubeconfig,
            HOME: path.join(dir, 'home'),
            XDG_STATE_HOME: path.join(dir, 'home', 'state'),
            XDG_CACHE_HOME: path.join(dir, 'home', 'cache'),
            XDG_CONFIG_HOME: path.join(dir, 'home', 'config'),
          },
          // A FIFO opened for reading waits for a writer: this kills such a ctl, and its exit is then no 2.
          timeoutMs: hangGuardMs(60_000),
        },
      );

    /** The real kubectl, nearest the simulator's version, with that kubeconfig, from `dir`. */
    const kubectl = (kubeconfig: string): Promise<ToolResult> =>
      runTool(
        kubectlFor(cluster.scenario.kubernetesVersion),
        ['--kubeconfig', kubeconfig, 'get', 'ns', '--request-timeout=10s'],
        {
          cwd: dir,
          env: {
            PATH: testProcessEnv.PATH,
            HOME: path.join(dir, 'home'),
            KUBECACHEDIR: path.join(dir, 'home', 'kube-cache'),
            NO_PROXY: '127.0.0.1,localhost',
          },
          timeoutMs: hangGuardMs(60_000),
        },
      );

    /** ctl's plan and kubectl both exit 0 (`ok`) or both are refused by the cluster (401). */
    const assertBoth = async (kubeconfig: string, ok: boolean, what: string): Promise<void> => {
      assertExit(await plan(kubeconfig), ok ? 0 : 4, `ctl: ${what}`);
      const result = await kubectl(kubeconfig);
      const said = `kubectl: ${what}: exit ${result.code}\n${result.stderr}`;
      if (ok) assert.equal(result.code, 0, said);
      else assert.match(result.stderr, /Unauthorized/, said);
    };

    const assertRefused = (result: CtlResult, what: string, message: string): void => {
      assertExit(result, 2, what);
      assert.ok(result.stderr.includes(message), `${what}: expected "${message}" in\n${result.stderr}`);
      assert.ok(result.durationMs < REFUSED_WITHIN_MS, `${what}: refused after ${result.durationMs} ms`);
      assert.doesNotMatch(result.stderr, /\n\s+at /, `${what}: a stack trace`);
    };

    it("a token-file beside the kubeconfig, with a newline: read from the kubeconfig's folder, the plan runs", async () => {
      const kubeconfig = kubeconfigWith('good', { 'token-file': 'tokens/admin' });
      mkdirSync(path.join(dir, 'good', 'tokens'));
      writeFileSync(path.join(dir, 'good', 'tokens', 'admin'), `${token}\n`, { mode: 0o600 });
      assertExit(await plan(kubeconfig), 0, 'plan with a good token-file');
      // The file's token is the one sent: another is refused by the simulator (401: exit 4).
      writeFileSync(path.join(dir, 'good', 'tokens', 'admin'), 'not-the-token\n');
      assertExit(await plan(kubeconfig), 4, 'plan with a token-file of a wrong token');
    });

    it('a FIFO, a directory, /dev/zero or a file of 1 MiB as token-file: exit 2 at once, naming the user and the field', async () => {
      const role = `the kubeconfig's token-file of user ${userName}`;
      assertRefused(
        await plan(kubeconfigWith('fifo', { 'token-file': fifo })),
        'token-file <FIFO>',
        `${role} ${fifo} is a FIFO (named pipe), not a regular file`,
      );
      mkdirSync(path.join(dir, 'folder', 'token'), { recursive: true });
      assertRefused(
        await plan(kubeconfigWith('folder', { 'token-file': 'token' })),
        'token-file <directory>',
        `${role} ${path.join(dir, 'folder', 'token')} is a directory, not a regular file`,
      );
      assertRefused(
        await plan(kubeconfigWith('zero', { 'token-file': '/dev/zero' })),
        'token-file /dev/zero',
        `${role} /dev/zero is a character device, not a regular file`,
      );
      const large = path.join(dir, 'large', 'token');
      const kubeconfig = kubeconfigWith('large', { 'token-file': 'token' });
      writeFileSync(large, '');
      truncateSync(large, 1024 * 1024);
      assertRefused(
        await plan(kubeconfig),
        'token-file <1 MiB>',
        `${role} ${large} is 1 MiB, more than the 64 KiB ctl reads of it; ctl did not read it`,
      );
    });

    it("a tokenFile (kubectl's key) beside the kubeconfig, with a newline: ctl and kubectl both send its token", async () => {
      const kubeconfig = kubeconfigWith('key', { tokenFile: 'tokens/admin' });
      const file = path.join(dir, 'key', 'tokens', 'admin');
      mkdirSync(path.dirname(file));
      writeFileSync(file, `${token}\n`, { mode: 0o600 });
      await assertBoth(kubeconfig, true, 'a good tokenFile');
      writeFileSync(file, 'not-the-token\n');
      await assertBoth(kubeconfig, false, 'a tokenFile of a wrong token');
    });

    it("a token beside a tokenFile: both send the file's token when it reads, the token when it does not", async () => {
      const good = path.join(dir, 'good-token');
      const wrong = path.join(dir, 'wrong-token');
      writeFileSync(good, `${token}\n`, { mode: 0o600 });
      writeFileSync(wrong, 'not-the-token\n', { mode: 0o600 });
      made = [...new Set([...made, 'good-token', 'wrong-token'])].sort();
      await assertBoth(
        kubeconfigWith('beside-file-good', { token: 'not-the-token', tokenFile: good }),
        true,
        'a wrong token beside a good tokenFile',
      );
      await assertBoth(
        kubeconfigWith('beside-file-wrong', { token, tokenFile: wrong }),
        false,
        'a good token beside a tokenFile of a wrong token',
      );
      await assertBoth(
        kubeconfigWith('beside-file-missing', { token, tokenFile: 'missing' }),
        true,
        'a good token beside a missing tokenFile',
      );
    });

    it('tokenFile and token-file both: both read the tokenFile; kubectl never reads a token-file alone', async () => {
      const file = path.join(dir, 'both', 'token');
      const kubeconfig = kubeconfigWith('both', { tokenFile: 'token', 'token-file': 'missing' });
      writeFileSync(file, token, { mode: 0o600 });
      await assertBoth(kubeconfig, true, 'tokenFile and token-file');
      // kubectl has no credential then and asks for a username (EOF without a terminal): it is
      // client-node's key, which ctl reads for the kubeconfigs written for it.
      const result = await kubectl(kubeconfigWith('dash-only', { 'token-file': file }));
      assert.notEqual(result.code, 0, result.stderr);
      assert.match(result.stderr, /EOF/);
    });

    it("a tokenFile beside a username: both refuse it, ctl in kubectl's words", async () => {
      const file = path.join(dir, 'basic', 'token');
      const kubeconfig = kubeconfigWith('basic', { tokenFile: 'token', username: 'ops', password: 'p' });
      writeFileSync(file, token, { mode: 0o600 });
      const words = 'username/password or bearer token may be set, but not both';
      assertRefused(
        await plan(kubeconfig),
        'tokenFile and username',
        `the kubeconfig's user ${userName} has a tokenFile and a username; kubectl says: ${words}`,
      );
      const result = await kubectl(kubeconfig);
      assert.notEqual(result.code, 0, result.stderr);
      assert.ok(result.stderr.includes(words), result.stderr);
    });

    it('a FIFO or a missing file as tokenFile: exit 2 at once, naming the user and tokenFile', async () => {
      const role = `the kubeconfig's tokenFile of user ${userName}`;
      assertRefused(
        await plan(kubeconfigWith('key-fifo', { tokenFile: fifo })),
        'tokenFile <FIFO>',
        `${role} ${fifo} is a FIFO (named pipe), not a regular file`,
      );
      assertRefused(
        await plan(kubeconfigWith('key-missing', { tokenFile: 'token' })),
        'tokenFile <missing>',
        `${role} ${path.join(dir, 'key-missing', 'token')}: no such file`,
      );
    });

    it('the token-file of a user no context uses is never opened, as with kubectl: a FIFO there holds nothing', async () => {
      const kubeconfig = kubeconfigWith('unused', { token }, [
        { name: 'someone-else', user: { 'token-file': fifo } },
        { name: 'someone-other', user: { tokenFile: fifo } },
      ]);
      assertExit(await plan(kubeconfig), 0, 'plan beside an unused FIFO token-file');
    });

    it("an auth-provider's tokenFile: a FIFO refused at once; a regular file's token is sent", async () => {
      assertRefused(
        await plan(
          kubeconfigWith('provider-fifo', {
            'auth-provider': { name: 'tokenFile', config: { tokenFile: fifo } },
          }),
        ),
        'auth-provider tokenFile <FIFO>',
        `the kubeconfig's auth-provider tokenFile of user ${userName} ${fifo} is a FIFO (named pipe), not a regular file`,
      );
      const file = path.join(dir, 'provider', 'token');
      const kubeconfig = kubeconfigWith('provider', {
        'auth-provider': { name: 'tokenFile', config: { tokenFile: file } },
      });
      writeFileSync(file, token, { mode: 0o600 });
      assertExit(await plan(kubeconfig), 0, 'plan with an auth-provider tokenFile');
    });

    it("an auth-provider's relative tokenFile, with a newline: from the kubeconfig's folder, trimmed; an empty one refused at once", async () => {
      // ctl runs from `dir`, where no `token` is: client-node read the path from there, and sent
      // the file's newline with the token.
      const kubeconfig = kubeconfigWith('provider-relative', {
        'auth-provider': { name: 'tokenFile', config: { tokenFile: 'token' } },
      });
      const file = path.join(dir, 'provider-relative', 'token');
      writeFileSync(file, `${token}\n`, { mode: 0o600 });
      assertExit(await plan(kubeconfig), 0, 'plan with a relative auth-provider tokenFile');
      writeFileSync(file, ' \n');
      assertRefused(
        await plan(kubeconfig),
        'an empty auth-provider tokenFile',
        `the kubeconfig's auth-provider tokenFile of user ${userName} ${file} is empty`,
      );
    });

    it('ctl left nothing beside the files it was given', () => {
      assert.deepEqual(
        readdirSync(dir)
          .filter((name) => name !== 'home')
          .sort(),
        made,
      );
    });
  },
);
