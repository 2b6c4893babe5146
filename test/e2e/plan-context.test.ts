/**
 * The commands `ctl upgrade plan` prints act on the cluster ctl planned, not on the current
 * context of whatever kubeconfig the shell has: two simulated clusters, the one planned reached
 * through a chosen kubeconfig and a context with a hostile name, the other (the decoy) the current
 * context of that kubeconfig and of ~/.kube/config. The plan's commands are pasted into a real
 * POSIX shell with the real kubectl (test/helpers/tools.ts) on its PATH, from another folder and
 * without KUBECONFIG, and act on the planned cluster only; no part of the name runs as code.
 */

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { kubectlFor, runTool } from '../helpers/tools.js';
import { assertExit, startUpgradeSim, TARGET, type UpgradeSim } from './upgrade-support.js';

/** Quotes, a command substitution, backticks and a comment: each must stay part of the name. */
const HOSTILE = "prod'; touch pwned-quote #$(touch pwned-subst)`touch pwned-tick`";
const INJECTED = ['pwned-quote', 'pwned-subst', 'pwned-tick'];

interface PlanJson {
  steps: { id: string; actions: { description: string; command: string }[] }[];
}

interface KubeconfigDoc {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: Record<string, unknown> }[];
}

/** A kubeconfig with one context per simulated cluster, named as given; `current` is current. */
function writeKubeconfig(file: string, contexts: Record<string, UpgradeSim>, current: string): void {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [] as unknown[],
    users: [] as unknown[],
    contexts: [] as unknown[],
    'current-context': current,
  };
  Object.entries(contexts).forEach(([name, sim], index) => {
    const own = parse(readFileSync(sim.cluster.kubeconfigPath, 'utf8')) as KubeconfigDoc;
    const id = `sim-${index}`;
    doc.clusters.push({ name: id, cluster: own.clusters[0]?.cluster });
    doc.users.push({ name: id, user: own.users[0]?.user });
    doc.contexts.push({ name, context: { ...own.contexts[0]?.context, cluster: id, user: id } });
  });
  writeFileSync(file, stringify(doc), { mode: 0o600 });
}

function commandsOf(stdout: string): { step: string; command: string }[] {
  const plan = JSON.parse(stdout) as PlanJson;
  return plan.steps.flatMap((step) => step.actions.map((a) => ({ step: step.id, command: a.command })));
}

describe('the plan prints commands that act on the cluster it planned (e2e)', () => {
  let planned: UpgradeSim;
  let decoy: UpgradeSim;
  let chosen: string;
  /** Where commands are pasted: another folder, a HOME whose ~/.kube/config points at the decoy. */
  let shell: { cwd: string; env: NodeJS.ProcessEnv };

  // Not spawnSync: the simulators answer from this very process.
  const paste = async (command: string) => {
    const result = await runTool('/bin/sh', ['-c', command], { cwd: shell.cwd, env: shell.env });
    assert.equal(result.code, 0, `pasted: ${command}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
    return result.stdout;
  };
  const which = async (sim: UpgradeSim) =>
    (await sim.get(['rec', 'rec', '-n', 'redis'])).metadata.labels?.which ?? '(none)';
  const tagOf = async (sim: UpgradeSim) =>
    (
      (await sim.get(['rec', 'rec', '-n', 'redis'])).spec as {
        redisEnterpriseImageSpec?: { versionTag?: string };
      }
    ).redisEnterpriseImageSpec?.versionTag;

  before(async () => {
    planned = await startUpgradeSim('happy-path');
    decoy = await startUpgradeSim('happy-path');
    // The same scenario twice: a command that went to the decoy would succeed there too.
    await planned.kubectl(['label', 'rec', 'rec', '-n', 'redis', 'which=planned']);
    await decoy.kubectl(['label', 'rec', 'rec', '-n', 'redis', 'which=decoy']);
    const dir = planned.sandbox.dir;
    chosen = path.join(dir, 'kube', 'prod.yaml');
    mkdirSync(path.dirname(chosen));
    writeKubeconfig(chosen, { decoy, [HOSTILE]: planned }, 'decoy');
    const home = path.join(dir, 'paste-home');
    mkdirSync(path.join(home, '.kube'), { recursive: true });
    writeKubeconfig(path.join(home, '.kube', 'config'), { decoy }, 'decoy');
    const bin = path.join(dir, 'paste-bin');
    mkdirSync(bin);
    symlinkSync(kubectlFor(planned.cluster.scenario.kubernetesVersion), path.join(bin, 'kubectl'));
    const cwd = path.join(dir, 'elsewhere');
    mkdirSync(cwd);
    shell = {
      cwd,
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, KUBECACHEDIR: path.join(dir, 'kube-cache') },
    };
  });
  after(async () => {
    await planned?.close();
    await decoy?.close();
  });

  it('the pasted commands reach the decoy when they name nothing (the test has teeth)', async () => {
    assert.equal(await paste('kubectl get rec rec -n redis -o jsonpath={.metadata.labels.which}'), 'decoy');
    assert.equal(await which(planned), 'planned');
  });

  it('KUBECONFIG naming two files, no --context: the commands carry the list, and reach the first current context', async () => {
    const dir = planned.sandbox.dir;
    const first = path.join(dir, 'kube', 'planned-only.yaml');
    const second = path.join(dir, 'kube', 'decoy-only.yaml');
    writeKubeconfig(first, { planned }, 'planned');
    writeKubeconfig(second, { decoy }, 'decoy');
    const json = await planned.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json'], {
      env: { KUBECONFIG: `${first}${path.delimiter}${second}` },
    });
    assertExit(json, 0, 'plan -o json');
    const backup = commandsOf(json.stdout).find(
      (c) => c.step === 'preflight' && c.command.includes('-o yaml'),
    );
    assert.ok(backup, json.stdout);
    // kubectl's --kubeconfig takes one file: the list goes in KUBECONFIG, as ctl read it.
    assert.ok(
      backup.command.startsWith(`KUBECONFIG=${first}${path.delimiter}${second} kubectl get rec rec`),
      backup.command,
    );
    assert.doesNotMatch(backup.command, /--context/);
    await paste(backup.command);
    const saved = parse(readFileSync(path.join(shell.cwd, 'rec-backup.yaml'), 'utf8')) as {
      metadata: { labels: Record<string, string> };
    };
    assert.equal(saved.metadata.labels.which, 'planned');
  });

  it('nothing chosen (KUBECONFIG unset, ~/.kube/config): the commands name nothing', async () => {
    const home = path.join(planned.sandbox.dir, 'home');
    mkdirSync(path.join(home, '.kube'), { recursive: true });
    writeKubeconfig(path.join(home, '.kube', 'config'), { planned }, 'planned');
    const json = await planned.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json'], {
      env: { KUBECONFIG: '', HOME: home },
    });
    assertExit(json, 0, 'plan -o json');
    const kube = commandsOf(json.stdout).filter((c) => /kubectl /.test(c.command));
    assert.ok(kube.length > 0);
    for (const { command } of kube)
      assert.doesNotMatch(command, /--kubeconfig|--context|KUBECONFIG=/, command);
  });

  it('a plan saved through one context is not run through another (exit 7, nothing changed)', async () => {
    const file = path.join(planned.sandbox.dir, 'plan.json');
    const saved = await planned.ctl(
      ['upgrade', 'plan', '--to', TARGET, '--kubeconfig', chosen, '--context', HOSTILE, '--out', file],
      { env: { KUBECONFIG: '' } },
    );
    assertExit(saved, 0, 'plan --out');
    const before = await tagOf(decoy);
    // The decoy's own API, credentials and CA: only the context differs from the plan's.
    const run = await decoy.ctl(
      ['upgrade', 'run', '--plan', file, '--kubeconfig', chosen, '--context', 'decoy', '--yes'],
      {
        env: { KUBECONFIG: '' },
      },
    );
    assertExit(run, 7, 'run --plan through another context');
    assert.equal(await tagOf(decoy), before);
  });

  it('--kubeconfig and a hostile --context: printed quoted, pasted they change the planned cluster only', async () => {
    const args = ['upgrade', 'plan', '--to', TARGET, '--kubeconfig', chosen, '--context', HOSTILE];
    const env = { KUBECONFIG: '' };
    const json = await planned.ctl([...args, '-o', 'json'], { env });
    assertExit(json, 0, 'plan -o json');
    const commands = commandsOf(json.stdout);
    const kube = commands.filter((c) => /^(KUBECONFIG=\S+ )?kubectl /.test(c.command));
    assert.ok(kube.length >= 4, JSON.stringify(commands, null, 2));
    const flags = `kubectl --kubeconfig ${chosen} --context 'prod'\\''; touch pwned-quote #$(touch pwned-subst)\`touch pwned-tick\`' `;
    for (const { command } of kube) assert.ok(command.startsWith(flags), command);

    // The text plan shows the same commands, whole, each on its line.
    const text = await planned.ctl(args, { env });
    assertExit(text, 0, 'plan (text)');
    for (const { command } of kube) assert.ok(text.stdout.includes(`$ ${command}\n`), command);

    const patch = commands.find((c) => c.step === 'cluster')?.command ?? '';
    assert.match(patch, / patch rec rec -n redis --type merge -p /);
    const before = await tagOf(decoy);
    await paste(patch);
    assert.equal(await tagOf(planned), /"versionTag":"([^"]+)"/.exec(patch)?.[1]);
    assert.equal(await tagOf(decoy), before, 'the decoy was changed');
    for (const name of INJECTED)
      assert.equal(existsSync(path.join(shell.cwd, name)), false, `${name}: code ran`);
  });

  it('a context name with a line break is refused: no command could carry it on one line', async () => {
    const result = await planned.ctl(
      ['upgrade', 'plan', '--to', TARGET, '--context', 'prod\nkubectl delete ns redis'],
      {
        env: { KUBECONFIG: chosen },
      },
    );
    assertExit(result, 2, 'plan --context with a newline');
    assert.match(result.stderr, /line break or a control character/);
    assert.match(result.stderr, /prod\\nkubectl delete ns redis/);
  });
});
