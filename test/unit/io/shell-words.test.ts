/**
 * Reading a command back (a state's resume command): only ctl's own form of one command passes,
 * the words it holds are the words sh gives the program, and nothing a shell would act on besides
 * them (`;`, `$(...)`, backticks, redirections, a second line, an assignment other than
 * KUBECONFIG) passes.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { shellQuote, wordsOfQuotedCommand } from '../../../src/io/shell-words.js';

/** The words sh hands a program for `line` (printf prints each on a line of its own). */
function shWords(line: string): string[] {
  const out = execFileSync('sh', ['-c', `printf '%s\\n' ${line.replace(/^\S+/, '')}`], { encoding: 'utf8' });
  return [line.split(' ')[0] ?? '', ...out.split('\n').slice(0, -1)];
}

describe('wordsOfQuotedCommand', () => {
  test("ctl's own commands read back as their words, the words sh sees", () => {
    const commands = [
      ['ctl', 'upgrade', 'run', '--to', '7.8.2-6', '--yes'],
      ['ctl', 'upgrade', 'run', '--databases', 'redis/a b', '--state', "/x/it's $(here)/s.json"],
      ['ctl', 'upgrade', 'run', '--context', "prod'; touch x #", '--helm-chart', ''],
    ];
    for (const words of commands) {
      const line = words.map(shellQuote).join(' ');
      assert.deepEqual(wordsOfQuotedCommand(line), words, line);
      assert.deepEqual(shWords(line), words, `sh reads ${line}`);
    }
    assert.deepEqual(wordsOfQuotedCommand(`KUBECONFIG='/a b:/c' kubectl --context x get rec`), [
      'KUBECONFIG=/a b:/c',
      'kubectl',
      '--context',
      'x',
      'get',
      'rec',
    ]);
  });

  test('anything else is not read as a command', () => {
    for (const line of [
      'ctl upgrade run --to 7.8.2-6; touch pwned',
      'ctl upgrade run $(touch pwned)',
      'ctl upgrade run `touch pwned`',
      'ctl upgrade run > ~/.bashrc',
      'ctl upgrade run | sh',
      'ctl upgrade run\ntouch pwned',
      "ctl upgrade run 'unterminated",
      'ctl upgrade run "--to" 7.8.2-6',
      'ctl  upgrade run',
      ' ctl upgrade run',
      'ctl upgrade run ',
      'LD_PRELOAD=/tmp/x.so ctl upgrade run',
      "ctl upgrade run 'plain'",
      '',
    ]) {
      assert.equal(wordsOfQuotedCommand(line), undefined, JSON.stringify(line));
    }
  });
});
