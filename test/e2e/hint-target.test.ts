/**
 * The commands ctl's hints print name the kubeconfig and context ctl was given, as the plan's
 * commands do (./plan-context.test.ts): the state store's (a ConfigMap state that is not valid, a
 * Lease another run holds, a lock id that is not the lock's), the exec credential plugin's, the
 * kubeconfig without a current context, and `ctl sim capture`'s. Each is driven through the
 * built ctl with `--kubeconfig <file> --context <name with a quote and a space>` and KUBECONFIG
 * unset: a hint's command that named nothing would reach the default kubeconfig's cluster.
 */

import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { shellQuote } from '../../src/io/shell-words.js';
import { assertExit, startUpgradeSim, TARGET, type UpgradeSim } from './upgrade-support.js';

const CONTEXT = "prod's cluster";

interface KubeconfigDoc {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: Record<string, unknown> }[];
  'current-context'?: string;
}

describe("the commands of ctl's hints name the kubeconfig and context it was given (e2e)", () => {
  let sim: UpgradeSim;
  let chosen: string;
  /** `<binary> --kubeconfig <chosen> --context <CONTEXT>`, as every hint must begin. */
  let named: (binary: 'kubectl' | 'ctl') => string;
  const env = { KUBECONFIG: '' };
  const ctl = (args: string[]) => sim.ctl([...args, '--kubeconfig', chosen, '--context', CONTEXT], { env });

  /** The simulator's kubeconfig with its one context renamed `context`; `edit` changes it further. */
  function kubeconfigAs(name: string, edit: (doc: KubeconfigDoc) => void = () => {}): string {
    const doc = parse(readFileSync(sim.cluster.kubeconfigPath, 'utf8')) as KubeconfigDoc;
    const context = doc.contexts[0]!;
    context.name = CONTEXT;
    doc['current-context'] = CONTEXT;
    edit(doc);
    const file = path.join(sim.sandbox.dir, 'kube', name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, stringify(doc), { mode: 0o600 });
    return file;
  }

  before(async () => {
    sim = await startUpgradeSim('happy-path');
    chosen = kubeconfigAs('chosen.yaml');
    named = (binary) => `${binary} --kubeconfig ${chosen} --context ${shellQuote(CONTEXT)}`;
  });
  after(async () => {
    await sim?.close();
  });

  it('a ConfigMap state that is not valid: the kubectl that inspects it', async () => {
    await sim.kubectl([
      'create',
      'configmap',
      'ctl-upgrade-state-rec',
      '-n',
      'redis',
      '--from-literal=state.json=not json',
    ]);
    try {
      const status = await ctl([
        'upgrade',
        'status',
        '--state-store',
        'configmap',
        '-n',
        'redis',
        '--cluster',
        'rec',
      ]);
      assertExit(status, 1, 'status of a ConfigMap state that is not JSON');
      assert.match(status.stderr, /is not a valid ctl state/);
      assert.ok(
        status.stderr.includes(
          `Inspect it with ${named('kubectl')} get configmap ctl-upgrade-state-rec -n redis -o yaml`,
        ),
        status.stderr,
      );
    } finally {
      await sim.kubectl(['delete', 'configmap', 'ctl-upgrade-state-rec', '-n', 'redis']);
    }
  });

  it("the cluster's Lease held by a run elsewhere: the ctl upgrade unlock for this cluster", async () => {
    const now = new Date().toISOString().replace(/Z$/, '000Z');
    const owner = {
      id: 'lock-elsewhere',
      pid: 4242,
      host: 'another-host',
      operation: 'upgrade run',
      createdAt: now,
    };
    const lease = path.join(sim.sandbox.dir, 'lease.json');
    writeFileSync(
      lease,
      JSON.stringify({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: 'ctl-upgrade-lock-rec',
          namespace: 'redis',
          annotations: { 'ctl/lock-owner': JSON.stringify(owner) },
        },
        spec: {
          holderIdentity: 'lock-elsewhere/4242/another-host',
          leaseDurationSeconds: 3600,
          acquireTime: now,
          renewTime: now,
        },
      }),
    );
    await sim.kubectl(['create', '-f', lease]);
    try {
      const run = await ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--state-store', 'configmap']);
      assertExit(run, 5, 'a run while another holds the Lease');
      assert.ok(
        run.stderr.includes(
          `run: ${named('ctl')} upgrade unlock --state-store configmap -n redis --lock-id lock-elsewhere`,
        ),
        run.stderr,
      );
    } finally {
      await sim.kubectl(['delete', 'lease', 'ctl-upgrade-lock-rec', '-n', 'redis']);
    }
  });

  it("a lock id that is not the lock file's: the ctl upgrade status that shows it (with --state, nothing read)", async () => {
    const state = path.join(sim.sandbox.dir, 'unlock', 'state.json');
    mkdirSync(path.dirname(state), { recursive: true });
    writeFileSync(
      `${state}.lock`,
      JSON.stringify({
        id: 'held',
        pid: 1,
        host: 'another-host',
        operation: 'upgrade run',
        createdAt: new Date().toISOString(),
      }),
    );
    const unlock = await ctl(['upgrade', 'unlock', '--state', state, '--lock-id', 'other']);
    assertExit(unlock, 1, 'unlock with another id');
    assert.ok(unlock.stderr.includes(`Check the id with: ${named('ctl')} upgrade status.`), unlock.stderr);
  });

  it("the kubeconfig's credential plugin fails: the kubectl that runs it the same way", async () => {
    const plugin = path.join(sim.sandbox.dir, 'kube', 'plugin.sh');
    writeFileSync(plugin, '#!/bin/sh\necho "sign-in needed" >&2\nexit 3\n');
    chmodSync(plugin, 0o700);
    const withPlugin = kubeconfigAs('plugin.yaml', (doc) => {
      doc.users[0]!.user = {
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' },
      };
    });
    const plan = await sim.ctl(
      ['upgrade', 'plan', '--to', TARGET, '--kubeconfig', withPlugin, '--context', CONTEXT],
      { env },
    );
    assert.notEqual(plan.code, 0, plan.stderr);
    assert.match(plan.stderr, /credential plugin .* failed \(exit 3\)/);
    assert.ok(
      plan.stderr.includes(
        `kubectl --kubeconfig ${withPlugin} --context ${shellQuote(CONTEXT)} get namespaces runs it too`,
      ),
      plan.stderr,
    );
  });

  it('a kubeconfig without a current context: the kubectl config use-context of that file', async () => {
    const none = kubeconfigAs('no-current.yaml', (doc) => {
      delete doc['current-context'];
    });
    const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--kubeconfig', none], { env });
    assertExit(plan, 2, 'plan without a current context');
    assert.ok(
      plan.stderr.includes(`run kubectl --kubeconfig ${none} config use-context <name>.`),
      plan.stderr,
    );
  });

  it('ctl sim capture of a namespace without a cluster: the kubectl that lists them', async () => {
    const capture = await ctl(['sim', 'capture', '-n', 'default']);
    assertExit(capture, 2, 'capture of a namespace without a cluster');
    assert.ok(capture.stderr.includes(`(${named('kubectl')} get rec -A lists them)`), capture.stderr);
  });
});
