import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { invokedBranch } from '../../../src/cli/invoked-branch.js';
import { main } from '../../../src/main.js';
import { commandTree, silentProgram } from '../../helpers/command-tree.js';

/** What commander sees of a command: its name, options (and their settings), arguments, help. */
function shape(command: Command): unknown {
  return {
    name: command.name(),
    options: command.options.map((o) => ({
      flags: o.flags,
      description: o.description,
      default: o.defaultValue as unknown,
      choices: o.argChoices,
      hidden: o.hidden,
      mandatory: o.mandatory,
    })),
    arguments: command.registeredArguments.map((a) => [a.name(), a.required, a.variadic, a.argChoices]),
    help: command.helpInformation(),
  };
}

function find(program: Command, path: string[]): Command | undefined {
  let command: Command | undefined = program;
  for (const word of path) command = command?.commands.find((c) => c.name() === word);
  return command;
}

/**
 * The tree declares only the branch the arguments name (src/cli/invoked-branch.ts): that branch
 * must be the same commands as in the whole tree, every ancestor the same, and anything the
 * rule cannot vouch for the whole tree.
 */
describe('the invoked command branch', () => {
  it('declares, for every command path, the same command and ancestors as the whole tree', async () => {
    const whole = await silentProgram();
    for (const { path } of await commandTree()) {
      const branch = await silentProgram([...path, '--context', 'x']);
      for (let depth = 0; depth <= path.length; depth += 1) {
        const words = path.slice(0, depth);
        const expected = find(whole, words);
        const got = find(branch, words);
        assert.ok(got, `ctl ${path.join(' ')}: ${words.join(' ') || 'the program'} is declared`);
        if (depth === path.length) assert.deepEqual(shape(got), shape(expected!), `ctl ${path.join(' ')}`);
        else {
          // An ancestor: the same options; its subcommands are those of the branch alone.
          assert.deepEqual(
            (shape(got) as { options: unknown }).options,
            (shape(expected!) as { options: unknown }).options,
            `ctl ${path.join(' ')}: the options of ${words.join(' ') || 'the program'}`,
          );
        }
      }
    }
  });

  it('is the whole tree for help, options first, unknown words and completion', () => {
    for (const argv of [
      [],
      ['upgrade', 'plan', '--help'],
      ['upgrade', 'plan', '-h'],
      ['help', 'upgrade'],
      ['upgrade', 'help', 'plan'],
      ['--context', 'x', 'upgrade', 'plan'],
      ['-v', 'upgrade', 'plan'],
      ['upgrad', 'plan'],
      ['completion', 'bash'],
    ]) {
      assert.equal(invokedBranch(argv), undefined, argv.join(' '));
    }
    assert.equal(invokedBranch(undefined), undefined);
  });

  it('names the group and the subcommand as given', () => {
    assert.deepEqual(invokedBranch(['upgrade', 'plan', '--to', '8.2.0-18']), {
      group: 'upgrade',
      subcommand: 'plan',
    });
    assert.deepEqual(invokedBranch(['upgrade', '--context', 'x', 'plan']), {
      group: 'upgrade',
      subcommand: undefined,
    });
    assert.deepEqual(invokedBranch(['sim', 'up']), { group: 'sim', subcommand: 'up' });
  });

  it('declares the whole upgrade group for a word that is none of its subcommands', async () => {
    const names = (program: Command) => find(program, ['upgrade'])!.commands.map((c) => c.name());
    assert.deepEqual(names(await silentProgram(['upgrade', 'pla'])), names(await silentProgram()));
    assert.deepEqual(names(await silentProgram(['upgrade', 'plan'])), ['plan']);
    assert.deepEqual(
      (await silentProgram(['upgrade', 'plan'])).commands.map((c) => c.name()),
      ['upgrade'],
    );
  });

  it("reports a usage error as the whole tree does (commander's message, suggestion, exit code)", async () => {
    const run = async (args: string[]) => {
      let stderr = '';
      const code = await main(args, {
        env: {},
        stdin: new PassThrough() as unknown as NodeJS.ReadStream,
        stdout: { write: () => true },
        stderr: { write: (chunk: string) => ((stderr += chunk), true) },
      });
      return { code, stderr };
    };
    // A global option first declares the whole tree; the same words without it, the branch.
    for (const words of [
      ['upgrade', 'plan', '--tx', '8.2.0-18'],
      ['upgrade', 'plan', '--contxt', 'x'],
      ['upgrade', 'plan', 'extra'],
      ['upgrade', 'status', '--stat', 'x'],
      ['upgrade', 'pla'],
      ['sim', 'upp'],
    ]) {
      const branch = await run(words);
      const whole = await run(['--no-color', ...words]);
      assert.equal(branch.code, 2, words.join(' '));
      assert.deepEqual(branch, whole, words.join(' '));
    }
  });
});
