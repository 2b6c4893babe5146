/**
 * scripts/catalog-refresh.mjs on small sources written for this test in the formats of the
 * real ones: release notes as redis/docs writes them (front matter, "Downloads", "OpenShift
 * downloads", "OLM operator bundle", an older "Images" section with a label swap, "Known
 * limitations", a maintenance release's "For supported distributions ..., see ..." pointer),
 * the supported-distributions reference page with its "Version history" table, the product
 * lifecycle page with its embedded database table, certified OLM bundles
 * (metadata/annotations.yaml, a CSV with spec.replaces and spec.skips), and a git repository
 * tagged as RedisLabs/redis-enterprise-k8s-docs is (bundle.yaml at each tag).
 */

import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from '../../helpers/temp.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const run = promisify(execFile);

interface Refresh {
  refreshCatalog(input: {
    docs: string;
    bundles?: string;
    k8sDocs?: string;
    base: unknown;
    overrides: unknown;
    docsCommit?: string;
    bundlesCommit?: string;
  }): {
    document: Record<string, unknown> & { releases: Record<string, unknown>[] };
    report: { problems: string[]; added: string[]; kept: string[]; uncovered: string[] };
  };
}

function write(dir: string, file: string, text: string): void {
  const at = path.join(dir, file);
  mkdirSync(path.dirname(at), { recursive: true });
  writeFileSync(at, text);
}

const NOTES = 'content/operate/kubernetes/release-notes';

function note(title: string, body: string): string {
  return `---\nalwaysopen: false\ncategories:\n- docs\nlinkTitle: x\ntitle: ${title}\nweight: 1\n---\n\n${body}\n`;
}

function sources(): { docs: string; bundles: string } {
  const docs = tempDir('ctl-refresh-docs-');
  write(
    docs,
    `${NOTES}/9-1-0-releases/9-1-0-4-may2027.md`,
    note(
      'Redis Software for Kubernetes 9.1.0-4 (May 2027) release notes',
      [
        '## Downloads',
        '',
        '- **Redis Enterprise**: `redislabs/redis:9.1.0-30.4` (`redislabs/redis:9.1.0-30.4.minimal` for minimal base image)',
        '- **Operator**: `redislabs/operator:9.1.0-4`',
        '',
        '### OpenShift downloads',
        '',
        '- **OLM operator bundle**: `9.1.0-4.1`',
        '- **Redis Enterprise**: `registry.connect.redhat.com/redislabs/redis-enterprise:9.1.0-30.4`',
        '',
        '## Known limitations',
        '',
        '- **Upgrading directly from 9.0.2-7 to 9.1.0-4 is not supported.** Wait for 9.1.0-6.',
      ].join('\n'),
    ),
  );
  write(
    docs,
    `${NOTES}/9-1-0-releases/9-1-0-4-june2027.md`,
    note(
      'Redis Software for Kubernetes 9.1.0-4 (June 2027) release notes',
      ['## Downloads', '', '- **Redis Software**: `redislabs/redis:9.1.0-41.4`', ''].join('\n'),
    ),
  );
  // An older note: "Images", the RS image under a swapped label, an OpenShift RHEL8 tag.
  write(
    docs,
    `${NOTES}/previous-releases/k8s-9-0-2-7.md`,
    note(
      'Redis Enterprise for Kubernetes release notes 9.0.2-7 (March 2027)',
      [
        '## Images',
        '',
        '* **Redis Enterprise**: `redislabs/operator:9.0.2-55` or `redislabs/redis:9.0.2-55.rhel8-openshift`',
        '* **Operator**: `redislabs/redis:9.0.2-7`',
        '',
      ].join('\n'),
    ),
  );
  write(
    docs,
    'content/operate/rs/installing-upgrading/product-lifecycle.md',
    [
      '### Cluster version end-of-life schedule {#endoflife-schedule}',
      '',
      '| Version - Release date | End of Life (EOL)  |',
      '| --- | --- |',
      '| 9.1 – May 2027 | - |',
      '| 9.0 – January 2027 | March 31, 2029 |',
      '| 5.2 – June 2018 | December 31, 2019 |',
      '',
      '## Bundled Redis database versions',
    ].join('\n'),
  );
  write(
    docs,
    'content/embeds/rs-bundled-db-versions.md',
    [
      '| Redis Software<br />cluster version | Bundled Redis<br />DB versions | Default DB version<br />(upgraded/new databases) |',
      '|-------|----------|-----|',
      '| 9.1.0 | 8.2, 8.4, 9.0 | 9.0 |',
      '| 9.0.x | 8.2, 8.4 | 8.4 |',
    ].join('\n'),
  );
  // A maintenance release of a line without a column: its notes send to the 9.1.0 releases' page.
  write(
    docs,
    `${NOTES}/9-1-4-releases/9-1-4-3-july2027.md`,
    note(
      'Redis Software for Kubernetes 9.1.4-3 (July 2027) release notes',
      [
        'A maintenance release of 9.1.0.',
        '',
        'For what changed, supported distributions and known limitations, see the [9.1.0 release notes]({{<relref "/operate/kubernetes/release-notes/9-1-0-releases/">}}).',
        '',
        '## Downloads',
        '',
        '- **Redis Software**: `redislabs/redis:9.1.4-12.3`',
      ].join('\n'),
    ),
  );
  // Its next maintenance release sends to the 9.1.4-3 notes (a file): followed on.
  write(
    docs,
    `${NOTES}/9-1-6-releases/9-1-6-1-august2027.md`,
    note(
      'Redis Software for Kubernetes 9.1.6-1 (August 2027) release notes',
      [
        'For supported distributions, see [the 9.1.4-3 notes]({{< relref "/operate/kubernetes/release-notes/9-1-4-releases/9-1-4-3-july2027" >}}).',
        '',
        '## Downloads',
        '',
        '- **Redis Software**: `redislabs/redis:9.1.6-3.1`',
      ].join('\n'),
    ),
  );
  // A release no column covers and whose notes send nowhere.
  write(
    docs,
    `${NOTES}/9-0-0-releases/9-0-0-1-jan2027.md`,
    note(
      'Redis Software for Kubernetes 9.0.0-1 (January 2027) release notes',
      ['## Downloads', '', '- **Redis Software**: `redislabs/redis:9.0.0-9.1`'].join('\n'),
    ),
  );
  const ok = '<span title="Supported">&#x2705;</span>';
  const warn = '<span title="Deprecation warning">&#x26a0;&#xfe0f;</span>';
  const gone = '<span title="X icon">&#x274c;</span>';
  write(
    docs,
    'content/operate/kubernetes/reference/supported_k8s_distributions.md',
    [
      '---',
      'title: Supported distributions',
      '---',
      '',
      '### Latest release',
      '',
      '| OpenShift | Kubernetes | Status |',
      '|---|---|---|',
      `| 4.23 | 1.36 | ${ok} Supported |`,
      '',
      '### Version history',
      '',
      'Newest operator on the left.',
      '',
      '{{<table-scrollable>}}|  | Redis operator | **<nobr>9.1.0-2</nobr>** | **<nobr>9.0.2-7</nobr>** |',
      '|---|---|---|---|',
      '|  |  | May 2027 | March 2027 |',
      '| OpenShift | Kubernetes |  |  |',
      `| &mdash; | 1.37 | ${ok} |  |`,
      `| 4.23 | 1.36 | ${ok} | ${ok} |`,
      `| 4.22 | 1.35 | ${warn} | ${ok} |`,
      `| 4.09 | 1.34 | ${gone} | ${warn} |`,
      '',
      '{{</table-scrollable>}}',
    ].join('\n'),
  );
  const bundles = tempDir('ctl-refresh-bundles-');
  const dir = 'operators/redis-enterprise-operator-cert';
  for (const [bundle, range] of [
    ['9.1.0-4.1', 'v4.20-v4.23'],
    ['9.1.0-4.0', 'v4.19-v4.22'],
  ] as const) {
    write(
      bundles,
      `${dir}/${bundle}/metadata/annotations.yaml`,
      `annotations:\n  operators.operatorframework.io.bundle.channels.v1: 9.1.0\n  com.redhat.openshift.versions: ${range}\n`,
    );
    write(
      bundles,
      `${dir}/${bundle}/manifests/redis-enterprise-operator-cert.clusterserviceversion.yaml`,
      `apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nspec:\n  replaces: redis-enterprise-operator.v9.0.2-7.0\n  skips:\n  - redis-enterprise-operator.v9.0.2-6.0\n  version: ${bundle}\n`,
    );
  }
  return { docs, bundles };
}

/**
 * A git repository tagged as RedisLabs/redis-enterprise-k8s-docs is: `9.0.2-7` without the `v`,
 * `v9.1.0-4` as usual, `v9.1.4-3` holding 9.1.6-1's bundle, and a tag not named like a release.
 */
function k8sDocs(): { dir: string; head: string } {
  const dir = tempDir('ctl-refresh-k8s-docs-');
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'test',
    GIT_AUTHOR_EMAIL: 'test@example.invalid',
    GIT_COMMITTER_NAME: 'test',
    GIT_COMMITTER_EMAIL: 'test@example.invalid',
  };
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', dir, ...args], { env, encoding: 'utf8' });
  git('init', '--quiet');
  for (const [operator, tag] of [
    ['9.0.2-7', '9.0.2-7'],
    ['9.1.0-4', 'v9.1.0-4'],
    ['9.1.6-1', 'v9.1.4-3'],
  ] as const) {
    writeFileSync(
      path.join(dir, 'bundle.yaml'),
      `kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: operator\n          image: redislabs/operator:${operator}\n`,
    );
    git('add', 'bundle.yaml');
    git('commit', '--quiet', '--no-gpg-sign', '-m', `promote ${operator}`);
    git('tag', tag);
  }
  git('tag', 'chart-0.1.0');
  return { dir, head: git('rev-parse', 'HEAD').trim() };
}

/** The "Version history" columns of the fixture page, as the catalog lists them (rows run newest first). */
const SUPPORT_9_1_0_2 = {
  kubernetes: { supported: ['1.37', '1.36'], deprecated: ['1.35'] },
  openshift: { supported: ['4.23'], deprecated: ['4.22'] },
};
const SUPPORT_9_0_2_7 = {
  kubernetes: { supported: ['1.36', '1.35'], deprecated: ['1.34'] },
  openshift: { supported: ['4.23', '4.22'], deprecated: ['4.9'] },
};

const BASE = {
  $schema: 'x',
  format: 1,
  updated: '2027-01-01',
  releases: [
    {
      operator: '9.0.2-7',
      clusterTags: ['9.0.2-50'],
      kubernetes: { supported: ['1.36'] },
      upstreamTag: null,
      upstreamTagNote: 'no tag',
      source: ['old'],
    },
  ],
};

function overrides(quote = 'Upgrading directly from 9.0.2-7 to 9.1.0-4 is not supported') {
  return {
    updated: '2027-06-30',
    oldestRelease: '9.0.0-1',
    oldestLine: '6.0',
    afterSnapshot: { reason: 'none', releases: [] },
    platformsUnstated: { reason: 'its notes state none', releases: ['9.0.0-1'] },
    upstreamTags: { reason: 'published after the clone', afterSnapshot: ['9.1.6-1'] },
    advisories: [],
    rules: [
      {
        id: 'no-direct-9-0-2-7-to-9-1-0-4',
        summary: 'not supported',
        appliesTo: { operators: ['9.1.0-4'], runningOperators: ['9.0.2-7'] },
        triggers: [{ kind: 'upgrade' }],
        effect: 'block',
        fix: 'Wait for 9.1.0-6.',
        cites: [{ file: `${NOTES}/9-1-0-releases/9-1-0-4-may2027.md`, where: 'Known limitations', quote }],
      },
    ],
  };
}

async function refresh(): Promise<Refresh> {
  return (await import(pathToFileURL(path.join(root, 'scripts/catalog/refresh.mjs')).href)) as Refresh;
}

describe('npm run catalog:refresh on notes written in the notes format', () => {
  it('reads downloads, variants, OpenShift tags, OLM bundles and their OpenShift ranges, database tables and end of life', async () => {
    const { refreshCatalog } = await refresh();
    const { docs, bundles } = sources();
    const { document, report } = refreshCatalog({
      docs,
      bundles,
      base: BASE,
      overrides: overrides(),
      docsCommit: 'a'.repeat(40),
      bundlesCommit: 'b'.repeat(40),
    });
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.added, ['9.0.0-1', '9.1.0-4', '9.1.4-3', '9.1.6-1']);
    // The one known limitation of the notes is cited by a rule; without the rule it is listed.
    assert.deepEqual(report.uncovered, []);
    const bare = refreshCatalog({ docs, bundles, base: BASE, overrides: { ...overrides(), rules: [] } });
    assert.deepEqual(bare.report.uncovered, [
      `9.1.0-4 ${NOTES}/9-1-0-releases/9-1-0-4-may2027.md: Upgrading directly from 9.0.2-7 to 9.1.0-4 is not supported.`,
    ]);
    const byOperator = new Map(document.releases.map((r) => [r.operator, r]));
    const [v9_1, v9_0] = [SUPPORT_9_1_0_2, SUPPORT_9_0_2_7];
    assert.deepEqual(byOperator.get('9.1.0-4'), {
      operator: '9.1.0-4',
      clusterTags: ['9.1.0-30.4', '9.1.0-41.4'],
      variants: ['minimal'],
      olmBundles: ['9.1.0-4.0', '9.1.0-4.1'],
      olmOpenshiftVersions: { '9.1.0-4.0': 'v4.19-v4.22', '9.1.0-4.1': 'v4.20-v4.23' },
      databaseVersions: ['8.2', '8.4', '9.0'],
      defaultDatabaseVersion: '9.0',
      ...v9_1,
      platformsFrom: '9.1.0-2',
      source: [`${NOTES}/9-1-0-releases/9-1-0-4-june2027.md`, `${NOTES}/9-1-0-releases/9-1-0-4-may2027.md`],
    });
    // The label decides, not the repository; without a redis-enterprise-k8s-docs clone the
    // tag fields are carried from the catalog the script runs on.
    assert.deepEqual(byOperator.get('9.0.2-7'), {
      operator: '9.0.2-7',
      clusterTags: ['9.0.2-55'],
      openshiftClusterTag: '9.0.2-55.rhel8-openshift',
      databaseVersions: ['8.2', '8.4'],
      defaultDatabaseVersion: '8.4',
      ...v9_0,
      platformsFrom: '9.0.2-7',
      upstreamTag: null,
      upstreamTagNote: 'no tag',
      source: [`${NOTES}/previous-releases/k8s-9-0-2-7.md`],
    });
    assert.match(
      String((document.sources as Record<string, string>).carried),
      /^upstreamTag, upstreamTagNote: kept from the catalog the script was run on \(no --k8s-docs clone given\)$/,
    );
    assert.deepEqual(document.releaseLines, [
      {
        rs: '9.1',
        source: [
          `redis/docs@aaaaaaaa content/operate/rs/installing-upgrading/product-lifecycle.md (Cluster version end-of-life schedule)`,
        ],
      },
      {
        rs: '9.0',
        endOfLife: '2029-03-31',
        source: [
          `redis/docs@aaaaaaaa content/operate/rs/installing-upgrading/product-lifecycle.md (Cluster version end-of-life schedule)`,
        ],
      },
    ]);
    const rules = document.rules as { id: string; source: string[]; cites?: unknown }[];
    assert.equal(rules[0]?.id, 'no-direct-9-0-2-7-to-9-1-0-4');
    assert.deepEqual(rules[0]?.source, [
      `redis/docs@aaaaaaaa ${NOTES}/9-1-0-releases/9-1-0-4-may2027.md (Known limitations)`,
    ]);
    assert.equal(rules[0]?.cites, undefined);
    assert.match(
      String((document.sources as Record<string, string>).bundles),
      /certified-operators@bbbbbbbb/,
    );

    // A section the script does not write (an OLM update graph) is carried as it is, last.
    const graph = { package: 'redis-enterprise-operator-cert', csvPrefix: 'x', source: ['y'], bundles: [] };
    const carried = refreshCatalog({ docs, bundles, base: { ...BASE, olm: graph }, overrides: overrides() });
    assert.deepEqual(carried.document.olm, graph);
    assert.equal(Object.keys(carried.document).at(-1), 'olm');
  });

  it('the reviewed list covers items by ticket (in the text or a comment) or title; a new item stays listed', async () => {
    const { refreshCatalog } = await refresh();
    const { docs, bundles } = sources();
    const file = `${NOTES}/9-1-0-releases/9-1-0-6-july2027.md`;
    write(
      docs,
      file,
      note(
        'Redis Software for Kubernetes 9.1.0-6 (July 2027) release notes',
        [
          '## Downloads',
          '',
          '- **Redis Software**: `redislabs/redis:9.1.0-44.6`',
          '',
          '## Breaking changes',
          '',
          '- **Gadgets are no longer supported.** Remove them first.',
          '',
          '## Known limitations',
          '',
          '- **Readiness probe reports wrong (RED-39300)** Nothing to do.',
          '- **Ticket in a comment.** The newer notes put it after the text. <!--RED-4242-->',
          '- **A limitation nobody has read yet.** New.',
        ].join('\n'),
      ),
    );
    const reviewed = {
      items: [
        { refs: ['RED-39300'], verdict: 'not-observable', reason: 'a probe' },
        { refs: ['RED-4242'], verdict: 'not-upgrade', reason: 'not an upgrade' },
        {
          titles: ['Gadgets are no longer supported'],
          files: [file],
          verdict: 'check',
          check: 'x',
          reason: 'a check',
        },
        { titles: ['Something the notes dropped'], verdict: 'not-upgrade', reason: 'gone' },
      ],
    };
    const { report } = refreshCatalog({ docs, bundles, base: BASE, overrides: { ...overrides(), reviewed } });
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.uncovered, [`9.1.0-6 ${file}: A limitation nobody has read yet.`]);
    const counts = (report as unknown as { reviewed: Record<string, number> }).reviewed;
    assert.equal(counts.entries, 4);
    // Three reviewed items, and the 9.1.0-4 limitation its rule quotes.
    assert.equal(counts.items, 4);
    assert.deepEqual((report as unknown as { notices: string[] }).notices, [
      'reviewed Something the notes dropped: matches no item',
    ]);

    // A verdict outside the list, or a rule verdict naming no rule, stops the script.
    const bad = {
      items: [
        { refs: ['RED-39300'], verdict: 'fine', reason: 'x' },
        { refs: ['RED-4242'], verdict: 'rule', rule: 'no-such-rule', reason: 'x' },
      ],
    };
    const broken = refreshCatalog({
      docs,
      bundles,
      base: BASE,
      overrides: { ...overrides(), reviewed: bad },
    });
    assert.equal(broken.report.problems.length, 2, broken.report.problems.join('\n'));
    assert.match(broken.report.problems[1] ?? '', /rule no-such-rule is not in the overrides' rules/);
  });

  it('reads each release\'s platforms from the "Version history" column its notes lead to', async () => {
    const { refreshCatalog } = await refresh();
    const { docs, bundles } = sources();
    const { document, report } = refreshCatalog({ docs, bundles, base: BASE, overrides: overrides() });
    assert.deepEqual(report.problems, []);
    const platforms = Object.fromEntries(
      document.releases.map((r) => [
        r.operator,
        { kubernetes: r.kubernetes, openshift: r.openshift, platformsFrom: r.platformsFrom },
      ]),
    );
    assert.deepEqual(platforms, {
      // In platformsUnstated: nothing is written for it.
      '9.0.0-1': { kubernetes: undefined, openshift: undefined, platformsFrom: undefined },
      // Its own column; OpenShift "4.09" is 4.9, an end-of-life cell is not listed.
      '9.0.2-7': { ...SUPPORT_9_0_2_7, platformsFrom: '9.0.2-7' },
      // No column of its own: its line's (9.1.0-2).
      '9.1.0-4': { ...SUPPORT_9_1_0_2, platformsFrom: '9.1.0-2' },
      // No column for its line: its notes send to the 9.1.0 releases' page.
      '9.1.4-3': { ...SUPPORT_9_1_0_2, platformsFrom: '9.1.0-2' },
      // Its notes send to 9.1.4-3's notes, whose own send on to 9.1.0.
      '9.1.6-1': { ...SUPPORT_9_1_0_2, platformsFrom: '9.1.0-2' },
    });
    assert.match(
      String((document.sources as Record<string, string>).platforms),
      /supported_k8s_distributions\.md \("Version history"[^]*platformsUnstated of the overrides have none: its notes state none$/,
    );

    // A release nothing covers is a problem until the overrides say why; a listed one that a
    // column covers is a problem too (the override is stale).
    const unlisted = refreshCatalog({
      docs,
      bundles,
      base: BASE,
      overrides: { ...overrides(), platformsUnstated: { reason: 'x', releases: ['9.0.2-7'] } },
    });
    assert.deepEqual(unlisted.report.problems, [
      '9.0.0-1: no column of content/operate/kubernetes/reference/supported_k8s_distributions.md covers it and its notes send to none (list it in platformsUnstated of the overrides, with the reason, if no source states its platforms)',
      '9.0.2-7 is in platformsUnstated but content/operate/kubernetes/reference/supported_k8s_distributions.md covers it (column 9.0.2-7): drop it',
    ]);
  });

  it('reads upstreamTag from the tags of a redis-enterprise-k8s-docs clone, trusting a tag only with its own bundle', async () => {
    const { refreshCatalog } = await refresh();
    const { docs, bundles } = sources();
    const clone = k8sDocs();
    const { document, report } = refreshCatalog({
      docs,
      bundles,
      k8sDocs: clone.dir,
      base: BASE,
      overrides: overrides(),
    });
    assert.deepEqual(report.problems, []);
    const tags = Object.fromEntries(
      document.releases.map((r) => [r.operator, { upstreamTag: r.upstreamTag, note: r.upstreamTagNote }]),
    );
    assert.deepEqual(tags, {
      // No tag at all, and not published after the clone.
      '9.0.0-1': {
        upstreamTag: null,
        note: 'RedisLabs/redis-enterprise-k8s-docs has no git tag v9.0.0-1, so its bundle cannot be downloaded',
      },
      // Tagged without the v (the base's null is replaced by what the clone says).
      '9.0.2-7': { upstreamTag: '9.0.2-7', note: undefined },
      // v<operator> holds its bundle: the default, nothing written.
      '9.1.0-4': { upstreamTag: undefined, note: undefined },
      // Its tag holds another release's bundle.
      '9.1.4-3': {
        upstreamTag: null,
        note: "git tag v9.1.4-3 of RedisLabs/redis-enterprise-k8s-docs holds another release's bundle (9.1.6-1)",
      },
      // Published after the clone (upstreamTags.afterSnapshot): the default.
      '9.1.6-1': { upstreamTag: undefined, note: undefined },
    });
    const sourcesOf = document.sources as Record<string, string>;
    assert.match(
      String(sourcesOf.tags),
      new RegExp(`^RedisLabs/redis-enterprise-k8s-docs@${clone.head.slice(0, 8)} `),
    );
    assert.match(
      String(sourcesOf.tags),
      /upstreamTags\.afterSnapshot of the overrides: published after the clone$/,
    );
    assert.equal(sourcesOf.carried, undefined);

    // A release listed as published after the clone while the clone has its tag: stale.
    const stale = refreshCatalog({
      docs,
      bundles,
      k8sDocs: clone.dir,
      base: BASE,
      overrides: { ...overrides(), upstreamTags: { reason: 'x', afterSnapshot: ['9.1.6-1', '9.1.0-4'] } },
    });
    assert.deepEqual(stale.report.problems, [
      '9.1.0-4 is in upstreamTags.afterSnapshot but the redis-enterprise-k8s-docs clone has its tag: drop it',
    ]);
  });

  it('reads the breaking changes and known limitations of the RS line pages the overrides name', async () => {
    const { refreshCatalog } = await refresh();
    const { docs, bundles } = sources();
    const page = 'content/operate/rs/release-notes/rs-9-1-releases/_index.md';
    write(
      docs,
      page,
      [
        '---',
        'title: Redis Software release notes 9.1',
        '---',
        '## Version changes',
        '',
        '### Breaking changes',
        '',
        '- Upgrading to 9.1.0 through 9.1.2 breaks [widgets](/x). More text.',
        '',
        '    - A nested detail that is not an item.',
        '',
        '- **Sprockets are write-only.** Read them elsewhere.',
        '',
        '#### Redis database version 9.1 breaking changes',
        '',
        '- `CMD` returns another reply.',
        '',
        '### Deprecations',
        '',
        '- Not an item.',
        '',
        '## Known limitations',
        '',
        '#### Rolling upgrades stall with gizmos',
        '',
        'Some text.',
        '',
        '- a sub-bullet of that limitation',
      ].join('\n'),
    );
    const rsNotes = {
      reason: 'x',
      files: [page, 'content/operate/rs/release-notes/rs-9-9-releases/_index.md'],
    };
    const { report } = refreshCatalog({ docs, bundles, base: BASE, overrides: { ...overrides(), rsNotes } });
    assert.deepEqual(
      report.uncovered.filter((line) => line.startsWith('RS ')),
      [
        `RS 9.1 ${page}: Upgrading to 9.1.0 through 9.1.2 breaks widgets.`,
        `RS 9.1 ${page}: Sprockets are write-only.`,
        `RS 9.1 ${page}: Redis database version 9.1 breaking changes`,
        `RS 9.1 ${page}: Rolling upgrades stall with gizmos`,
      ],
    );
    assert.deepEqual(report.problems, [
      'rsNotes: content/operate/rs/release-notes/rs-9-9-releases/_index.md is not in the docs checkout',
    ]);
  });

  it('a rule whose quote the notes no longer hold is a problem: nothing is written', async () => {
    const { docs, bundles } = sources();
    const dir = tempDir('ctl-refresh-out-');
    const out = path.join(dir, 'catalog.json');
    const file = path.join(dir, 'overrides.json');
    writeFileSync(out, JSON.stringify(BASE));
    writeFileSync(file, JSON.stringify(overrides('Upgrading from anything is fine')));
    const args = [
      'scripts/catalog-refresh.mjs',
      '--docs',
      docs,
      '--bundles',
      bundles,
      '--k8s-docs',
      k8sDocs().dir,
      '--docs-commit',
      'c'.repeat(40),
      '--out',
      out,
      '--overrides',
      file,
    ];
    const failed = await run(process.execPath, args, { cwd: root }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(failed?.code, 1);
    assert.match(
      failed?.stderr ?? '',
      /rule no-direct-9-0-2-7-to-9-1-0-4: "Upgrading from anything is fine" is no longer in/,
    );
    assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), BASE);

    writeFileSync(file, JSON.stringify(overrides()));
    const wrote = await run(process.execPath, args, { cwd: root });
    assert.match(wrote.stderr, /wrote .*catalog\.json \(5 releases, 1 rules\)/);
    // Run again on the same sources: the file is what they give.
    const check = await run(process.execPath, [...args, '--check'], { cwd: root });
    assert.match(check.stderr, /is what the sources give/);
  });

  it('carries the olm section (the bundles update edges) of the catalog it was run on, as it is', async () => {
    const { refreshCatalog } = await refresh();
    const { docs, bundles } = sources();
    const olm = {
      package: 'redis-enterprise-operator-cert',
      csvPrefix: 'redis-enterprise-operator.v',
      source: ['written by scripts/read-olm-bundles.mjs'],
      bundles: [{ bundle: '9.1.0-4.1', skips: ['9.0.2-7.0', '9.1.0-4.0'] }],
    };
    const { document } = refreshCatalog({
      docs,
      bundles,
      base: { ...BASE, olm },
      overrides: overrides(),
      docsCommit: 'a'.repeat(40),
      bundlesCommit: 'b'.repeat(40),
    });
    assert.deepEqual(document.olm, olm);
    const without = refreshCatalog({
      docs,
      bundles,
      base: BASE,
      overrides: overrides(),
      docsCommit: 'a'.repeat(40),
    });
    assert.equal('olm' in without.document, false);
  });

  it('the shipped catalog carries the commits it was made from', () => {
    const shipped = JSON.parse(readFileSync(path.join(root, 'src/release/catalog.json'), 'utf8')) as {
      sources: Record<string, string>;
    };
    assert.match(shipped.sources.notes ?? '', /redis\/docs@63f31f69 /);
    assert.match(shipped.sources.bundles ?? '', /certified-operators@3b7b563a /);
    assert.match(shipped.sources.platforms ?? '', /^redis\/docs@63f31f69 /);
    assert.match(shipped.sources.tags ?? '', /^RedisLabs\/redis-enterprise-k8s-docs@2c2f61dd /);
    // Nothing is carried from an earlier catalog any more.
    assert.equal(shipped.sources.carried, undefined);
  });
});
