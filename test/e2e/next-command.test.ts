import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import {
  assertExit,
  assertNoChanges,
  getPath,
  startUpgradeSim,
  TARGET,
  type UpgradeSim,
} from './upgrade-support.js';

/**
 * Issue 30, "the next command is the command": on a scenario written here (not a built-in one),
 * the "Next:" line of a plan made with -n, --cluster, --databases and --ignore-check, run as
 * printed, does exactly that plan; and wrong input gets a short answer naming what exists.
 */

// Operator 7.2.4-12 in namespace shop: --max-hops 1 makes operator-min-version fail, which the
// plan ignores knowingly (the simulated operator takes the direct upgrade).
const SCENARIO = `name: shop-east
description: "issue 30: a cluster outside the default names, one failing check to ignore"
namespace: shop
operator:
  version: 7.2.4-12
cluster:
  name: rec-east
  versionTag: 7.2.4-92
  apiVersion: 7.2.4-92
  users:
    - { username: admin@example.com, password: change-me, role: admin }
databases:
  - { name: orders, namespace: shop, version: "7.2" }
  - { name: cache, namespace: shop, version: "7.2" }
`;

/** The words of a command ctl printed, as a POSIX shell splits them (ctl quotes with '...'). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (const match of line.matchAll(re))
    words.push(match[1] !== undefined ? match[1].replaceAll(`'\\''`, "'") : (match[2] ?? ''));
  return words;
}

function nextLine(stdout: string): string {
  const match = /Next: (ctl [^\n]*)/.exec(stdout);
  assert.ok(match?.[1], `no Next: line in\n${stdout}`);
  return match[1].replace(/ \(runs the \d+ hops\)$/, '');
}

describe('the Next line runs the plan it follows (e2e)', () => {
  let sim: UpgradeSim;
  let dir: string;
  before(async () => {
    dir = tempDir('ctl-next-');
    const file = path.join(dir, 'shop-east.yaml');
    writeFileSync(file, SCENARIO);
    sim = await startUpgradeSim(file);
  });
  after(async () => sim?.close());

  it('-n nope: a few lines naming the cluster that exists, exit 2, no ignore-check advice', async () => {
    const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-n', 'nope']);
    assertExit(result, 2, 'plan -n nope');
    assert.equal(result.stdout, '', 'no plan of skipped steps');
    assert.match(result.stderr, /No resources found in nope namespace/);
    assert.match(result.stderr, /found: shop\/rec-east/);
    assert.match(result.stderr, /-n shop --cluster rec-east/);
    assert.doesNotMatch(result.stderr, /ignore-check/);
    assert.ok(result.stderr.trim().split('\n').length <= 4, `short:\n${result.stderr}`);
    const run = await sim.ctl([
      'upgrade',
      'run',
      '--to',
      TARGET,
      '-n',
      'shop',
      '--cluster',
      'rec-west',
      '--yes',
    ]);
    assertExit(run, 2, 'run --cluster rec-west');
    assert.match(run.stderr, /"rec-west" not found in namespace shop/);
    assert.match(run.stderr, /found: shop\/rec-east/);
    assertNoChanges(sim, 0, 'plan and run of a cluster that does not exist');
  });

  it('--out: the Next line reads the saved plan, with the cluster location', async () => {
    const out = path.join(dir, 'plan.json');
    const planned = await sim.ctl([
      'upgrade',
      'plan',
      '--to',
      TARGET,
      '-n',
      'shop',
      '--cluster',
      'rec-east',
      '--databases',
      'none',
      '--out',
      out,
    ]);
    assertExit(planned, 0, 'plan --out');
    const words = shellWords(nextLine(planned.stdout));
    assert.deepEqual(words.slice(0, 5), ['ctl', 'upgrade', 'run', '--plan', out]);
    assert.ok(!words.includes('--databases'), 'the saved plan fixes the selection');
    assert.ok(words.includes('-n') && words.includes('--cluster'), 'the location is repeated');
    assert.match(
      planned.stderr,
      new RegExp(
        `run it with: ctl upgrade run --plan ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} -n shop --cluster rec-east`,
      ),
    );
  });
  it('--kubeconfig, --out and --bundle given relative: the Next and plan saved lines name them absolute, a URL as given', async () => {
    // ctl runs in the sandbox: each file named from there, as a person types it in that folder.
    const cwd = sim.sandbox.dir;
    const kubeconfig = path.relative(cwd, sim.env.KUBECONFIG ?? '');
    // The release's bundle and its admission webhook, as the simulator serves them, in a folder.
    const served = (sim.env.CTL_BUNDLE ?? '').replace('{version}', TARGET);
    const folder = path.join(dir, 'bundle-files');
    mkdirSync(path.join(folder, 'admission'), { recursive: true });
    for (const [from, to] of [
      [served, 'bundle.yaml'],
      [served.replace(/bundle\.yaml$/, 'admission/webhook.yaml'), 'admission/webhook.yaml'],
    ] as const) {
      const response = await fetch(from);
      assert.equal(response.status, 200, from);
      writeFileSync(path.join(folder, to), await response.text());
    }
    const bundle = path.relative(cwd, path.join(folder, 'bundle.yaml'));
    const out = 'relative-plan.json';
    const where = [
      '-n',
      'shop',
      '--cluster',
      'rec-east',
      '--max-hops',
      '1',
      '--ignore-check',
      'operator-min-version',
    ];
    const planned = await sim.ctl(
      [
        '--kubeconfig',
        kubeconfig,
        'upgrade',
        'plan',
        '--to',
        TARGET,
        ...where,
        '--bundle',
        bundle,
        '--out',
        out,
      ],
      { env: { KUBECONFIG: '' } },
    );
    assertExit(planned, 0, 'plan with relative files');
    const next = shellWords(nextLine(planned.stdout));
    const valueOf = (words: string[], flag: string) => words[words.indexOf(flag) + 1];
    assert.equal(valueOf(next, '--plan'), path.join(cwd, out), nextLine(planned.stdout));
    assert.equal(valueOf(next, '--kubeconfig'), path.resolve(cwd, kubeconfig), nextLine(planned.stdout));
    const saved = /plan saved to (\S+); run it with: (ctl [^\n]*)/.exec(planned.stderr);
    assert.ok(saved, planned.stderr);
    assert.equal(saved[1], path.join(cwd, out));
    assert.deepEqual(shellWords(saved[2] ?? ''), next, 'the same command on both lines');
    // Without --out: the run of the same target and options, the bundle file absolute.
    const again = await sim.ctl(
      ['--kubeconfig', kubeconfig, 'upgrade', 'plan', '--to', TARGET, ...where, '--bundle', bundle],
      { env: { KUBECONFIG: '' } },
    );
    assertExit(again, 0, 'plan with a relative --bundle');
    const run = shellWords(nextLine(again.stdout));
    assert.equal(valueOf(run, '--bundle'), path.join(folder, 'bundle.yaml'), nextLine(again.stdout));
    assert.equal(valueOf(run, '--kubeconfig'), path.resolve(cwd, kubeconfig));
    // A bundle URL stays as typed ({version} and all).
    const url = sim.env.CTL_BUNDLE ?? '';
    assert.match(url, /^http:\/\/.*\{version\}/);
    const byUrl = await sim.ctl(['upgrade', 'plan', '--to', TARGET, ...where, '--bundle', url]);
    assertExit(byUrl, 0, 'plan with a --bundle URL');
    assert.equal(valueOf(shellWords(nextLine(byUrl.stdout)), '--bundle'), url);
    // The target list's Next line too: the kubeconfig absolute.
    const list = await sim.ctl(['--kubeconfig', kubeconfig, 'upgrade', 'plan', '-n', 'shop'], {
      env: { KUBECONFIG: '' },
    });
    assertExit(list, 0, 'the target list');
    const listNext = /^Next: (ctl .*)$/m.exec(list.stdout)?.[1] ?? '';
    assert.equal(valueOf(shellWords(listNext), '--kubeconfig'), path.resolve(cwd, kubeconfig), list.stdout);
  });

  it('--to a release whose bundle is missing: target-available fails the plan (exit 3), nothing changes', async () => {
    const result = await sim.ctl([
      'upgrade',
      'plan',
      '--to',
      '9.9.9-9',
      '--cluster-version',
      '9.9.9-1',
      '-n',
      'shop',
    ]);
    assertExit(result, 3, 'plan --to 9.9.9-9');
    assert.match(result.stdout, /FAIL target-available +.*the bundle of 9\.9\.9-9 is not there: .*HTTP 404/);
    assert.match(result.stderr, /target-available: .*9\.9\.9-9 is not there/);
    const listed = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-n', 'shop', '--max-hops', '2']);
    assert.match(listed.stdout, /ok +target-available +.*the bundle of [0-9.-]+ is there/);
    assertNoChanges(sim, 0, 'the plans');
  });

  it('plan with -n, --cluster, --databases, --ignore-check: its Next line, as printed, runs exactly that plan', async () => {
    const flags = ['-n', 'shop', '--cluster', 'rec-east', '--databases', 'cache', '--max-hops', '1'];
    const blocked = await sim.ctl(['upgrade', 'plan', '--to', TARGET, ...flags]);
    assertExit(blocked, 3, 'plan without --ignore-check');
    assert.match(blocked.stderr, /operator-min-version/);

    const planned = await sim.ctl([
      'upgrade',
      'plan',
      '--to',
      TARGET,
      ...flags,
      '--ignore-check',
      'operator-min-version',
    ]);
    assertExit(planned, 0, 'plan');
    const next = nextLine(planned.stdout);
    const words = shellWords(next);
    assert.deepEqual(words.slice(0, 5), ['ctl', 'upgrade', 'run', '--to', TARGET], next);
    for (const flag of ['-n', '--cluster', '--databases', '--ignore-check', '--max-hops'])
      assert.ok(words.includes(flag), `${flag} kept in: ${next}`);
    const planJson = await sim.ctl([
      'upgrade',
      'plan',
      '--to',
      TARGET,
      ...flags,
      '--ignore-check',
      'operator-min-version',
      '-o',
      'json',
    ]);
    const fingerprint = (JSON.parse(planJson.stdout) as { fingerprint: string }).fingerprint;

    // As a user pastes it: --yes only because the test has no terminal to confirm on.
    const report = path.join(dir, 'report.json');
    const run = await sim.ctl([...words.slice(1), '--yes', '--report', report]);
    assertExit(run, 0, next);
    const record = JSON.parse(readFileSync(report, 'utf8')) as { plan: { fingerprint: string } };
    assert.equal(record.plan.fingerprint, fingerprint, 'the run planned exactly what the plan showed');
    const cache = await sim.get(['redb', 'cache', '-n', 'shop']);
    const orders = await sim.get(['redb', 'orders', '-n', 'shop']);
    assert.equal(getPath(cache, ['status', 'version']), '7.4', 'the selected database moved');
    assert.equal(getPath(orders, ['status', 'version']), '7.2', 'the other one did not');
  });
});
