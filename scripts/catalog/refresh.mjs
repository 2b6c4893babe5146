// Builds the release catalog (src/release/catalog.json, docs/catalog.schema.json) from its
// sources: a redis/docs checkout (the Kubernetes release notes, the product lifecycle page)
// and, optionally, a certified-operators checkout (the OLM bundles). Facts the sources do not
// state come from the overrides file (scripts/catalog/overrides.json), each with its reason.
//
// What each part of a release comes from:
// - notes: clusterTags, openshiftClusterTag, variants, olmBundles (the notes' OLM bundle),
//   source (the notes files);
// - bundles: olmBundles (every certified bundle of the release), olmOpenshiftVersions,
//   (read-bundles.mjs also reads each CSV's replaces and skips); sections this script does not
//   write (an OLM update graph) are carried from the base as they are;
// - lifecycle: databaseVersions/defaultDatabaseVersion (the bundled-database row of the
//   release's RS), bundledDatabases, releaseLines;
// - platforms (read-platforms.mjs): kubernetes, openshift, platformsFrom, from the reference
//   page's "Version history" table: a release's own column, else its line's, else the one its
//   notes send the reader to;
// - tags (read-tags.mjs, with a RedisLabs/redis-enterprise-k8s-docs clone): upstreamTag,
//   upstreamTagNote; without the clone they are carried from the base catalog;
// - overrides: the rules (each quote is checked against its notes file), the advisories, the
//   releases published after the pinned snapshots, and the releases whose platforms no source
//   states.

import { readAllNotes } from './read-notes.mjs';
import { readBundles } from './read-bundles.mjs';
import { reviewLimitations } from './reviewed.mjs';
import { readRsLine } from './read-rs-notes.mjs';
import { BUNDLED_DB, LIFECYCLE, readBundledDatabases, readEndOfLife } from './read-lifecycle.mjs';
import { platformsFromOf, readSupportHistory, SUPPORT_TABLE } from './read-platforms.mjs';
import { readUpstreamTags, upstreamTagOf } from './read-tags.mjs';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const PLATFORM_FIELDS = ['kubernetes', 'openshift', 'platformsFrom'];
const TAG_FIELDS = ['upstreamTag', 'upstreamTagNote'];

function parseVersion(text) {
  const m = /^(\d+)\.(\d+)\.(\d+)-(\d+)(?:\.(\d+))?(?:\.([a-z][a-z0-9-]*))?$/.exec(text);
  return m ? { nums: [m[1], m[2], m[3], m[4], m[5] ?? -1].map(Number), suffix: m[6] ?? '' } : undefined;
}

/** Orders operator versions, image tags and bundle versions numerically. */
export function compareVersions(a, b) {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) return a < b ? -1 : a > b ? 1 : 0;
  for (let i = 0; i < x.nums.length; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i] - y.nums[i];
  return x.suffix < y.suffix ? -1 : x.suffix > y.suffix ? 1 : 0;
}

function rsOf(tag) {
  return /^(\d+\.\d+\.\d+)-/.exec(tag)?.[1];
}

function sorted(list) {
  return [...new Set(list)].sort(compareVersions);
}

/** The bundled-database row of an RS release: its own x.y.z row, else its line's x.y row. */
function bundledRowFor(rows, rs) {
  const line = rs.split('.').slice(0, 2).join('.');
  return rows.find((row) => row.rs === rs) ?? rows.find((row) => row.rs === line);
}

/** The newest OpenShift tag the notes name with a RHEL suffix (rhel8 over rhel7), or undefined. */
function openshiftTagOf(tags) {
  const suffixed = tags.filter((t) => /\.rhel\d+-openshift$/.test(t));
  const rhel8 = suffixed.filter((t) => t.endsWith('.rhel8-openshift'));
  return sorted(rhel8.length > 0 ? rhel8 : suffixed).at(-1);
}

function gitCommit(dir) {
  try {
    const head = readFileSync(path.join(dir, '.git', 'HEAD'), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(head)) return head;
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    if (ref && existsSync(path.join(dir, '.git', ref)))
      return readFileSync(path.join(dir, '.git', ref), 'utf8').trim();
  } catch {
    // Not a git checkout: the commit must be given.
  }
  return undefined;
}

/** Checks each rule's quote against the notes file it cites; the problems, one line each. */
function verifyRules(rules, docs) {
  const problems = [];
  for (const rule of rules) {
    for (const cite of rule.cites ?? []) {
      const file = path.join(docs, cite.file);
      if (!existsSync(file)) {
        problems.push(`rule ${rule.id}: ${cite.file} is not in the docs checkout`);
        continue;
      }
      const text = readFileSync(file, 'utf8').replace(/\s+/g, ' ');
      if (!text.includes(cite.quote.replace(/\s+/g, ' ')))
        problems.push(`rule ${rule.id}: "${cite.quote}" is no longer in ${cite.file}: read the notes again`);
    }
  }
  return problems;
}

/**
 * The catalog document from the sources. `base` is the catalog the carried fields come from
 * (the current src/release/catalog.json). Returns the document and what the run noticed.
 */
export function refreshCatalog({ docs, bundles, k8sDocs, base, overrides, docsCommit, bundlesCommit }) {
  const notes = readAllNotes(docs);
  const certified = bundles ? readBundles(bundles) : [];
  const upstream = k8sDocs ? readUpstreamTags(k8sDocs) : undefined;
  const docsRev = (docsCommit ?? gitCommit(docs) ?? 'unknown').slice(0, 8);
  const bundlesRev = bundles ? (bundlesCommit ?? gitCommit(bundles) ?? 'unknown').slice(0, 8) : undefined;
  const cite = (file, where) => `redis/docs@${docsRev} ${file}${where ? ` (${where})` : ''}`;
  const report = { added: [], kept: [], problems: [], carriedSections: [], uncovered: [] };

  const oldest = overrides.oldestRelease;
  const byOperator = new Map();
  for (const note of notes) {
    if (oldest && compareVersions(note.operator, oldest) < 0) continue;
    const list = byOperator.get(note.operator) ?? [];
    list.push(note);
    byOperator.set(note.operator, list);
  }
  const dbRows = readBundledDatabases(docs);
  const baseReleases = new Map(base.releases.map((r) => [r.operator, r]));
  const afterSnapshot = new Set(overrides.afterSnapshot?.releases ?? []);
  const operators = sorted([...byOperator.keys(), ...afterSnapshot]);

  /** What the notes, the bundles and the lifecycle page say of a release (no platforms, no tag). */
  const fromNotes = (operator) => {
    const previous = baseReleases.get(operator);
    if (afterSnapshot.has(operator)) {
      if (!previous) {
        report.problems.push(`${operator} is listed after the snapshot but not in the base catalog`);
        return undefined;
      }
      const kept = Object.fromEntries(
        Object.entries(previous).filter(
          ([key]) => !PLATFORM_FIELDS.includes(key) && !TAG_FIELDS.includes(key),
        ),
      );
      const ranges = overrides.olmOpenshiftVersions?.values?.[operator];
      if (ranges) kept.olmOpenshiftVersions = sortKeys({ ...previous.olmOpenshiftVersions, ...ranges });
      return kept;
    }
    const own = byOperator.get(operator);
    const kubernetesTags = sorted(own.flatMap((n) => n.kubernetesTags));
    if (kubernetesTags.length === 0) {
      report.problems.push(`${operator}: no Redis Enterprise image in ${own.map((n) => n.file).join(', ')}`);
      return undefined;
    }
    const entry = { operator, clusterTags: kubernetesTags };
    const openshift = openshiftTagOf(own.flatMap((n) => n.openshiftTags));
    if (openshift) entry.openshiftClusterTag = openshift;
    const variants = sorted(own.flatMap((n) => n.variants));
    if (variants.length > 0) entry.variants = variants;
    const mine = certified.filter((b) => b.operator === operator);
    const olm = sorted([...own.flatMap((n) => n.olmBundles), ...mine.map((b) => b.bundle)]);
    if (olm.length > 0) entry.olmBundles = olm;
    const ranges = Object.fromEntries(
      mine.filter((b) => b.openshiftVersions).map((b) => [b.bundle, b.openshiftVersions]),
    );
    Object.assign(ranges, overrides.olmOpenshiftVersions?.values?.[operator] ?? {});
    if (Object.keys(ranges).length > 0) entry.olmOpenshiftVersions = sortKeys(ranges);
    const rs = rsOf(kubernetesTags.at(-1));
    const row = rs ? bundledRowFor(dbRows, rs) : undefined;
    if (row) {
      entry.databaseVersions = [...row.versions];
      entry.defaultDatabaseVersion = row.default;
    }
    if (!previous) report.added.push(operator);
    entry.source = own.map((n) => n.file).sort();
    return entry;
  };

  // Platforms: the reference page's column of the release, or the one its notes send to.
  const history = readSupportHistory(docs);
  report.problems.push(...history.problems);
  const operatorOfFile = new Map(notes.map((n) => [n.file, n.operator]));
  const unstated = new Set(overrides.platformsUnstated?.releases ?? []);
  const platformsOf = (operator) => {
    const from = platformsFromOf(operator, {
      columns: history.columns,
      notesOf: (op) => byOperator.get(op) ?? [],
      operatorOfFile: (file) => operatorOfFile.get(file),
      compare: compareVersions,
    });
    if (from === undefined) {
      if (!unstated.has(operator) && history.columns.size > 0)
        report.problems.push(
          `${operator}: no column of ${SUPPORT_TABLE} covers it and its notes send to none (list it in platformsUnstated of the overrides, with the reason, if no source states its platforms)`,
        );
      return {};
    }
    if (unstated.has(operator))
      report.problems.push(
        `${operator} is in platformsUnstated but ${SUPPORT_TABLE} covers it (column ${from}): drop it`,
      );
    const column = history.columns.get(from);
    return { kubernetes: column.kubernetes, openshift: column.openshift, platformsFrom: from };
  };

  // Tags: the redis-enterprise-k8s-docs clone's, when given; else the base catalog's.
  const published = new Set(overrides.upstreamTags?.afterSnapshot ?? []);
  const tagsOf = (operator) => {
    if (!upstream) {
      const previous = baseReleases.get(operator) ?? {};
      return Object.fromEntries(
        TAG_FIELDS.filter((k) => previous[k] !== undefined).map((k) => [k, previous[k]]),
      );
    }
    if (published.has(operator) && [`v${operator}`, operator].some((name) => upstream.tags.has(name)))
      report.problems.push(
        `${operator} is in upstreamTags.afterSnapshot but the redis-enterprise-k8s-docs clone has its tag: drop it`,
      );
    return upstreamTagOf(operator, upstream.tags, published);
  };

  const releases = operators.map((operator) => {
    const entry = fromNotes(operator);
    return entry && orderFields({ ...entry, ...platformsOf(operator), ...tagsOf(operator) });
  });
  for (const operator of baseReleases.keys())
    if (!operators.includes(operator) && !(oldest && compareVersions(operator, oldest) < 0))
      report.kept.push(operator);

  // The notes' breaking changes and known limitations (the Kubernetes notes, and the RS line pages
  // of overrides `rsNotes`) that neither a rule nor the reviewed list
  // (overrides `reviewed`, reviewed.mjs) covers: candidates for a rule, listed for the person
  // refreshing (the script cannot tell what in a cluster sets one off).
  const rsFiles = overrides.rsNotes?.files ?? [];
  for (const file of rsFiles)
    if (!existsSync(path.join(docs, file)))
      report.problems.push(`rsNotes: ${file} is not in the docs checkout`);
  const rsLines = rsFiles
    .filter((file) => existsSync(path.join(docs, file)))
    .map((file) => readRsLine(docs, file));
  const review = reviewLimitations([...notes, ...rsLines], overrides);
  report.uncovered.push(...review.uncovered);
  report.reviewed = review.counts;
  report.problems.push(...review.problems);
  report.notices = review.notices;

  const rules = overrides.rules.map(({ cites, ...rule }) => ({
    ...rule,
    source: cites.map((c) => cite(c.file, c.where)),
  }));
  report.problems.push(...verifyRules(overrides.rules, docs));

  const lifecycleSource = cite(LIFECYCLE, 'Cluster version end-of-life schedule');
  const releaseLines = readEndOfLife(docs)
    .filter((line) => compareVersions(`${line.rs}.0-0`, `${overrides.oldestLine ?? '0.0'}.0-0`) >= 0)
    .map((line) => ({
      ...line,
      source: [
        lifecycleSource,
        ...(overrides.releaseLineSources?.[line.rs] ?? []).map((c) => cite(c.file, c.where)),
      ],
    }));

  const document = {
    $schema: base.$schema,
    format: 1,
    updated: overrides.updated,
    sources: {
      notes: `redis/docs@${docsRev} content/operate/kubernetes/release-notes/ ("Downloads"/"Images", "OpenShift downloads", "OLM operator bundle"); releases after it: ${overrides.afterSnapshot?.reason ?? 'none'}`,
      ...(bundlesRev
        ? {
            bundles: `redhat-openshift-ecosystem/certified-operators@${bundlesRev} operators/redis-enterprise-operator-cert/*/ (the bundles of each release; metadata/annotations.yaml: com.redhat.openshift.versions)`,
          }
        : {}),
      lifecycle: `redis/docs@${docsRev} ${LIFECYCLE} ("Cluster version end-of-life schedule") and ${BUNDLED_DB} ("Bundled Redis database versions")`,
      platforms: `redis/docs@${docsRev} ${SUPPORT_TABLE} ("Version history": kubernetes, openshift; platformsFrom names the column); a release without a column takes its line's newest not newer than it, else the one its notes send to for supported distributions; the releases in platformsUnstated of the overrides have none: ${overrides.platformsUnstated?.reason ?? 'none'}`,
      ...(upstream
        ? {
            tags: `RedisLabs/redis-enterprise-k8s-docs@${upstream.commit.slice(0, 8)} git tags (upstreamTag: v<operator> unless noted; a tag's bundle.yaml names the operator it holds); the releases in upstreamTags.afterSnapshot of the overrides: ${overrides.upstreamTags?.reason ?? 'none'}`,
          }
        : {
            carried: `${TAG_FIELDS.join(', ')}: kept from the catalog the script was run on (no --k8s-docs clone given)`,
          }),
    },
    releases: releases.filter((r) => r !== undefined),
    bundledDatabases: dbRows.map((row) => ({ ...row, source: cite(BUNDLED_DB) })),
    advisories: overrides.advisories,
    rules,
    releaseLines,
    // The certified bundles' update edges (check olm-update-path): written by
    // scripts/read-olm-bundles.mjs from the same certified-operators commit, carried as they are.
    ...(base.olm ? { olm: base.olm } : {}),
  };
  // Any other section this script does not write is carried as it is, after its own, in the
  // base's order.
  for (const [key, value] of Object.entries(base)) {
    if (key in document) continue;
    document[key] = value;
    report.carriedSections.push(key);
  }
  return { document, report };
}

function sortKeys(record) {
  return Object.fromEntries(
    Object.keys(record)
      .sort(compareVersions)
      .map((k) => [k, record[k]]),
  );
}

const FIELD_ORDER = [
  'operator',
  'clusterTags',
  'openshiftClusterTag',
  'variants',
  'olmBundles',
  'olmOpenshiftVersions',
  'databaseVersions',
  'defaultDatabaseVersion',
  'kubernetes',
  'openshift',
  'platformsFrom',
  'upstreamTag',
  'upstreamTagNote',
  'source',
];

function orderFields(entry) {
  return Object.fromEntries(FIELD_ORDER.filter((k) => entry[k] !== undefined).map((k) => [k, entry[k]]));
}
