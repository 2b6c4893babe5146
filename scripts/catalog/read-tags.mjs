// Reads the git tags of a RedisLabs/redis-enterprise-k8s-docs clone (a work tree or a bare git
// directory) and, for each tag named like a release (`v8.0.20-23`, or without the `v`:
// `7.8.6-1`), whose bundle it holds: the `redislabs/operator:<version>` image of its bundle.yaml.
// A tag can hold another release's bundle (v7.4.6-9 holds 8.0.6-8's), so the name alone is not
// trusted. git runs with an argument list (no shell); tag names are checked before use.

import { execFileSync } from 'node:child_process';

const RELEASE_TAG = /^v?\d+\.\d+\.\d+-\d+$/;

function git(checkout, args) {
  return execFileSync('git', ['-C', checkout, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The operator version of a bundle.yaml: its `redislabs/operator:<version>` image, or undefined. */
export function bundleOperator(text) {
  return /^\s*(?:-\s+)?image:\s*["']?(?:[\w.-]+\/)*redislabs\/operator:v?(\d+\.\d+\.\d+-\d+)["']?\s*$/m.exec(
    text,
  )?.[1];
}

/**
 * `{ commit, tags: Map<tag, operator | undefined> }`: the commit the clone's HEAD is at (the
 * snapshot the tags were read from) and each release-named tag with the operator its bundle
 * holds (undefined: no bundle.yaml, or no operator image in it).
 */
export function readUpstreamTags(checkout) {
  let commit;
  try {
    commit = git(checkout, ['rev-parse', '--verify', '--end-of-options', 'HEAD^{commit}']).trim();
  } catch (error) {
    const why = String(error?.stderr ?? error?.message ?? error)
      .trim()
      .split('\n')[0];
    throw new Error(
      `--k8s-docs ${checkout}: not a git clone of RedisLabs/redis-enterprise-k8s-docs (${why})`,
    );
  }
  const names = git(checkout, ['for-each-ref', '--format=%(refname:strip=2)', 'refs/tags'])
    .split('\n')
    .map((name) => name.trim())
    .filter((name) => RELEASE_TAG.test(name));
  const tags = new Map();
  for (const name of names) {
    let text = '';
    try {
      text = git(checkout, ['show', `refs/tags/${name}:bundle.yaml`]);
    } catch {
      // No bundle.yaml at this tag: it holds no release's bundle.
    }
    tags.set(name, bundleOperator(text));
  }
  return { commit, tags };
}

const REPO = 'RedisLabs/redis-enterprise-k8s-docs';

/**
 * A release's `upstreamTag`/`upstreamTagNote` from the tags: `{}` when `v<operator>` holds its
 * bundle (the default), `{ upstreamTag: '<operator>' }` when only the tag without the `v` does,
 * `{ upstreamTag: null, upstreamTagNote }` when its tag holds another bundle or it has none.
 * `published` lists the releases published after the clone's snapshot: no tag yet, and the
 * default is kept for them.
 */
export function upstreamTagOf(operator, tags, published) {
  const holds = (name) => tags.has(name) && tags.get(name) === operator;
  if (holds(`v${operator}`)) return {};
  if (holds(operator)) return { upstreamTag: operator };
  const other = [`v${operator}`, operator].find((name) => tags.has(name));
  if (other !== undefined) {
    const held = tags.get(other);
    return {
      upstreamTag: null,
      upstreamTagNote: held
        ? `git tag ${other} of ${REPO} holds another release's bundle (${held})`
        : `git tag ${other} of ${REPO} holds no operator bundle`,
    };
  }
  if (published.has(operator)) return {};
  return {
    upstreamTag: null,
    upstreamTagNote: `${REPO} has no git tag v${operator}, so its bundle cannot be downloaded`,
  };
}
