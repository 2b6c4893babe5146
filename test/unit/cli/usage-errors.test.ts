import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { main } from '../../../src/main.js';

/** `ctl <args>` in-process: its exit code and stderr. */
async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main(args, {
    env: {},
    stdin: new PassThrough() as unknown as NodeJS.ReadStream,
    stdout: { write: () => true },
    stderr: { write: (chunk: string) => ((stderr += chunk), true) },
  });
  return { code, stderr };
}

/**
 * Commander's usage errors (unknown command or option, a missing value, a bad choice) end, as
 * kubectl's do, with the help to read next; a subcommand typed without its group (`ctl status`,
 * as `git status` or `helm status`) is named with it.
 */
describe('usage errors say what to do next', () => {
  it('a subcommand without its group: the command it is, and where the commands are listed', async () => {
    for (const [word, meant] of [
      ['status', 'ctl upgrade status'],
      ['plan', 'ctl upgrade plan'],
      ['token', 'ctl auth token'],
      ['scenarios', 'ctl sim scenarios'],
    ]) {
      const { code, stderr } = await run([word!, '-n', 'redis']);
      assert.equal(code, 2, stderr);
      assert.match(
        stderr,
        new RegExp(`^error: unknown command '${word}'\\n\\(Did you mean ${meant}\\?\\)\\n`),
      );
      assert.match(stderr, /\nhint: run 'ctl --help' for the commands and global options\.\n$/);
    }
  });

  it("a near miss keeps commander's suggestion; every usage error names the --help to read", async () => {
    const typo = await run(['upgrad']);
    assert.match(typo.stderr, /^error: unknown command 'upgrad'\n\(Did you mean upgrade\?\)\n/);
    assert.match(typo.stderr, /hint: run 'ctl --help'/);
    for (const [args, help] of [
      [['upgrade', 'plan', '--tto', '8.2.0-18'], 'ctl upgrade plan --help'],
      [['upgrade', 'run', '--to'], 'ctl upgrade run --help'],
      [['upgrade', 'plan', '--auth-form', 'x'], 'ctl upgrade plan --help'],
      [['upgrade', 'stat'], 'ctl upgrade --help'],
      [['sim', 'up', '--scenario'], 'ctl sim up --help'],
    ] as const) {
      const { code, stderr } = await run([...args]);
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
      assert.match(stderr, /^error: /, args.join(' '));
      assert.ok(stderr.endsWith(`hint: run '${help}' for its usage.\n`), `${args.join(' ')}:\n${stderr}`);
    }
  });
});
