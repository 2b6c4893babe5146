/**
 * A file of the user's that is not YAML (--user-defined-modules, --fleet, --catalog), through the
 * built ctl: the error names the file, the line and column, and what is wrong, and quotes none
 * of its lines, which may hold a secret (here a password in a URL, a token). Each is refused
 * (exit 2) before any cluster is read, so no cluster is needed.
 */

import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import { tempDir } from '../helpers/temp.js';
import { assertExit } from './upgrade-support.js';

const TARGET = '8.2.0-18';
/** In every file, on the line where the YAML goes wrong. */
const SECRET = 'Sup3r-Secret-Pa55';

function file(name: string, text: string): string {
  const at = path.join(tempDir('ctl-yaml-errors-'), name);
  writeFileSync(at, text);
  return at;
}

/** Nowhere to connect: each refusal must come before any cluster is read. */
const env = { KUBECONFIG: '/nonexistent/kubeconfig' };

describe('YAML errors in the files ctl reads say where and what, never the lines (e2e)', () => {
  it('--user-defined-modules: a URL with a password and no closing quote', async () => {
    const modules = file(
      'modules.yaml',
      [
        '- name: custom',
        '  source:',
        '    https:',
        `      url: "https://ops:${SECRET}@modules.example/c.zip`,
        '',
      ].join('\n'),
    );
    const result = await runCtlInProcess(
      ['upgrade', 'plan', '--to', TARGET, '--user-defined-modules', modules],
      {
        env,
      },
    );
    assertExit(result, 2, '--user-defined-modules of a file that is not YAML');
    assert.match(
      result.stderr,
      new RegExp(
        `--user-defined-modules ${modules.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: neither JSON nor YAML \\(line \\d+, column \\d+: unexpected end of the stream within a double quoted scalar\\)`,
      ),
    );
    assert.doesNotMatch(result.stdout + result.stderr, new RegExp(SECRET));
    assert.doesNotMatch(result.stderr, /modules\.example|\^\n/, 'no line of the file, no pointer under it');
  });

  it('--user-defined-modules: an unknown tag is read without a warning quoting its line', async () => {
    const modules = file(
      'tagged.yaml',
      [
        '- name: custom',
        `  source: !vault-${SECRET}`,
        '    https:',
        '      url: https://modules.example/c.zip',
        '',
      ].join('\n'),
    );
    const result = await runCtlInProcess(
      ['upgrade', 'plan', '--to', TARGET, '--user-defined-modules', modules],
      {
        env,
      },
    );
    // It goes on to the kubeconfig, which is not there.
    assertExit(result, 2, '--user-defined-modules with an unknown tag');
    assert.match(result.stderr, /KUBECONFIG=\/nonexistent\/kubeconfig: no such file/);
    assert.doesNotMatch(result.stdout + result.stderr, new RegExp(`${SECRET}|YAMLWarning`));
  });

  it('--fleet: a token on a line indented wrongly', async () => {
    const fleet = file(
      'fleet.yaml',
      ['- context: east', '  namespace: redis', ` token: ${SECRET}`, ''].join('\n'),
    );
    const result = await runCtlInProcess(['upgrade', 'run', '--to', TARGET, '--yes', '--fleet', fleet], {
      env,
    });
    assertExit(result, 2, '--fleet of a file that is not YAML');
    assert.match(result.stderr, /the fleet file .*fleet\.yaml is not YAML: line 3, column \d+: \S/);
    assert.doesNotMatch(result.stdout + result.stderr, new RegExp(SECRET));
    assert.doesNotMatch(result.stderr, /token:|namespace: redis/);
  });

  it('--catalog: a key given twice, the second with credentials in a URL', async () => {
    const catalog = file(
      'catalog.yaml',
      ['releases: []', 'notes: https://example.com/a', `notes: https://ops:${SECRET}@example.com/b`, ''].join(
        '\n',
      ),
    );
    const result = await runCtlInProcess(['upgrade', 'plan', '--to', TARGET, '--catalog', catalog], { env });
    assertExit(result, 2, '--catalog of a file that is not YAML');
    assert.match(
      result.stderr,
      /--catalog .*catalog\.yaml: neither JSON nor YAML \(line 3, column 1: duplicated mapping key\)/,
    );
    assert.doesNotMatch(result.stdout + result.stderr, new RegExp(SECRET));
    assert.doesNotMatch(result.stderr, /example\.com/);
  });
});

/**
 * The published bundle.yaml quotes a CRD description over two lines, the second indented no
 * deeper than its key; Go's parser (kubectl's) reads it, the `yaml` package refused it ("missing
 * closing 'quote"). Every file ctl reads is read by one parser now (src/io/yaml-from-outside.ts):
 * a --fleet, --catalog or --user-defined-modules file written so is read, as kubectl would read
 * it (the helm index: test/e2e/remote-yaml-errors.test.ts).
 */
describe('files written with the quoting of the published bundle.yaml are read (e2e)', () => {
  it('--fleet: a context written over two lines is read as one name', async () => {
    const fleet = file('fleet.yaml', ["- context: 'east", "  eu'", "  namespace: 'redis'", ''].join('\n'));
    const result = await runCtlInProcess(['upgrade', 'run', '--to', TARGET, '--yes', '--fleet', fleet], {
      env,
    });
    // Read: the cluster of context "east eu" is tried, and fails on the kubeconfig, which is not there.
    assertExit(result, 2, '--fleet written with the published quoting');
    assert.match(result.stderr, /^\[east eu\] error: KUBECONFIG=\/nonexistent\/kubeconfig: no such file$/m);
    assert.doesNotMatch(result.stderr, /not YAML/);
  });

  it('--catalog: a release only the file knows is planned, its advisory summary over two lines', async () => {
    const catalog = file(
      'catalog.yaml',
      [
        'format: 1',
        'updated: "2026-11-26"',
        'releases:',
        '  - operator: 8.2.0-25',
        '    clusterTags: ["8.2.0-80.25"]',
        "    source: ['test: a release newer than the built-in catalog']",
        'advisories:',
        '  - id: published-quoting',
        "    summary: 'a summary whose second line is indented",
        "    as deep as its key, as the published bundle.yaml quotes'",
        '    introduced: 8.2.0-25',
        '    fixed: []',
        '    source: [test]',
        '',
      ].join('\n'),
    );
    const result = await runCtlInProcess(['upgrade', 'plan', '--to', '8.2.0-25', '--catalog', catalog], {
      env,
    });
    // Read: --to the catalog's release is taken (without it: "does not know this operator
    // version"), and the plan goes on to the kubeconfig, which is not there.
    assertExit(result, 2, '--catalog written with the published quoting');
    assert.match(result.stderr, /KUBECONFIG=\/nonexistent\/kubeconfig: no such file/);
    assert.doesNotMatch(result.stderr, /neither JSON nor YAML|does not know this operator version/);
  });

  it('--user-defined-modules: a URL written over two lines is read', async () => {
    const modules = file(
      'modules.yaml',
      [
        '- name: custom',
        '  source:',
        '    https:',
        "      url: 'https://modules.example/custom",
        "      module.zip'",
        '',
      ].join('\n'),
    );
    const result = await runCtlInProcess(
      ['upgrade', 'plan', '--to', TARGET, '--user-defined-modules', modules],
      {
        env,
      },
    );
    // Read and accepted: the plan goes on to the kubeconfig, which is not there.
    assertExit(result, 2, '--user-defined-modules written with the published quoting');
    assert.match(result.stderr, /KUBECONFIG=\/nonexistent\/kubeconfig: no such file/);
    assert.doesNotMatch(result.stderr, /neither JSON nor YAML|not a list of user-defined modules/);
  });
});

/**
 * Hostile YAML in the files ctl reads: an alias bomb ("billion laughs": 250 characters that are
 * 100,000 values once the aliases are followed) is refused before anything walks it; a tag that
 * names code in some parsers (js-yaml 3's `!!js/function`, PyYAML's `!!python/object/apply`) is
 * read as its plain text, as Go's parser reads a tag it does not know, so the file's own schema
 * refuses it where text does not belong, and nothing runs.
 */
describe('hostile YAML in the files ctl reads is refused (e2e)', () => {
  const bomb = [
    `a0: &a0 [${SECRET}, x, x, x, x, x, x, x, x, x]`,
    ...[1, 2, 3, 4, 5].map(
      (i) =>
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
    ),
  ];

  it('an alias bomb: --fleet, --catalog and --user-defined-modules refuse it, naming the file', async () => {
    const cases: [string, string[], string, RegExp][] = [
      [
        'fleet.yaml',
        ['run', '--yes', '--fleet'],
        `- context: east\n  bomb:\n${bomb.map((line) => `    ${line}`).join('\n')}\n`,
        /the fleet file .*fleet\.yaml is not YAML: too many aliases\n/,
      ],
      [
        'catalog.yaml',
        ['plan', '--catalog'],
        `format: 1\n${bomb.join('\n')}\n`,
        /--catalog .*catalog\.yaml: neither JSON nor YAML \(too many aliases\)\n/,
      ],
      [
        'modules.yaml',
        ['plan', '--user-defined-modules'],
        `- name: custom\n  bomb:\n${bomb.map((line) => `    ${line}`).join('\n')}\n`,
        /--user-defined-modules .*modules\.yaml: neither JSON nor YAML \(too many aliases\)\n/,
      ],
    ];
    for (const [name, [command, ...flags], text, expected] of cases) {
      const at = file(name, text);
      const result = await runCtlInProcess(['upgrade', command!, '--to', TARGET, ...flags, at], { env });
      assertExit(result, 2, `${flags.at(-1)} with an alias bomb`);
      assert.match(result.stderr, expected);
      assert.doesNotMatch(result.stdout + result.stderr, new RegExp(SECRET));
    }
  });

  it('a tag that names code: read as text, refused by the schema where text does not belong, and nothing runs', async () => {
    const dir = tempDir('ctl-yaml-hostile-tag-');
    const marker = path.join(dir, 'ran');
    const modules = path.join(dir, 'modules.yaml');
    writeFileSync(
      modules,
      [
        '- name: custom',
        '  source:',
        '    https:',
        `      url: !!js/function 'function () { require("fs").writeFileSync("${marker}", "") }'`,
        '',
      ].join('\n'),
    );
    const udm = await runCtlInProcess(
      ['upgrade', 'plan', '--to', TARGET, '--user-defined-modules', modules],
      { env },
    );
    assertExit(udm, 2, '--user-defined-modules with a !!js/function tag');
    assert.match(
      udm.stderr,
      /is not a list of user-defined modules: 0\.source\.https\.url: an https:\/\/ URL/,
    );

    const catalog = path.join(dir, 'catalog.yaml');
    writeFileSync(
      catalog,
      [
        'format: 1',
        'updated: "2026-11-26"',
        'releases:',
        `  - !!python/object/apply:os.system ["touch ${marker}"]`,
        '',
      ].join('\n'),
    );
    const plan = await runCtlInProcess(['upgrade', 'plan', '--to', TARGET, '--catalog', catalog], { env });
    assertExit(plan, 2, '--catalog with a !!python/object/apply tag');
    assert.match(
      plan.stderr,
      /--catalog .*catalog\.yaml does not follow docs\/catalog\.schema\.json: .*\/releases\/0/,
    );
    assert.equal(existsSync(marker), false, 'no tag ran anything');
  });
});
