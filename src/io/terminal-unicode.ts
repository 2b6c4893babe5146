/** Braille glyphs, except where a terminal is known to lack them (is-unicode-supported's rule). */
export function terminalHasUnicode(env: NodeJS.ProcessEnv, platform = process.platform): boolean {
  if (platform !== 'win32') return env.TERM !== 'linux';
  return Boolean(
    env.WT_SESSION || env.TERMINUS_SUBLIME || env.TERM_PROGRAM === 'vscode' || env.TERM === 'xterm-256color',
  );
}
