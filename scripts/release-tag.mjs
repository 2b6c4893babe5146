#!/usr/bin/env node
// Makes the git tag that `npm install --global git+https://<host>/<org>/ctl.git#v0.1.0` installs.
// A plain commit cannot be installed that way: it holds no build, so npm would run `prepare`,
// and npm 11 prepares a git dependency of a global install without its development
// dependencies ("git dep preparation failed ... tsc: not found"). The tag therefore points at a
// release commit made for it, off the branch: HEAD's tree plus the build (dist/bundle, which no
// branch commits) and the shipped package.json (scripts/shipped-manifest.mjs: no `prepare`, no
// devDependencies), with HEAD as its parent. npm then packs it as it is, with nothing to build.
//
//   npm run release-tag                        tag v<version of package.json> (then: git push origin <tag>)
//   node scripts/release-tag.mjs v0.1.0-rc.1   another name
//   node scripts/release-tag.mjs --git-dir <repo.git> <tag>   write the commit and tag into another
//                                              repository that has HEAD's commit (the install test)
//   ... --no-build                             use dist/bundle as it is (the install test, after npm test)
//
// It builds first when dist/ is older than the sources (scripts/build.mjs --if-stale). The
// branch, the index and the work tree are left as they were: the commit is assembled in an
// index file of its own under the git directory.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { shippedManifest } from './shipped-manifest.mjs';

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const gitDirAt = args.indexOf('--git-dir');
const gitDir = gitDirAt >= 0 ? args.splice(gitDirAt, 2)[1] : undefined;
const noBuild = args.includes('--no-build');
if (noBuild) args.splice(args.indexOf('--no-build'), 1);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tag = args[0] ?? `v${manifest.version}`;

function fail(message) {
  console.error(`release-tag: ${message}`);
  process.exit(1);
}

function git(argv, options = {}) {
  const base = gitDir ? ['--git-dir', gitDir, '--work-tree', root] : [];
  const result = spawnSync('git', [...base, ...argv], { cwd: root, encoding: 'utf8', ...options });
  if (result.status !== 0)
    fail(`git ${argv.join(' ')} failed: ${result.stderr?.trim() || result.error?.message}`);
  return result.stdout.trim();
}

if (
  spawnSync('git', [
    ...(gitDir ? ['--git-dir', gitDir] : []),
    'rev-parse',
    '-q',
    '--verify',
    `refs/tags/${tag}`,
  ]).status === 0
)
  fail(`tag ${tag} exists already`);
if (noBuild) {
  if (!existsSync(join(root, 'dist', 'bundle', 'main.js'))) fail('dist/bundle is missing: run npm run build');
} else {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) fail('the build failed');
}

const head = git(['rev-parse', 'HEAD']);
const index = resolve(root, git(['rev-parse', '--git-path', `index.release-${process.pid}`]));
const env = { ...process.env, GIT_INDEX_FILE: index };
try {
  git(['read-tree', head], { env });
  // dist/ is ignored on the branch; the release commit holds only the bundle that bin/ctl.js runs.
  git(['add', '--force', 'dist/bundle'], { env });
  const blob = git(['hash-object', '-w', '--stdin'], { input: shippedManifest(manifest) });
  git(['update-index', '--cacheinfo', `100644,${blob},package.json`], { env });
  const tree = git(['write-tree'], { env });
  const message = `ctl ${tag}: ${head.slice(0, 12)} with its build, for npm install from git`;
  const commit = git(['commit-tree', tree, '-p', head, '-m', message]);
  git(['tag', tag, commit]);
  console.log(`release-tag: ${tag} -> ${commit.slice(0, 12)} (${head.slice(0, 12)} plus dist/bundle)`);
  if (!gitDir) console.log(`release-tag: publish it with: git push origin ${tag}`);
} finally {
  rmSync(index, { force: true });
}
