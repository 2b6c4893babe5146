import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Io } from '../../../src/io/io.js';

/**
 * A person at a terminal who saves a plan (`ctl upgrade plan --to VERSION > plan.txt`) gets
 * plain text in the file: colour on stdout needs stdout to be a terminal too, as on stderr it
 * needs stderr to be one. FORCE_COLOR still forces it, NO_COLOR and --no-color still remove it.
 */
function terminalIo(stdoutIsTTY: boolean, env: NodeJS.ProcessEnv = {}, color?: boolean) {
  let out = '';
  let err = '';
  const io = new Io({
    stdin: { isTTY: true },
    env,
    ...(color === undefined ? {} : { color }),
    stdout: {
      isTTY: stdoutIsTTY,
      write: (chunk: string) => {
        out += chunk;
      },
    },
    stderr: {
      isTTY: true,
      write: (chunk: string) => {
        err += chunk;
      },
    },
  });
  io.data(`${io.color.green(io.color.bold('Ready to run.'))} Next: ctl upgrade run --to 8.2.0-18`);
  io.info(io.color.bold('Upgrade plan for rec'));
  return { stdout: out, stderr: err };
}

const ESCAPE = /\u001b\[/;

describe('colour on stdout', () => {
  it('stdout redirected to a file while stderr is a terminal: plain text on stdout, colour on stderr', () => {
    const { stdout, stderr } = terminalIo(false);
    assert.equal(stdout, 'Ready to run. Next: ctl upgrade run --to 8.2.0-18\n');
    assert.match(stderr, ESCAPE);
  });

  it('both terminals: colour on both', () => {
    const { stdout, stderr } = terminalIo(true);
    assert.match(stdout, ESCAPE);
    assert.match(stdout, /Ready to run\./);
    assert.match(stderr, ESCAPE);
  });

  it('FORCE_COLOR colours a redirected stdout too', () => {
    assert.match(terminalIo(false, { FORCE_COLOR: '1' }).stdout, ESCAPE);
    assert.doesNotMatch(terminalIo(false, { FORCE_COLOR: '0' }).stdout, ESCAPE);
  });

  it('NO_COLOR and --no-color leave both plain, terminal or not', () => {
    for (const { stdout, stderr } of [terminalIo(true, { NO_COLOR: '1' }), terminalIo(true, {}, false)]) {
      assert.doesNotMatch(stdout, ESCAPE);
      assert.doesNotMatch(stderr, ESCAPE);
    }
  });
});
