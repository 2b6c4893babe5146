import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../helpers/tools.js';

/**
 * Issue 38: the user documents are short task pages that link each other. When a section moves to
 * another page, every link to it must follow; this fails on any relative link of README.md and
 * docs/*.md whose file does not exist, or whose #anchor is no heading of that file.
 */

/** The lines outside fenced code blocks (a `#` in a shell example is no heading, a link in it no link). */
export function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence === undefined) lines.push(line);
  }
  return lines;
}

/**
 * GitHub's anchor of a heading: the rendered text in lower case, without punctuation other than
 * `-` and `_`, spaces turned into `-`; a repeated heading gets `-1`, `-2`, ...
 */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const rendered = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The link targets of a page's prose: `[text](target)`, inline code left out. */
export function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/(`+)[^`]*?\1/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) targets.push(match[1] as string);
  }
  return targets;
}

function userDocuments(): string[] {
  return [
    'README.md',
    ...readdirSync(path.join(repoRoot, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => path.join('docs', name)),
  ];
}

/** What is wrong with one link of `file`, or undefined. */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: ...
  const [pathPart = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = pathPart === '' ? file : path.normalize(path.join(path.dirname(file), decodeURI(pathPart)));
  const absolute = path.join(repoRoot, resolved);
  if (!existsSync(absolute)) return `${file}: ${target}: ${resolved} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(absolute).isDirectory() || !resolved.endsWith('.md'))
    return `${file}: ${target}: an anchor into a file that is no Markdown page`;
  if (!headingAnchors(readFileSync(absolute, 'utf8')).has(anchor))
    return `${file}: ${target}: ${resolved} has no heading #${anchor}`;
  return undefined;
}

describe('links of the user documents (issue 38)', () => {
  it("reads GitHub's anchors and skips code", () => {
    const page = [
      '# Frozen upgrades (`--remediate`)',
      '### 1. `preflight`: check the prerequisites',
      '## State, lock and resume',
      '## State, lock and resume',
      '```sh',
      '# not a heading [x](nowhere.md)',
      '```',
      'See [the lock](#state-lock-and-resume) and `[no](link.md)`.',
    ].join('\n');
    assert.deepEqual(
      [...headingAnchors(page)],
      ['frozen-upgrades---remediate', '1-preflight-check-the-prerequisites', 'state-lock-and-resume', 'state-lock-and-resume-1'],
    );
    assert.deepEqual(linkTargets(page), ['#state-lock-and-resume']);
  });

  it('a link to a missing page or heading is reported', () => {
    assert.match(brokenLink('docs/README.md', 'no-such-page.md') ?? '', /does not exist/);
    assert.match(brokenLink('docs/README.md', 'upgrade.md#no-such-heading') ?? '', /no heading #no-such-heading/);
    assert.equal(brokenLink('docs/README.md', 'https://example.com/#x'), undefined);
  });

  it('every relative link and #anchor of README.md and docs/*.md resolves', () => {
    const broken: string[] = [];
    let seen = 0;
    for (const file of userDocuments()) {
      for (const target of linkTargets(readFileSync(path.join(repoRoot, file), 'utf8'))) {
        seen += 1;
        const problem = brokenLink(file, target);
        if (problem) broken.push(problem);
      }
    }
    assert.ok(seen > 100, `the links were read (${seen})`);
    assert.deepEqual(broken, []);
  });

  it("a relative link leads to a file the npm package ships, a link into ctl's repository to a file there", () => {
    // The package holds package.json "files" and npm's own (README.md, LICENSE): a relative link
    // out of them (docs/ci.md's ../examples/) is dead for a reader of the installed package.
    // What it does not ship is linked in the repository package.json names, and must exist there.
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      files: string[];
      repository: { url: string };
    };
    const shipped = (resolved: string) =>
      ['README.md', 'LICENSE', 'package.json'].includes(resolved) ||
      pkg.files.some((entry) => resolved.startsWith(entry.endsWith('/') ? entry : `${entry}/`));
    const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    const intoRepository = `${repository}/blob/main/`;
    const outside: string[] = [];
    const intoIt: string[] = [];
    for (const file of userDocuments()) {
      for (const target of linkTargets(readFileSync(path.join(repoRoot, file), 'utf8'))) {
        if (target.startsWith(intoRepository)) {
          const inRepository = decodeURI(target.slice(intoRepository.length).split('#')[0] ?? '');
          intoIt.push(inRepository);
          if (!existsSync(path.join(repoRoot, inRepository)))
            outside.push(`${file}: ${target}: ${inRepository} is no file of the repository`);
          continue;
        }
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
        const resolved = path.normalize(path.join(path.dirname(file), decodeURI(target.split('#')[0] ?? '')));
        if (!shipped(resolved)) outside.push(`${file}: ${target}: ${resolved} is not in the npm package`);
      }
    }
    assert.ok(intoIt.includes('examples/github-actions.yml'), `docs/ci.md links the examples: ${intoIt.join(', ')}`);
    assert.deepEqual(outside, []);
  });
});
