import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { shellWords } from '../../src/io/shell-words.js';
import { rejsonRhel9Package } from '../helpers/module-package.js';
import { type CtlResult, runCtl } from '../helpers/run-ctl.js';
import { pasteInShell } from '../helpers/paste-in-shell.js';
import {
  assertExit,
  parseEvents,
  readState,
  type SimOptions,
  type StateDoc,
  TARGET,
  type UpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * What ctl tells a person after a step failed or was refused is true and can be pasted:
 * `ctl upgrade status`, read later from the state, gives the step's hint (what to do next) as the
 * run did; a `--module-file` the cluster refused is not offered again by `resume with:` (run and
 * status name the refused file, and the flag to fill in); the status command of a run that found
 * its cluster already at the target is the state store's own, and works pasted from anywhere;
 * the resume line of a run that read KUBECONFIG names that kubeconfig, so a fresh shell resumes it;
 * so does the Next line of the databases `--databases` left, its relative --state made absolute.
 * Each on a cluster named otherwise than the built-in scenarios' (namespace and name).
 */

/** The scenario's cluster as `namespace`/`name`, so nothing here works only for redis/rec. */
function renamed(namespace: string, name: string): SimOptions {
  return { patch: (scenario) => ({ ...scenario, namespace, cluster: { ...scenario.cluster, name } }) };
}

/** The `hint:` of a run's error, as main printed it (every line up to the end). */
function hintOf(stderr: string): string {
  const at = stderr.lastIndexOf('\nhint: ');
  assert.ok(at >= 0, `no hint in:\n${stderr}`);
  return stderr.slice(at + '\nhint: '.length);
}

/** The command after `resume with: ` (the last one printed). */
function resumeLine(text: string): string {
  const lines = text.split('\n').filter((line) => line.startsWith('resume with: '));
  const last = lines.at(-1);
  assert.ok(last, `no resume line in:\n${text}`);
  return last.slice('resume with: '.length);
}

/** A printed command run as a person pastes it: split as sh does, in `cwd`, with `env` over the simulator's. */
function paste(sim: UpgradeSim, command: string, cwd: string, env: Record<string, string> = {}) {
  const words = shellWords(command);
  assert.equal(words[0], 'ctl', command);
  return runCtl(words.slice(1), { env: { ...sim.env, ...env }, cwd, timeoutMs: 90_000 });
}

/** `command` pasted into a fresh shell (no KUBECONFIG) in `cwd`, the simulator's environment. */
function pasteFresh(sim: UpgradeSim, command: string, cwd = sim.sandbox.dir): Promise<CtlResult> {
  return pasteInShell(sim.sandbox.dir, command, { env: { ...sim.env, KUBECONFIG: undefined }, cwd });
}

describe('after a failed or refused step (e2e)', () => {
  it("status gives the failed step's hint; a refused --module-file is named, not offered again, by run and status", async () => {
    await withUpgradeSim(
      'module-without-rhel9',
      async (sim) => {
        const base = ['upgrade', 'run', '--to', TARGET, '--yes', '--ignore-check', 'modules-compatible'];
        const frozen = await sim.ctl(base);
        assertExit(frozen, 1, 'the frozen run');
        const stepError = (readState(sim).steps.monitor as { error?: { message: string; hint?: string } })
          .error;
        const stepHint = stepError?.hint;
        assert.ok(stepError && stepHint, 'the state keeps the message and the hint the step gave');
        // The run printed that hint, then its resume line.
        assert.ok(hintOf(frozen.stderr).startsWith(stepHint), frozen.stderr);

        const status = await sim.ctl(['upgrade', 'status']);
        assertExit(status, 0, 'status after the frozen run');
        // The step's message, every line of it (the freeze's commands, which its hint says to
        // run), then its hint, as the run gave them: not one line with the line breaks escaped.
        const shown = status.stdout.split('\n').map((line) => line.trim());
        const [headline = '', ...commands] = stepError.message.split('\n');
        assert.ok(commands.length > 1, 'the freeze message holds the commands');
        const row = shown.findIndex((line) => /^monitor +failed +/.test(line));
        assert.ok(row >= 0, status.stdout);
        assert.equal(shown[row], `monitor           failed       ${headline}`.trim());
        commands.forEach((line, i) => assert.equal(shown[row + 1 + i], line.trim()));
        assert.match(stepHint, /^Run the commands above, or let ctl do it/);
        assert.deepEqual(
          shown.slice(row + 1 + commands.length, row + 1 + commands.length + stepHint.split('\n').length),
          stepHint.split('\n').map((line, i) => (i === 0 ? `hint: ${line}` : line).trim()),
        );
        assert.match(
          status.stdout,
          /-X POST -F module=@REJSON-2\.6\.10-RHEL9-PACKAGE\.zip https:\/\/localhost:9443\/v2\/modules/,
        );
        assert.equal(resumeLine(status.stdout), resumeLine(frozen.stderr));
        // The JSON keeps the state as it is: the hint is in it, no secret is.
        const json = await sim.ctl(['upgrade', 'status', '-o', 'json']);
        const doc = JSON.parse(json.stdout) as { state: { steps: { monitor: { error: { hint: string } } } } };
        assert.equal(doc.state.steps.monitor.error.hint, stepHint);
        assert.ok(!json.stdout.includes(sim.env.CTL_PASSWORD ?? '\u0000'), 'no password in the state');

        // A file the cluster refuses (HTTP 400 invalid_module).
        const notAPackage = path.join(sim.sandbox.dir, 'rejson-rhel9.zip');
        writeFileSync(notAPackage, 'neither a package nor named as one');
        const refused = await sim.ctl([...base, '--remediate', '--module-file', notAPackage]);
        assertExit(refused, 1, 'the run with a file that is no module package');
        assert.match(refused.stderr, /failed with HTTP 400: .*invalid_module/);
        const runResume = resumeLine(refused.stderr);
        const runWords = shellWords(runResume);
        assert.ok(!runWords.includes(notAPackage), `the refused file is not offered again: ${runResume}`);
        assert.deepEqual(
          runWords.slice(runWords.indexOf('--module-file'), runWords.indexOf('--module-file') + 2),
          ['--module-file', 'RHEL9_PACKAGE'],
        );
        assert.doesNotMatch(runResume, /[<>]/, 'no <placeholder> in a printed command');
        // The line after it says which file was refused and what goes in its place.
        const afterResume = (text: string): string =>
          text.split('\n')[text.split('\n').findLastIndex((line) => line.startsWith('resume with: ')) + 1] ??
          '';
        const why = afterResume(refused.stderr);
        assert.ok(why.includes(notAPackage), `names the refused file: ${why}`);
        assert.match(why, /RHEL9_PACKAGE: the RHEL9 package of ReJSON 2\.6\.10/);

        const statusRefused = await sim.ctl(['upgrade', 'status']);
        assertExit(statusRefused, 0, 'status after the refusal');
        assert.match(
          statusRefused.stdout,
          /hint: The cluster did not take rejson-rhel9\.zip as a module package\./,
        );
        assert.equal(resumeLine(statusRefused.stdout), runResume, 'status resumes as the run said');
        assert.equal(afterResume(statusRefused.stdout), why);
        // The state still records the command as given: the run's own record, unchanged.
        assert.ok(shellWords(readState(sim).resumeCommand ?? '').includes(notAPackage));

        // Filled in with the package the cluster takes, the resume line completes the upgrade.
        const moduleFile = rejsonRhel9Package(sim.sandbox.dir);
        const filled = runResume
          .split(' ')
          .map((word) => (word === 'RHEL9_PACKAGE' ? moduleFile : word))
          .join(' ');
        // In the same shell as the runs: the resume line is the run's own command line.
        const fixed = await paste(sim, filled, sim.sandbox.dir);
        assertExit(fixed, 0, `the resume line filled in: ${filled}`);
        assert.equal(readState(sim).result, 'succeeded');
      },
      renamed('warehouse', 'stock'),
    );
  });

  it('a run that read KUBECONFIG resumes, pasted into a shell without it, on the same cluster, not the default kubeconfig', async () => {
    await withUpgradeSim(
      'module-without-rhel9',
      async (sim) => {
        // The default kubeconfig of the shell is another cluster's (one that answers nothing).
        const home = sim.env.HOME ?? '';
        mkdirSync(path.join(home, '.kube'), { recursive: true });
        writeFileSync(
          path.join(home, '.kube', 'config'),
          [
            'apiVersion: v1',
            'kind: Config',
            'current-context: elsewhere',
            'clusters: [{name: elsewhere, cluster: {server: "https://127.0.0.1:1"}}]',
            'users: [{name: elsewhere, user: {token: not-this-cluster}}]',
            'contexts: [{name: elsewhere, context: {cluster: elsewhere, user: elsewhere, namespace: aisle}}]',
            '',
          ].join('\n'),
        );
        const kubeconfig = sim.env.KUBECONFIG ?? '';
        assert.ok(path.isAbsolute(kubeconfig), 'the simulator exports its kubeconfig');
        const stopped = await sim.ctl([
          'upgrade',
          'run',
          '--to',
          TARGET,
          '--yes',
          '--ignore-check',
          'modules-compatible',
        ]);
        assertExit(stopped, 1, 'the frozen run');
        const line = resumeLine(stopped.stderr);
        // The kubeconfig the run read, named absolute, the words as typed before it.
        assert.deepEqual(shellWords(line), [
          'ctl',
          'upgrade',
          'run',
          '--to',
          TARGET,
          '--yes',
          '--ignore-check',
          'modules-compatible',
          '--kubeconfig',
          kubeconfig,
        ]);
        const status = await sim.ctl(['upgrade', 'status']);
        assertExit(status, 0, 'status after the frozen run');
        assert.equal(resumeLine(status.stdout), line, 'status prints the same line, from the state');

        const resumed = await pasteFresh(sim, line);
        assertExit(resumed, 1, 'the pasted resume line (the freeze is still there)');
        assert.match(
          resumed.stderr,
          new RegExp(`resuming the upgrade to ${TARGET.replaceAll('.', '\\.')} at step monitor`),
        );
        assert.match(resumed.stderr, /ReJSON/, 'the same freeze, on the same cluster');
        assert.equal(resumeLine(resumed.stderr), line, 'the resumed run names the same kubeconfig again');

        // The line as typed, pasted the same way, reaches the shell's default kubeconfig instead.
        const typed = await pasteFresh(sim, line.slice(0, line.indexOf(' --kubeconfig ')));
        assert.notEqual(typed.code, 0);
        assert.doesNotMatch(typed.stderr, /resuming the upgrade/);
        assert.match(typed.stderr, /127\.0\.0\.1:1/, typed.stderr);
      },
      renamed('aisle', 'shelf'),
    );
  });

  it('databases left by --databases none: the Next line, pasted in another folder without KUBECONFIG, finishes the same run', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        // The recommended target moves the databases to a new version (7.8.2-6 keeps them).
        const list = await sim.ctl(['upgrade', 'plan', '-o', 'json']);
        assertExit(list, 0, 'the target list');
        const to = (JSON.parse(list.stdout) as { recommended: string | null }).recommended;
        assert.ok(to, 'happy-path has a recommended target');
        // A relative --state and KUBECONFIG: both only hold in this shell and this folder.
        const args = [
          'upgrade',
          'run',
          '--to',
          to,
          '--databases',
          'none',
          '--yes',
          '--state',
          'runs/depot.json',
        ];
        const run = await sim.ctl(args);
        assertExit(run, 0, 'run --databases none');
        const next = /^Next: (ctl .+?) {2}\(\d+ database\(s\) left at /m.exec(run.stdout)?.[1];
        assert.ok(next, run.stdout);
        const statePath = path.join(sim.sandbox.dir, 'runs', 'depot.json');
        assert.deepEqual(shellWords(next), [
          'ctl',
          'upgrade',
          'run',
          '--to',
          to,
          '--yes',
          '--state',
          statePath,
          '--kubeconfig',
          sim.env.KUBECONFIG,
        ]);
        const state = (): StateDoc => JSON.parse(readFileSync(statePath, 'utf8')) as StateDoc;
        assert.equal(state().result, 'succeeded');
        const versions = async (): Promise<Map<string, string | undefined>> =>
          new Map(
            (await sim.list(['redb', '-n', 'depot'])).map((db) => [
              db.metadata.name,
              (db.status as { version?: string } | undefined)?.version,
            ]),
          );
        const left = await versions();
        assert.ok(left.size > 0, 'the scenario has databases in depot');

        const elsewhere = path.join(sim.sandbox.dir, 'elsewhere');
        mkdirSync(elsewhere);
        const recorded = readFileSync(statePath, 'utf8');
        const pasted = await pasteFresh(sim, next, elsewhere);
        assertExit(pasted, 0, `the Next line pasted: ${next}`);
        assert.doesNotMatch(pasted.stdout, /^Next: /m, 'nothing left');
        // The same state file, not a new one under `elsewhere`; the same cluster's databases moved.
        assert.notEqual(
          readFileSync(statePath, 'utf8'),
          recorded,
          'the run recorded itself in the same state',
        );
        assert.equal(state().result, 'succeeded');
        assert.ok(!existsSync(path.join(elsewhere, 'runs')), 'no state started in the other folder');
        for (const [name, version] of await versions()) {
          assert.notEqual(version, left.get(name), `${name} moved from ${String(left.get(name))}`);
        }
      },
      // The databases move with the cluster: the scenario's are in its namespace.
      {
        patch: (scenario) => ({
          ...scenario,
          namespace: 'depot',
          cluster: { ...scenario.cluster, name: 'crate' },
          databases: scenario.databases.map((db) => ({ ...db, namespace: 'depot' })),
        }),
      },
    );
  });

  it("already at the target: the status command printed is the state store's, and works pasted from another folder", async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        // A relative --state: the command printed must still find it from any folder.
        const args = ['upgrade', 'run', '--to', TARGET, '--yes', '--state', 'runs/ledger.json'];
        const first = await sim.ctl(args);
        assertExit(first, 0, 'the upgrade');
        const again = await sim.ctl(args);
        assertExit(again, 0, 'the same run again');
        const next = /^Next: (ctl .+) {2}\(the run that got it there\)$/m.exec(again.stdout)?.[1];
        assert.ok(next, again.stdout);
        const statePath = path.join(sim.sandbox.dir, 'runs', 'ledger.json');
        assert.equal(next, `ctl --kubeconfig ${sim.env.KUBECONFIG} upgrade status --state ${statePath}`);

        const json = await sim.ctl([...args, '-o', 'json']);
        assertExit(json, 0, 'the same run again, -o json');
        assert.equal(parseEvents(json.stdout)[0]?.data?.status, next);

        const elsewhere = path.join(sim.sandbox.dir, 'elsewhere');
        mkdirSync(elsewhere);
        // KUBECONFIG unset: the command itself names the kubeconfig and the state.
        const status = await paste(sim, next, elsewhere, { KUBECONFIG: '' });
        assertExit(status, 0, `the Next line pasted: ${next}`);
        assert.match(status.stdout, /^cluster {3}ledger\/billing /m);
        assert.match(status.stdout, /^result {4}succeeded/m);
      },
      renamed('ledger', 'billing'),
    );
  });
});
