/**
 * A file of the user's that is not YAML (--user-defined-modules, --fleet, --catalog), through the
 * built ctl: the error names the file, the line and column, and what is wrong, and quotes none
 * of its lines, which may hold a secret (here a password in a URL, a token). Each is refused
 * (exit 2) before any cluster is read, so no cluster is needed.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCtl } from '../helpers/run-ctl.js';
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
    const result = await runCtl(['upgrade', 'plan', '--to', TARGET, '--user-defined-modules', modules], {
      env,
    });
    assertExit(result, 2, '--user-defined-modules of a file that is not YAML');
    assert.match(
      result.stderr,
      new RegExp(
        `--user-defined-modules ${modules.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: neither JSON nor YAML \\(line \\d+, column \\d+: missing closing "quote\\)`,
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
    const result = await runCtl(['upgrade', 'plan', '--to', TARGET, '--user-defined-modules', modules], {
      env,
    });
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
    const result = await runCtl(['upgrade', 'run', '--to', TARGET, '--yes', '--fleet', fleet], { env });
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
    const result = await runCtl(['upgrade', 'plan', '--to', TARGET, '--catalog', catalog], { env });
    assertExit(result, 2, '--catalog of a file that is not YAML');
    assert.match(
      result.stderr,
      /--catalog .*catalog\.yaml: neither JSON nor YAML \(line 3, column 1: map keys must be unique\)/,
    );
    assert.doesNotMatch(result.stdout + result.stderr, new RegExp(SECRET));
    assert.doesNotMatch(result.stderr, /example\.com/);
  });
});
