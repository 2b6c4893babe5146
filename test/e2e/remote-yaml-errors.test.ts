/**
 * YAML from outside ctl that is hostile or broken, through the built ctl against the simulated
 * cluster: a release bundle and a helm repository's index.yaml served over HTTP (a server of
 * this test, the address ctl is given with --bundle and --helm-repo), a kubeconfig and a
 * scenario file. Each holds a secret exactly where the YAML goes wrong: inside a bad escape, as
 * an unknown tag, as an alias name, on the line before a bad indent. ctl must say which source,
 * where (line and column) and what is wrong in its own words, and what to do, and print none of
 * the secret: not in the error, not in a -v debug line, not in a warning of the parser
 * (process.emitWarning quotes the line).
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import { tempDir } from '../helpers/temp.js';
import { assertExit, SharedUpgradeSim, TARGET } from './upgrade-support.js';

/** Each document holds one of these where it goes wrong; none may be printed. */
const SECRETS = {
  escape: 'Zq7Secrt', // 8 characters: `\U` reads 8, and the parser's message quotes them
  tag: 'secret-abc123',
  alias: 'password123',
  indent: 'Indent-Secret-3390',
} as const;

function assertNoSecret(printed: string): void {
  for (const secret of Object.values(SECRETS))
    assert.ok(!printed.includes(secret), `${secret} printed:\n${printed}`);
  assert.doesNotMatch(printed, /YAMLWarning|Warning: /, 'no warning of the parser');
}

/** A manifest stream whose second document is broken in the way `kind` says. */
const BUNDLES: Record<string, string> = {
  escape: `stringData: {password: "\\U${SECRETS.escape}"}`,
  alias: `stringData: {password: *${SECRETS.alias}}`,
  indent: `stringData:\n  password: ${SECRETS.indent}\n    token: x`,
};

function bundle(kind: string): string {
  return [
    'apiVersion: v1',
    'kind: ServiceAccount',
    'metadata: {name: redis-enterprise-operator}',
    '---',
    'apiVersion: v1',
    'kind: Secret',
    'metadata: {name: leaked}',
    BUNDLES[kind],
    '',
  ].join('\n');
}

/** A chart version newer than ctl's catalog, which the plan lists as available when it reads the index. */
const NEWER_CHART = '8.2.0-25';

/** A helm repository index whose chart entry is broken in the way `kind` says (published: not broken). */
const INDEXES: Record<string, string> = {
  // An unknown tag is no error: the index is read, and no warning may quote its line.
  tag: `  redis-enterprise-operator:\n    - {name: redis-enterprise-operator, version: !${SECRETS.tag} 8.2.0-25}`,
  alias: `  redis-enterprise-operator:\n    - {name: redis-enterprise-operator, version: *${SECRETS.alias}}`,
  escape: `  redis-enterprise-operator:\n    - {name: redis-enterprise-operator, version: "\\U${SECRETS.escape}"}`,
  // No fault: descriptions quoted as the published bundle.yaml quotes its CRD's, the second line
  // no deeper than the key (Go's parser, helm's, reads it; the `yaml` package refused it).
  published: [
    '  redis-enterprise-operator:',
    ...[TARGET, NEWER_CHART].flatMap((version) => [
      '    - name: redis-enterprise-operator',
      `      version: ${version}`,
      "      description: 'Redis Enterprise operator for Kubernetes, its description quoted",
      "      as the published bundle.yaml quotes'",
      `      urls: [redis-enterprise-operator-${version}.tgz]`,
    ]),
  ].join('\n'),
};

function helmIndex(kind: string): string {
  return ['apiVersion: v1', 'entries:', INDEXES[kind], ''].join('\n');
}

describe('YAML from outside ctl: where and what, never the text (e2e)', { timeout: 600_000 }, () => {
  let server: Server;
  let base: string;

  before(async () => {
    server = createServer((req, res) => {
      const [, what, kind] = /^\/(bundle|helm)-(\w+)\//.exec(req.url ?? '') ?? [];
      const text =
        what === 'bundle' ? bundle(kind ?? '') : what === 'helm' ? helmIndex(kind ?? '') : undefined;
      if (text === undefined || (what === 'helm' && !req.url?.endsWith('/index.yaml'))) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(req.method === 'HEAD' ? undefined : text);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  describe('a release bundle from the network', () => {
    const happyPath = new SharedUpgradeSim('happy-path');
    after(() => happyPath.close());

    const expected: Record<string, RegExp> = {
      escape: /line 8, column \d+: expected hexadecimal character/,
      alias: /line 8, column \d+: an alias whose anchor is not set before it/,
      indent: /line 10, column \d+: [a-z]/,
    };
    for (const kind of Object.keys(BUNDLES)) {
      it(`${kind}: the run names the bundle, the place and the fault, and stops`, async () => {
        await happyPath.use(`run --dry-run --bundle <${kind}>`, async (sim) => {
          const location = `${base}/bundle-${kind}/{version}/bundle.yaml`;
          const result = await sim.ctl([
            'upgrade',
            'run',
            '--to',
            TARGET,
            '--dry-run',
            '--bundle',
            location,
            '-v',
          ]);
          const printed = result.stdout + result.stderr;
          assertNoSecret(printed);
          assert.notEqual(result.code, 0, printed);
          const served = `${base}/bundle-${kind}/${TARGET}/bundle.yaml`.replace(
            /[.*+?^${}()|[\]\\]/g,
            '\\$&',
          );
          assert.match(
            result.stderr,
            new RegExp(`${served} is not valid YAML: ${expected[kind]?.source}`),
            printed,
          );
          assert.match(result.stderr, /Check that --bundle points at a Kubernetes manifest file/, printed);
        });
      });
    }
  });

  describe("a helm repository's index.yaml from the network", () => {
    const helmInstalled = new SharedUpgradeSim('helm-installed');
    after(() => helmInstalled.close());

    it('an unknown tag: read without a warning that quotes the line', async () => {
      await helmInstalled.use('plan --helm-repo <tag>', async (sim) => {
        const repo = `${base}/helm-tag/`;
        const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--helm-repo', repo, '-v']);
        assertNoSecret(result.stdout + result.stderr);
        // The tagged version is read as its text (8.2.0-25): the index has no chart of the target.
        assert.match(result.stdout + result.stderr, /index\.yaml has no redis-enterprise-operator/);
      });
    });

    it("the published quoting: target-available finds the target's chart, and the newer release is listed", async () => {
      await helmInstalled.use('plan --helm-repo <published>', async (sim) => {
        const repo = `${base}/helm-published/`;
        const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--helm-repo', repo, '-o', 'json']);
        const plan = JSON.parse(result.stdout) as {
          checks: { id: string; status: string; message: string }[];
          catalog: { available: { operator: string; foundIn: string }[] };
        };
        const check = plan.checks.find((c) => c.id === 'target-available');
        assert.equal(check?.status, 'pass', `${JSON.stringify(check)}\n${result.stderr}`);
        assert.deepEqual(
          plan.catalog.available.map((release) => release.operator),
          [NEWER_CHART],
          result.stderr,
        );
        assert.doesNotMatch(result.stdout + result.stderr, /not a helm repository index|not YAML/);
      });
    });

    for (const kind of ['alias', 'escape']) {
      it(`${kind}: target-available and the newer-release lookup name the index, the place and the fault`, async () => {
        await helmInstalled.use(`plan --helm-repo <${kind}>`, async (sim) => {
          const repo = `${base}/helm-${kind}`;
          const index = `${repo}/index.yaml`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          const what =
            kind === 'alias'
              ? 'line 4, column \\d+: an alias whose anchor is not set before it'
              : 'line 4, column \\d+: expected hexadecimal character';
          const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--helm-repo', repo, '-v']);
          const printed = result.stdout + result.stderr;
          assertNoSecret(printed);
          // The check cannot tell (a warning), and says what to look at.
          assert.match(
            printed,
            new RegExp(
              `cannot tell whether chart redis-enterprise-operator \\S+ exists: ${index} is not a helm repository index \\(not YAML: ${what}\\)\n\\s+fix: Check that --helm-repo \\(or CTL_HELM_REPO\\) is the chart's repository`,
            ),
          );
          // -v: the lookup of releases newer than the catalog says the same in its debug line.
          assert.match(
            result.stderr,
            new RegExp(`newer releases: ${index} is not a helm repository index \\(not YAML: ${what}\\)`),
          );

          const json = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--helm-repo', repo, '-o', 'json']);
          assertNoSecret(json.stdout + json.stderr);
          assert.match(json.stdout, /is not a helm repository index/);
        });
      });
    }
  });

  it('a kubeconfig with an undeclared tag handle, an alias bomb, an alias, a bad indent and two documents: the file, the place, the fault', async () => {
    const dir = tempDir('ctl-remote-yaml-kubeconfig-');
    const head = ['apiVersion: v1', 'kind: Config', 'users:', '- name: u', '  user:'];
    const cases: [string, string[], string][] = [
      // A tag alone is read as its value, as kubectl reads it; a tag handle no %TAG declares is
      // refused, and js-yaml's reason would quote it.
      [
        'tag',
        [...head, `    token: !${SECRETS.tag}!x y`],
        'line 6, column \\d+: a tag handle no %TAG directive declares',
      ],
      [
        'bomb',
        [
          `a0: &a0 [${SECRETS.alias}, x, x, x, x, x, x, x, x, x]`,
          ...[1, 2, 3, 4, 5].map(
            (i) =>
              `a${i}: &a${i} [${Array(10)
                .fill(`*a${i - 1}`)
                .join(', ')}]`,
          ),
          ...head,
          '    token: x',
        ],
        'too many aliases',
      ],
      [
        'alias',
        [...head, `    token: *${SECRETS.alias}`],
        'line 6, column \\d+: an alias whose anchor is not set before it',
      ],
      [
        'indent',
        [...head, `    password: ${SECRETS.indent}`, '      misplaced: indentation'],
        'line 7, column 16: bad indentation of a mapping entry',
      ],
      // A stray `---`: the line where the second document begins.
      [
        'documents',
        [...head, '    token: x', '--- # two', `token: ${SECRETS.indent}`],
        'line 7, column 1: several documents where one is expected',
      ],
    ];
    for (const [kind, lines, what] of cases) {
      const file = path.join(dir, `${kind}.kubeconfig`);
      writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
      const result = await runCtlInProcess(['upgrade', 'plan', '--to', TARGET, '--kubeconfig', file, '-vv']);
      const printed = result.stdout + result.stderr;
      assertNoSecret(printed);
      assertExit(result, 2, `plan with the ${kind} kubeconfig`);
      assert.match(result.stderr, new RegExp(`cannot read the kubeconfig ${file}: ${what}\\n`), printed);
      assert.match(result.stderr, new RegExp(`kubectl config view --kubeconfig ${file}`), printed);
    }
  });

  it('a scenario file (ctl sim up --scenario): the file, the place, the fault, never the text', async () => {
    const dir = tempDir('ctl-remote-yaml-scenario-');
    const head = [
      'name: mine',
      'description: a copy of my cluster',
      'operator: {version: 7.4.6-2}',
      'cluster:',
      '  versionTag: 7.4.6-22',
      '  users:',
      '    - username: admin@example.com',
    ];
    const cases: [string, string[], RegExp][] = [
      [
        'escape',
        [...head, `      password: "\\U${SECRETS.escape}"`],
        /: line 8, column 18: YAML syntax error: BAD_DQ_ESCAPE\n/,
      ],
      [
        'indent',
        [...head, `      password: ${SECRETS.indent}`, '        role: admin'],
        /: line 8, column \d+: YAML syntax error: [A-Z_]+\n/,
      ],
      [
        'alias',
        [...head, `      password: *${SECRETS.alias}`],
        /: cannot read the scenario: an alias whose anchor is not set before it\n/,
      ],
      // An unknown tag is no YAML error; the schema refuses what follows it, and nothing prints it.
      ['tag', [...head, `      password: !${SECRETS.tag} [x]`], /: cluster\.users\[0\]\.password: /],
    ];
    for (const [kind, lines, expected] of cases) {
      const file = path.join(dir, `${kind}.yaml`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      const result = await runCtlInProcess(['sim', 'up', '--scenario', file, '--dir', path.join(dir, 'sim')]);
      const printed = result.stdout + result.stderr;
      assertNoSecret(printed);
      assertExit(result, 2, `sim up with the ${kind} scenario`);
      assert.ok(result.stderr.includes(file), printed);
      assert.match(result.stderr, expected, printed);
      assert.match(result.stderr, /then run again/, printed);
    }
  });
});
