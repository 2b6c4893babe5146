import { CTL, renameProgram } from '../io/program-name.js';

/**
 * `--help` of the kubectl plugin (`kubectl rec`, src/io/program-name.ts) at the width `ctl
 * --help` keeps: the terminal's, else 80 columns. Commander wraps descriptions and options to
 * that width, and ctl's own texts around them (examples, notes) are written to fit 80 columns
 * (test/e2e/help-texts.test.ts); each `ctl` mention renamed `kubectl rec` is 8 columns wider, so
 * renaming after commander had wrapped left lines past the width (24 of them at 80).
 *
 * Commander's part is renamed before it wraps ({@link renamedHelpStyle}); ctl's own texts are
 * renamed as they are written, and only a line the renaming made wider than the width is
 * wrapped again ({@link renameHelpText}).
 *
 * The name is one word to both wrappers: `kubectl rec` broken after `kubectl` left `rec upgrade
 * steps` at the start of the next line, which reads as another command. Renamed, its space is
 * GLUE, a character that neither commander (it breaks at `\s`) nor wrapLine breaks at, and that
 * counts one column as the space does; the text is written with the space back ({@link unglued}).
 */

/** Stands for the space inside the program's name while help is wrapped: a private-use character. */
const GLUE = '\uE000';

/** The program's name as one word for the wrappers. */
function glued(programName: string): string {
  return programName.replaceAll(' ', GLUE);
}

/** Help text as written: each glued name with its space again. */
export function unglued(text: string): string {
  return text.replaceAll(GLUE, ' ');
}

/** The width commander wraps help to: the terminal's columns, else 80 (commander's own default). */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }): number {
  return stream.isTTY && stream.columns ? stream.columns : 80;
}

/**
 * Commander's style hook for every description (the command's, each option's, subcommand's and
 * argument's), which it applies before it wraps them: the text is renamed there, so commander
 * wraps the words the reader will see.
 */
export function renamedHelpStyle(programName: string): { styleDescriptionText(text: string): string } {
  return { styleDescriptionText: (text) => renameProgram(text, glued(programName)) };
}

/** `text` with ctl's mentions renamed, each line that the renaming pushed past `width` wrapped. */
export function renameHelpText(text: string, programName: string, width: number): string {
  if (programName === CTL) return unglued(text);
  return unglued(
    text
      .split('\n')
      .flatMap((line) => {
        const renamed = renameProgram(line, glued(programName));
        return columns(renamed) > width && columns(renamed) > columns(line)
          ? wrapLine(renamed, width)
          : [renamed];
      })
      .join('\n'),
  );
}

function columns(line: string): number {
  return [...line].length;
}

/**
 * One line in several of at most `width` columns where it can be: prose at its spaces, as
 * commander wraps; an indented example (a command to paste) keeps working pasted: its `# note`
 * goes on a line of its own before it, and a command still too long continues after ` \`.
 */
function wrapLine(line: string, width: number): string[] {
  const indent = /^ */.exec(line)?.[0] ?? '';
  if (indent === '') return wrapWords(line.split(/ +/), width, '');
  const note = /\s{2,}(# .*)$/.exec(line);
  if (note && note.index > indent.length) {
    const command = line.slice(0, note.index);
    return [
      `${indent}${note[1]}`,
      ...(columns(command) > width ? wrapCommand(command, width, indent) : [command]),
    ];
  }
  return wrapCommand(line, width, indent);
}

/** `words` filled up to `width`, joined by a space, each line after the first starting with `indent`. */
function wrapWords(words: readonly string[], width: number, indent: string): string[] {
  const lines: string[] = [];
  let current = words[0] ?? '';
  for (const word of words.slice(1)) {
    if (columns(current) + 1 + columns(word) > width) {
      lines.push(current);
      current = `${indent}${word}`;
    } else {
      current = `${current} ${word}`;
    }
  }
  lines.push(current);
  return lines;
}

/** A command at its spaces, each line but the last ending with ` \`, the rest indented 2 more, as the examples split by hand are. */
function wrapCommand(command: string, width: number, indent: string): string[] {
  // A quoted word (`'.a | .b'`) is one word: a break inside its quotes would be part of the
  // argument. A quote that does not close ends the word where a space does.
  const words = command.trim().match(/(?:[^\s'"]+|'[^']*'|"[^"]*"|['"])+/g) ?? [];
  const lines = wrapWords([`${indent}${words[0] ?? ''}`, ...words.slice(1)], width - 2, `${indent}  `);
  return lines.map((line, i) => (i < lines.length - 1 ? `${line} \\` : line));
}
