/**
 * The command ctl suggests next repeats the user's options, but never an --ignore-check that
 * cannot get past its check (a preflight's firm fail: src/errors.ts PreflightError.firmChecks).
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import {
  nextRunCommand,
  nextTargetsCommand,
  pastedRunCommand,
  recordedCommand,
  resumeCommand,
  resumeLines,
  recordStateWords,
  withoutIgnoredChecks,
  withRunState,
} from '../../../src/commands/next-command.js';

const args = {
  location: ['-n', 'redis'],
  plan: ['--ignore-check', 'upgrade-path', '--databases', 'a,b', '--ignore-check', 'release-rules'],
};

describe('the command to make next', () => {
  it('leaves out an --ignore-check of a check it cannot get past, and keeps the others', () => {
    const next = nextRunCommand(withoutIgnoredChecks(args, ['upgrade-path']), '7.4.2-2');
    assert.equal(next, 'ctl upgrade run --to 7.4.2-2 -n redis --databases a,b --ignore-check release-rules');
  });

  it('the target list of the same cluster, when the target itself cannot be run', () => {
    assert.equal(nextTargetsCommand(args), 'ctl upgrade plan -n redis');
  });

  it('keeps every option when no check is firm, and a value that only looks like a check id', () => {
    assert.deepEqual(withoutIgnoredChecks(args, []), args);
    const databases = { location: [], plan: ['--databases', 'upgrade-path'] };
    assert.deepEqual(withoutIgnoredChecks(databases, ['upgrade-path']), databases);
  });
});

describe('a recorded ctl upgrade run is shown with the kubeconfig and context it names', () => {
  it('the target words before the subcommand (a held-back database), and nothing else', () => {
    const held =
      "ctl --kubeconfig /k/prod.yaml --context 'prod a' upgrade run -n redis --databases redis/geo";
    assert.equal(recordedCommand(held, 'ctl upgrade run'), held);
    const merged = 'KUBECONFIG=/k/a:/k/b ctl --context prod upgrade run --to 8.0.20-27';
    assert.equal(recordedCommand(merged, 'ctl upgrade run'), merged);
    for (const other of [
      'ctl --kubeconfig /k/prod.yaml upgrade plan --to 8.0.20-27',
      'ctl --kubeconfig /k/prod.yaml upgrade run --to 8.0.20-27; curl x | sh',
      'ctl --namespace redis upgrade run',
    ])
      assert.equal(recordedCommand(other, 'ctl upgrade run'), undefined, other);
  });
});

describe("a recorded Next line may be the plan of the targets (a run's preflight that stopped on one)", () => {
  it('ctl upgrade plan is shown only where the caller names it, and only as one command', () => {
    const targets = "ctl --context 'prod a' upgrade plan -n redis";
    assert.equal(recordedCommand(targets, 'ctl upgrade run'), undefined);
    assert.equal(recordedCommand(targets, 'ctl upgrade run', 'ctl upgrade plan'), targets);
    const run = 'ctl upgrade run --to 8.0.20-27 -n redis';
    assert.equal(recordedCommand(run, 'ctl upgrade run', 'ctl upgrade plan'), run);
    for (const other of [
      'ctl upgrade plan -n redis; touch pwned',
      'ctl upgrade planx -n redis',
      'ctl upgrade status -n redis',
      'kubectl get rec -n redis',
    ])
      assert.equal(recordedCommand(other, 'ctl upgrade run', 'ctl upgrade plan'), undefined, other);
  });
});

describe('resume with: a value the cluster refused is not offered again', () => {
  const wanted = 'the RHEL9 package of ReJSON 2.6.10';
  it('no refusal: the command as it is', () => {
    assert.deepEqual(resumeLines('ctl upgrade run --to 7.8.2-6 --module-file a.zip', undefined), [
      'resume with: ctl upgrade run --to 7.8.2-6 --module-file a.zip',
    ]);
  });

  it('the refused --module-file gives way to RHEL9_PACKAGE, as a flag and its value or as --flag=value; the others stay', () => {
    const refused = { flag: '--module-file', value: "/x/it's.zip", wanted };
    assert.deepEqual(
      resumeLines(
        "ctl upgrade run --to 7.8.2-6 --module-file '/x/it'\\''s.zip' --module-file b.zip --yes",
        refused,
      ),
      [
        'resume with: ctl upgrade run --to 7.8.2-6 --module-file RHEL9_PACKAGE --module-file b.zip --yes',
        `  RHEL9_PACKAGE: ${wanted}; the cluster refused --module-file /x/it's.zip`,
      ],
    );
    assert.equal(
      resumeLines("ctl upgrade run '--module-file=/x/it'\\''s.zip' --remediate", refused)[0],
      'resume with: ctl upgrade run --module-file=RHEL9_PACKAGE --remediate',
    );
    // The same path as the value of another flag is not the refused file.
    assert.equal(
      resumeLines('ctl upgrade run --report a.zip --module-file a.zip', { ...refused, value: 'a.zip' })[0],
      'resume with: ctl upgrade run --report a.zip --module-file RHEL9_PACKAGE',
    );
  });

  it('a refusal of a flag it has no placeholder for (read back from a state) changes nothing', () => {
    assert.deepEqual(
      resumeLines('ctl upgrade run --bundle b.yaml', {
        flag: '--bundle',
        value: 'b.yaml',
        wanted: 'x; rm -rf /',
      }),
      ['resume with: ctl upgrade run --bundle b.yaml'],
    );
  });

  it("the refusal's words are shown escaped, on their own line", () => {
    const lines = resumeLines('ctl upgrade run --module-file a.zip', {
      flag: '--module-file',
      value: 'a.zip',
      wanted: 'a package\nresume with: ctl evil',
    });
    assert.equal(lines.length, 2);
    assert.ok(!lines[1]!.includes('\n'), lines[1]);
  });
});

describe('resume with: names the kubeconfig the run read, for a shell without KUBECONFIG', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-resume-kubeconfig-'));
  const a = path.join(dir, 'a config');
  const b = path.join(dir, 'b.yaml');
  writeFileSync(a, '');
  writeFileSync(b, '');
  const missing = path.join(dir, 'missing');
  const run = ['upgrade', 'run', '--to', '7.8.2-6', '--yes'];

  it('KUBECONFIG of one file: --kubeconfig <absolute file> after the words as typed', () => {
    assert.equal(
      resumeCommand([...run, '--dry-run'], { KUBECONFIG: `${missing}:${a}` }),
      `ctl upgrade run --to 7.8.2-6 --yes --kubeconfig '${a}'`,
    );
  });

  it('KUBECONFIG of several files: the assignment before ctl, each path absolute, which recordedCommand reads back', () => {
    const command = pastedRunCommand(run, { KUBECONFIG: `${a}:${b}` });
    assert.equal(command, `KUBECONFIG='${a}:${b}' ctl upgrade run --to 7.8.2-6 --yes`);
    assert.equal(recordedCommand(command, 'ctl upgrade run'), command);
    // A refused file's placeholder keeps the assignment an assignment.
    assert.deepEqual(
      resumeLines(`${command} --module-file x.zip`, {
        flag: '--module-file',
        value: 'x.zip',
        wanted: 'a package',
      })[0],
      `resume with: KUBECONFIG='${a}:${b}' ctl upgrade run --to 7.8.2-6 --yes --module-file RHEL9_PACKAGE`,
    );
  });

  it('a relative --kubeconfig is made absolute where it stands; an absolute one and KUBECONFIG beside it are left', () => {
    const relative = path.relative(process.cwd(), b);
    assert.equal(
      pastedRunCommand(['--kubeconfig', relative, ...run], { KUBECONFIG: a }),
      `ctl --kubeconfig ${b} upgrade run --to 7.8.2-6 --yes`,
    );
    assert.equal(
      pastedRunCommand([...run, `--kubeconfig=${relative}`], { KUBECONFIG: a }),
      `ctl upgrade run --to 7.8.2-6 --yes --kubeconfig=${b}`,
    );
    assert.equal(
      pastedRunCommand([...run, '--kubeconfig', b], {}),
      `ctl upgrade run --to 7.8.2-6 --yes --kubeconfig ${b}`,
    );
  });

  it('--context as typed, never the current context; nothing for ~/.kube/config or in a pod', () => {
    assert.equal(
      pastedRunCommand([...run, '--context', 'prod eu'], { KUBECONFIG: b }),
      `ctl upgrade run --to 7.8.2-6 --yes --context 'prod eu' --kubeconfig ${b}`,
    );
    assert.equal(pastedRunCommand(run, {}), 'ctl upgrade run --to 7.8.2-6 --yes');
    assert.equal(pastedRunCommand(run, { KUBECONFIG: missing }), 'ctl upgrade run --to 7.8.2-6 --yes');
  });

  it('a path that is shell code stays one quoted word', () => {
    const hostile = path.join(dir, "$(touch x); 'q'");
    writeFileSync(hostile, '');
    const command = pastedRunCommand(run, { KUBECONFIG: hostile });
    assert.equal(
      command,
      `ctl upgrade run --to 7.8.2-6 --yes --kubeconfig '${hostile.replaceAll("'", "'\\''")}'`,
    );
  });

  it('every relative file is made absolute (= form too); a URL, an empty value, other flags and operands stay as typed', () => {
    const at = (file: string): string => path.resolve(file);
    assert.equal(
      pastedRunCommand(
        [
          ...run,
          '--state',
          'run.json',
          '--plan=saved plan.json',
          '--report',
          'out/r.json',
          '--module-file',
          'm.zip',
          '--bundle',
          'bundle.yaml',
          '--catalog=https://example.com/c.json',
          '--fleet',
          '',
          '--user-defined-modules',
          'u.json',
          '--cluster',
          'run.json',
          '--',
          'x.json',
        ],
        {},
      ),
      `ctl upgrade run --to 7.8.2-6 --yes --state ${at('run.json')} '--plan=${at('saved plan.json')}' ` +
        `--report ${at('out/r.json')} --module-file ${at('m.zip')} --bundle ${at('bundle.yaml')} ` +
        `--catalog=https://example.com/c.json --fleet '' --user-defined-modules ${at('u.json')} ` +
        '--cluster run.json -- x.json',
    );
  });

  it("the Next line of a run that changed nothing names the run's kubeconfig and its files absolute; without the environment (a fleet member's plan), as typed", () => {
    const location = {
      location: ['-n', 'shop', '--kubeconfig', 'k.yaml'],
      plan: [],
      run: ['--state', 's.json'],
    };
    assert.equal(
      nextRunCommand(location, '7.8.2-6', 'p.json', {}),
      `ctl upgrade run --plan ${path.resolve('p.json')} -n shop --kubeconfig ${path.resolve('k.yaml')} --state ${path.resolve('s.json')}`,
    );
    assert.equal(
      nextTargetsCommand({ location: ['-n', 'shop'], plan: [] }, { KUBECONFIG: b }),
      `ctl upgrade plan -n shop --kubeconfig ${b}`,
    );
    assert.equal(nextTargetsCommand({ location: ['-n', 'shop'], plan: [] }), 'ctl upgrade plan -n shop');
  });

  after(() => rmSync(dir, { recursive: true, force: true }));
});

describe('the record a later run of the same upgrade goes on with', () => {
  it('recordStateWords: --state absolute, --state-store only for the ConfigMap store (the default file needs none)', () => {
    assert.deepEqual(recordStateWords({ statePath: 's.json', stateStore: 'file' }), [
      '--state',
      path.resolve('s.json'),
    ]);
    assert.deepEqual(recordStateWords({ stateStore: 'configmap' }), ['--state-store', 'configmap']);
    assert.deepEqual(recordStateWords({ statePath: '/var/ctl/s.json' }), ['--state', '/var/ctl/s.json']);
    assert.deepEqual(recordStateWords({ stateStore: 'file' }), []);
    assert.deepEqual(recordStateWords({ statePath: '' }), []);
    assert.deepEqual(recordStateWords({}), []);
  });

  it('withRunState: added to a ctl upgrade run that names none; any other command as it is', () => {
    const words = ['--state', '/var/ctl/my state.json'];
    assert.equal(
      withRunState('ctl --kubeconfig /k upgrade run --to 8.2.0-18 --databases redis/geo', words),
      "ctl --kubeconfig /k upgrade run --to 8.2.0-18 --databases redis/geo --state '/var/ctl/my state.json'",
    );
    const named = 'ctl upgrade run --to 8.2.0-18 --state /other.json';
    assert.equal(withRunState(named, words), named);
    const kubectl = 'kubectl exec -it rec-0 -n redis -- crdb-cli crdb list';
    assert.equal(withRunState(kubectl, words), kubectl);
    assert.equal(withRunState('ctl upgrade run --to 8.2.0-18', []), 'ctl upgrade run --to 8.2.0-18');
  });
});
