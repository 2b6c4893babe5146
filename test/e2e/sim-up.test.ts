/**
 * `ctl sim up` as users run it: a child process of the built CLI that prints one `ready` line,
 * writes the files of SIMULATOR.md, serves kubectl, the management API and the artifacts, and
 * stops cleanly (exit 0) on SIGTERM or SIGINT. Also `ctl sim scenarios` and the exit codes of
 * bad input.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Agent, fetch } from 'undici';
import { loadScenario } from '../helpers/simulator.js';
import { runCtl } from '../helpers/run-ctl.js';
import { kubectlFor, makeToolSandbox, type ToolSandbox } from '../helpers/tools.js';
import { eventually, parseTable, REC_COLUMNS_SHARDS_LIMIT } from './sim-support.js';
import { readEnvFile, type SimProcess, startSimUp } from './sim-process.js';

const BUILT_IN_SCENARIOS = [
  'auto-upgrade',
  'auto-upgrade-no-spec-write',
  'cluster-role-binding',
  'digest-pinned',
  'engine-dialect',
  'flaky-api',
  'happy-path',
  'helm-installed',
  'helm-pinned-values',
  'inline-license',
  'invalid-upgrade',
  'legacy-api',
  'legacy-webhook',
  'license-invalid',
  'module-without-rhel9',
  'modules-upload-disabled',
  'multi-namespace',
  'old-database',
  'old-operator',
  'olm-automatic',
  'olm-channel-switch',
  'olm-digest',
  'olm-manual',
  'olm-no-edge',
  'olm-stable-suffix',
  'ondelete-statefulset',
  'openshift',
  'openshift-7-8',
  'openshift-auto-adjust',
  'openshift-helm-scc',
  'openshift-rbac-scc',
  'openshift-shared-scc',
  'redis-dialect',
  'scale-1000',
  'scale-10000',
];

describe('ctl sim up (child process)', () => {
  let sandbox: ToolSandbox;
  let sim: SimProcess;
  let env: Record<string, string>;
  before(async () => {
    sandbox = makeToolSandbox('ctl-sim-up-');
    sim = await startSimUp(['--scenario', 'happy-path', '--fast', '--dir', 'state'], sandbox.dir);
    env = readEnvFile(path.join(sim.ready.dir, 'env'));
  });
  after(async () => {
    if (sim && sim.child.exitCode === null) {
      sim.child.kill('SIGKILL');
      await sim.exited;
    }
    sandbox?.cleanup();
  });

  test('the ready line names the absolute --dir and the URLs', async () => {
    assert.equal(sim.ready.dir, path.join(sandbox.dir, 'state'));
    assert.match(sim.ready.kubeUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(sim.ready.apiUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(sim.ready.artifactsUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    // stderr is another pipe: its summary may arrive a moment after the ready line.
    const sourceLine = `source ${path.join(sim.ready.dir, 'env')}`;
    await eventually('the summary on stderr', async () =>
      sim.stderr().includes('Press Ctrl+C') ? true : undefined,
    );
    // What to type next needs nothing but ctl (kubectl is optional), and a sim started with `&`
    // in the same shell, as the quick start does, is stopped with kill, not Ctrl+C.
    const summary = sim.stderr();
    assert.ok(summary.includes(`\n  ${sourceLine}\n  ctl upgrade plan `), summary);
    assert.match(summary, /\n {2}kubectl get rec +# kubectl, if you have it/);
    assert.match(summary, /\nPress Ctrl\+C to stop \(started with &: kill %1, or fg then Ctrl\+C\)\./);
  });

  test('it writes kubeconfig, ca.pem, env (0600), audit.jsonl and events.jsonl', () => {
    for (const file of ['kubeconfig', 'ca.pem', 'env', 'audit.jsonl', 'events.jsonl']) {
      assert.ok(statSync(path.join(sim.ready.dir, file)).isFile(), file);
    }
    assert.equal(statSync(path.join(sim.ready.dir, 'env')).mode & 0o777, 0o600);
    assert.equal(statSync(path.join(sim.ready.dir, 'kubeconfig')).mode & 0o777, 0o600);
    assert.deepEqual(Object.keys(env).sort(), [
      'CTL_API_URL',
      'CTL_BUNDLE',
      'CTL_CA_FILE',
      'CTL_HELM_REPO',
      'CTL_PASSWORD',
      'CTL_USERNAME',
      'KUBECONFIG',
    ]);
    assert.equal(env.KUBECONFIG, path.join(sim.ready.dir, 'kubeconfig'));
    assert.equal(env.CTL_API_URL, sim.ready.apiUrl);
    assert.equal(env.CTL_CA_FILE, path.join(sim.ready.dir, 'ca.pem'));
    assert.equal(env.CTL_BUNDLE, `${sim.ready.artifactsUrl}/bundles/{version}/bundle.yaml`);
    assert.equal(env.CTL_HELM_REPO, sim.ready.artifactsUrl);
    // The way back after a rehearsal, in the file itself: its unset line, run in the shell that
    // sourced it, leaves none of its variables behind.
    const envFile = path.join(sim.ready.dir, 'env');
    const leave = /^# Back to your own clusters in this shell: (unset [A-Z_ ]+)$/m.exec(
      readFileSync(envFile, 'utf8'),
    )?.[1];
    assert.ok(leave, 'the env file says how to leave the rehearsal');
    const left = spawnSync(
      'bash',
      ['--norc', '--noprofile', '-c', `source "$1" && ${leave} && env`, 'bash', envFile],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
    );
    assert.equal(left.status, 0, left.stderr);
    assert.deepEqual(
      left.stdout.split('\n').filter((line) => /^(KUBECONFIG|CTL_[A-Z_]+)=/.test(line)),
      [],
    );
    const kubeconfig = readFileSync(env.KUBECONFIG ?? '', 'utf8');
    assert.match(kubeconfig, /namespace: redis/);
    assert.match(kubeconfig, /token: /);
  });

  test('kubectl with the written kubeconfig shows the cluster; the audit log records it', async () => {
    const { runTool } = await import('../helpers/tools.js');
    const served = loadScenario('happy-path').kubernetesVersion;
    const result = await runTool(kubectlFor(served), ['get', 'rec'], {
      env: { ...sandbox.env, KUBECONFIG: env.KUBECONFIG },
    });
    assert.equal(result.code, 0, result.stderr);
    const table = parseTable(result.stdout);
    // Operator 7.4.6-2: its REC CRD shows the licence's shard limit (sim-support.ts).
    assert.deepEqual(table.header, REC_COLUMNS_SHARDS_LIMIT);
    assert.equal(table.rows[0]?.STATE, 'Running');
    // The server appends the line when the response has closed: maybe a moment after kubectl exits.
    const get = await eventually('the GET of the cluster resources in audit.jsonl', async () =>
      readFileSync(path.join(sim.ready.dir, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              api: string;
              method: string;
              path: string;
              status: number;
              user: string;
              mutating: boolean;
            },
        )
        .find((entry) => entry.api === 'kube' && entry.path.includes('/redisenterpriseclusters')),
    );
    assert.equal(get.method, 'GET');
    assert.equal(get.status, 200);
    assert.equal(get.mutating, false);
    assert.ok(Object.hasOwn(get, 'ts') && Object.hasOwn(get, 'user'));
  });

  test('the management API answers over HTTPS with ca.pem and the env credentials', async () => {
    const dispatcher = new Agent({ connect: { ca: readFileSync(env.CTL_CA_FILE ?? '', 'utf8') } });
    try {
      const basic = Buffer.from(`${env.CTL_USERNAME}:${env.CTL_PASSWORD}`).toString('base64');
      const response = await fetch(`${env.CTL_API_URL}/v1/nodes`, {
        headers: { authorization: `Basic ${basic}` },
        dispatcher,
      });
      assert.equal(response.status, 200);
      const nodes = (await response.json()) as { software_version: string }[];
      assert.equal(nodes.length, 3);
      assert.ok(nodes.every((node) => node.software_version === '7.4.6-22'));
    } finally {
      await dispatcher.close();
    }
  });

  test('a port-forward to pod rec-0 port 9443 (client-node, as ctl does it) reaches the management API', async () => {
    const { KubeConfig, PortForward } = await import('@kubernetes/client-node');
    const config = new KubeConfig();
    config.loadFromFile(env.KUBECONFIG ?? '');
    const forward = new PortForward(config);
    // The usual local listener: each connection gets its own forwarded stream.
    const local = createServer((socket) => {
      void forward.portForward('redis', 'rec-0', [9443], socket, null, socket).catch(() => socket.destroy());
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const dispatcher = new Agent({ connect: { ca: readFileSync(env.CTL_CA_FILE ?? '', 'utf8') } });
    try {
      const basic = Buffer.from(`${env.CTL_USERNAME}:${env.CTL_PASSWORD}`).toString('base64');
      const port = (local.address() as { port: number }).port;
      // The API certificate names 127.0.0.1, which is where the local end listens.
      const response = await fetch(`https://127.0.0.1:${port}/v1/nodes`, {
        headers: { authorization: `Basic ${basic}` },
        dispatcher,
      });
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as unknown[]).length, 3);
    } finally {
      await dispatcher.close();
      local.close();
    }
  });

  test('the artifacts server serves the bundle template and the helm index', async () => {
    const bundle = await fetch((env.CTL_BUNDLE ?? '').replace('{version}', '7.8.2-6'));
    assert.equal(bundle.status, 200);
    assert.match(await bundle.text(), /image: redislabs\/operator:7\.8\.2-6/);
    const index = await fetch(`${env.CTL_HELM_REPO}/index.yaml`);
    assert.match(await index.text(), /redis-enterprise-operator-7\.8\.2-6\.tgz/);
    const missing = await fetch(`${sim.ready.artifactsUrl}/bundles/9.9.9-9/bundle.yaml`);
    assert.equal(missing.status, 404);
  });

  test('SIGTERM stops it with exit 0 and exactly one line on stdout', async () => {
    sim.child.kill('SIGTERM');
    const { code } = await sim.exited;
    assert.equal(code, 0, sim.stderr());
    assert.equal(sim.stdout().trim().split('\n').length, 1);
    assert.match(sim.stdout(), /^ready \{/);
    // The ports are released.
    await assert.rejects(fetch(`${sim.ready.artifactsUrl}/index.yaml`));
  });
});

describe('ctl sim up: signals, bad input, busy ports', () => {
  let sandbox: ToolSandbox;
  before(() => {
    sandbox = makeToolSandbox('ctl-sim-up-');
  });
  after(() => {
    sandbox?.cleanup();
  });

  test('SIGINT also stops it with exit 0 (default --dir .ctl-sim in the working directory)', async () => {
    const sim = await startSimUp(['--fast'], sandbox.dir);
    assert.equal(sim.ready.dir, path.join(sandbox.dir, '.ctl-sim'));
    sim.child.kill('SIGINT');
    const { code } = await sim.exited;
    assert.equal(code, 0, sim.stderr());
  });

  test('a scenario file with a bad field exits 2 naming the file and the field', async () => {
    const file = path.join(sandbox.dir, 'mine.yaml');
    writeFileSync(
      file,
      'name: mine\ndescription: mine\noperator:\n  version: seven\ncluster:\n  versionTag: 7.4.6-22\n',
    );
    const result = await runCtl(['sim', 'up', '--scenario', file, '--dir', path.join(sandbox.dir, 'x')]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /mine\.yaml/);
    assert.match(result.stderr, /operator\.version/);
    assert.equal(result.stdout, '');
  });

  test('an unknown scenario name exits 2 and lists the built-in ones', async () => {
    const result = await runCtl([
      'sim',
      'up',
      '--scenario',
      'no-such-thing',
      '--dir',
      path.join(sandbox.dir, 'y'),
    ]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown scenario "no-such-thing"\n/, 'nothing near it: no guess');
    assert.match(result.stderr, /happy-path/);
  });

  test('a mistyped scenario name gets a "did you mean" (issue 38)', async () => {
    const result = await runCtl(['demo', '--scenario', 'hapy-path', '--instant']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown scenario "hapy-path"; did you mean happy-path\?/);
    const swapped = await runCtl(['demo', '--scenario', 'openshfit', '--instant']);
    assert.match(swapped.stderr, /did you mean openshift\?/);
  });

  test('a malformed --kube-port exits 2 before starting anything', async () => {
    const result = await runCtl(['sim', 'up', '--kube-port', 'eighty', '--dir', path.join(sandbox.dir, 'z')]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--kube-port must be a port number/);
  });

  test('a busy --kube-port exits 1 with a hint', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runCtl([
        'sim',
        'up',
        '--fast',
        '--kube-port',
        String(port),
        '--dir',
        path.join(sandbox.dir, 'busy'),
      ]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      assert.match(result.stderr, /hint: .*--kube-port/);
    } finally {
      blocker.close();
    }
  });
});

describe('ctl sim scenarios', () => {
  test('one line per built-in scenario: name and description', async () => {
    const result = await runCtl(['sim', 'scenarios']);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, BUILT_IN_SCENARIOS.length);
    assert.deepEqual(
      lines.map((line) => line.split(/\s+/)[0]),
      BUILT_IN_SCENARIOS,
    );
    for (const line of lines) assert.match(line, /^\S+\s{2,}\S.+$/);
  });

  test('-o json: an array of {name, description}', async () => {
    const result = await runCtl(['sim', 'scenarios', '-o', 'json']);
    assert.equal(result.code, 0, result.stderr);
    const scenarios = JSON.parse(result.stdout) as { name: string; description: string }[];
    assert.deepEqual(
      scenarios.map((scenario) => scenario.name),
      BUILT_IN_SCENARIOS,
    );
    assert.ok(scenarios.every((scenario) => scenario.description.length > 10));
  });
});
