import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Help } from 'commander';
import { helpWidth, renamedHelpStyle, renameHelpText, unglued } from '../../../src/cli/help-rename.js';

/** The plugin's help (`kubectl rec`) kept within the width ctl's help keeps (src/cli/help-rename.ts). */
describe('renameHelpText', () => {
  const plugin = 'kubectl rec';

  it('leaves ctl, and a renamed line that still fits, as they are', () => {
    const text = '  ctl upgrade run --to 8.2.0-18   # a note\nctl demo\n';
    assert.equal(renameHelpText(text, 'ctl', 20), text);
    assert.equal(renameHelpText('ctl demo\n', plugin, 80), 'kubectl rec demo\n');
  });

  it('wraps prose the renaming pushed past the width at its spaces', () => {
    const line = 'Start here: ctl demo upgrades a simulated cluster (nothing else is touched);';
    assert.ok(line.length <= 80);
    assert.deepEqual(renameHelpText(line, plugin, 80).split('\n'), [
      'Start here: kubectl rec demo upgrades a simulated cluster (nothing else is',
      'touched);',
    ]);
  });

  it("puts an example's note on a line of its own before it, and continues a long command after a backslash", () => {
    const example = '  ctl upgrade run --to 8.2.0-18 --dry-run=server   # the API server judges it';
    assert.deepEqual(renameHelpText(example, plugin, 80).split('\n'), [
      '  # the API server judges it',
      '  kubectl rec upgrade run --to 8.2.0-18 --dry-run=server',
    ]);
    const long = '  ctl upgrade plan --to 8.2.0-18 -o json | jq \'.checks[] | select(.status != "pass")\'';
    const lines = renameHelpText(long, plugin, 60).split('\n');
    assert.ok(
      lines.every((line) => line.length <= 60),
      lines.join('\n'),
    );
    assert.ok(lines.slice(0, -1).every((line) => line.endsWith(' \\')));
    // The quoted jq program is one word, never split by a line break.
    assert.ok(
      lines.some((line) => line.includes('\'.checks[] | select(.status != "pass")\'')),
      lines.join('\n'),
    );
    // Joined as sh joins a backslash-newline, it is the renamed command.
    assert.equal(
      lines.map((line, i) => (i < lines.length - 1 ? line.slice(0, -2) : line).trim()).join(' '),
      long.trim().replace(/^ctl/, plugin),
    );
  });

  it('renames the descriptions commander wraps, before it wraps them; the width is 80 off a terminal', () => {
    assert.equal(
      unglued(renamedHelpStyle(plugin).styleDescriptionText('ids: ctl upgrade steps')),
      'ids: kubectl rec upgrade steps',
    );
    assert.equal(helpWidth({ isTTY: false, columns: 120 }), 80);
    assert.equal(helpWidth({ isTTY: true, columns: 120 }), 120);
    assert.equal(helpWidth({}), 80);
  });

  it("never breaks the plugin's name between kubectl and rec, in commander's wrap or in ours", () => {
    // Commander's wrap of a renamed description, at a width that put the break right after `kubectl`.
    const help = new Help();
    const text = renamedHelpStyle(plugin).styleDescriptionText(
      'run only this step (repeatable; ids: ctl upgrade steps)',
    );
    for (let width = 30; width <= 60; width += 1) {
      const wrapped = renameHelpText(help.boxWrap(text, width), plugin, 80);
      assert.doesNotMatch(wrapped, /kubectl\n\s*rec/, `width ${width}`);
      assert.match(wrapped.replace(/\s+/g, ' '), /ids: kubectl rec upgrade steps\)/, `width ${width}`);
    }
    // Ours, for a line the renaming pushed past the width.
    const line = 'A long line of prose that mentions ctl upgrade status near its end, here.';
    for (let width = 40; width < 80; width += 1) {
      assert.doesNotMatch(renameHelpText(line, plugin, width), /kubectl\n\s*rec/, `width ${width}`);
    }
  });
});
