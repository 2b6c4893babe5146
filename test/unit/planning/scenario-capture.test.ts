import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { type CaptureExtras, captureScenario } from '../../../src/planning/scenario-capture.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { parseScenario } from '../../../src/sim/scenario.js';
import { makeSnapshot } from './snapshot-fixture.js';

const NO_EXTRAS: CaptureExtras = { sccSharedWith: [] };
const NOW = new Date('2026-01-02T03:04:05Z');

function capture(snapshot: Snapshot, options: { anonymize?: boolean; extras?: CaptureExtras } = {}) {
  const result = captureScenario(snapshot, options.extras ?? NO_EXTRAS, {
    anonymize: options.anonymize ?? false,
    now: NOW,
  });
  // Every capture must load in the simulator, as `ctl sim up --scenario <file>` loads it.
  const text = stringify(result.scenario);
  return {
    ...result,
    text,
    loaded: parseScenario(text, 'captured.yaml'),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an untyped YAML document, read field by field
    doc: parse(text) as Record<string, any>,
  };
}

describe('captureScenario: a snapshot as a scenario file', () => {
  it('keeps names and versions, and writes no password (the simulator makes one)', () => {
    const { doc, loaded, notes } = capture(makeSnapshot());
    assert.deepEqual(notes, []);
    assert.equal(doc.namespace, 'redis');
    assert.equal(doc.dialect, 'redis');
    assert.equal(doc.kubernetesVersion, '1.32');
    assert.deepEqual(doc.operator, { version: '7.4.6-2', installedBy: 'bundle' });
    assert.equal(doc.cluster.versionTag, '7.4.6-22');
    assert.equal(doc.cluster.apiVersion, '7.4.6-22');
    assert.deepEqual(doc.cluster.users, [{ username: 'admin@example.com', role: 'admin' }]);
    assert.deepEqual(doc.databases, [
      {
        name: 'db1',
        namespace: 'redis',
        version: '7.2',
        uid: 1,
        modules: [{ name: 'search', version: '2.8.4' }],
      },
    ]);
    assert.deepEqual(doc.modules, [
      { name: 'search', version: '2.8.4', platforms: ['rhel8/x86_64', 'rhel9/x86_64'] },
    ]);
    assert.ok((loaded.cluster.users[0]?.password ?? '').length >= 16, 'a random password from the simulator');
  });

  it('the API user with the role the plan read, so a rehearsal judges api-permissions the same', () => {
    const viewer = capture(
      makeSnapshot((s) => {
        s.api.user = { kind: 'read', roles: [{ management: 'db_viewer' }] };
      }),
    );
    assert.deepEqual(viewer.doc.cluster.users, [{ username: 'admin@example.com', role: 'db_viewer' }]);
    const rbac = capture(
      makeSnapshot((s) => {
        s.api.user = {
          kind: 'read',
          roles: [
            { management: 'db_member', name: 'DBA' },
            { management: 'cluster_viewer', name: 'Cluster Viewer' },
          ],
        };
      }),
    );
    assert.deepEqual(rbac.loaded.cluster.users[0]?.roles, ['DBA', 'Cluster Viewer']);
    // The built-in role by its name only: a role of its own with that name is no scenario's.
    assert.deepEqual(rbac.doc.cluster.roles, [{ name: 'DBA', management: 'db_member' }]);
    assert.deepEqual(rbac.notes, []);
    const untold = capture(
      makeSnapshot((s) => {
        s.api.user = { kind: 'not-admin' };
      }),
    );
    // GET /v1/users refused: a reading role that may not list the users either (the simulated
    // API refuses it the list too: test/e2e/sim-capture-api.test.ts).
    assert.deepEqual(untold.doc.cluster.users, [{ username: 'admin@example.com', role: 'cluster_member' }]);
    assert.match(untold.notes.join('\n'), /no admin \(GET \/v1\/users answered 403\).*cluster_member/);
    const unlisted = capture(
      makeSnapshot((s) => {
        s.api.user = { kind: 'unknown', why: 'not among the users', unlisted: true };
      }),
    );
    assert.deepEqual(unlisted.doc.cluster.users, [
      { username: 'admin@example.com', role: 'admin', listed: false },
    ]);
    assert.equal(unlisted.loaded.cluster.users[0]?.listed, false);
    assert.match(unlisted.notes.join('\n'), /not among the users GET \/v1\/users lists.*listed: false/);
    const odd = capture(
      makeSnapshot((s) => {
        s.api.user = { kind: 'unknown', why: 'GET /v1/users answered HTTP 500' };
      }),
    );
    assert.deepEqual(odd.doc.cluster.users, [{ username: 'admin@example.com', role: 'admin' }]);
    assert.match(odd.notes.join('\n'), /could not be read \(GET \/v1\/users answered HTTP 500\)/);
  });

  it("a role limited to some databases keeps them (by namespace/name), so the rehearsal's API limits it the same", () => {
    const rs82 = (roles: { management: string; name?: string; databases?: number[] }[]) =>
      capture(
        makeSnapshot((s) => {
          s.operator!.version = '8.2.0-13';
          s.operator!.image = 'redislabs/operator:8.2.0-13';
          s.cluster!.image.versionTag = '8.2.0-46.13';
          s.api.nodes = s.api.nodes.map((node) => ({ ...node, software_version: '8.2.0-46' }));
          s.api.user = { kind: 'read', roles };
        }),
      );
    const limited = rs82([{ management: 'db_member', name: 'Orders team', databases: [1] }]);
    assert.deepEqual(limited.doc.cluster.roles, [
      { name: 'Orders team', management: 'db_member', databases: ['redis/db1'] },
    ]);
    assert.deepEqual(limited.loaded.cluster.roles[0]?.databases, ['redis/db1']);
    assert.deepEqual(limited.loaded.cluster.users[0]?.roles, ['Orders team']);
    assert.deepEqual(limited.notes, []);
    // No database of the capture has uid 7: said, and the role cannot name it.
    const elsewhere = rs82([{ management: 'db_viewer', name: 'Audit', databases: [1, 7] }]);
    assert.deepEqual(elsewhere.doc.cluster.roles[0].databases, ['redis/db1']);
    assert.match(
      elsewhere.notes.join('\n'),
      /role Audit is limited to database uid 7, which the capture holds no database for: the captured role is limited to the others only/,
    );
    const nowhere = rs82([{ management: 'db_viewer', name: 'Audit', databases: [7] }]);
    assert.equal(nowhere.doc.cluster.roles[0].databases, undefined);
    assert.match(nowhere.notes.join('\n'), /not limited to any database, so it may do more in the rehearsal/);
    // Under --anonymize the role names the databases' new names.
    const anonymized = capture(
      makeSnapshot((s) => {
        s.operator!.version = '8.2.0-13';
        s.operator!.image = 'redislabs/operator:8.2.0-13';
        s.cluster!.image.versionTag = '8.2.0-46.13';
        s.api.nodes = s.api.nodes.map((node) => ({ ...node, software_version: '8.2.0-46' }));
        s.api.user = { kind: 'read', roles: [{ management: 'db_member', name: 'Team', databases: [1] }] };
      }),
      { anonymize: true },
    );
    assert.deepEqual(anonymized.doc.cluster.roles[0].databases, ['namespace-1/database-1']);
    assert.doesNotMatch(anonymized.text, /db1/);
  });

  it('allow_modules_upload off (RS 8.2 and later report it) becomes api.modulesUpload: disabled', () => {
    const rs82 = (allowed: boolean | undefined) =>
      capture(
        makeSnapshot((s) => {
          s.operator!.version = '8.2.0-13';
          s.operator!.image = 'redislabs/operator:8.2.0-13';
          s.cluster!.image.versionTag = '8.2.0-46.13';
          s.api.nodes = s.api.nodes.map((node) => ({ ...node, software_version: '8.2.0-46' }));
          s.api.modulesUploadAllowed = allowed;
        }),
      );
    const off = rs82(false);
    assert.deepEqual(off.doc.api, { modulesUpload: 'disabled' });
    assert.equal(off.loaded.api.modulesUpload, 'disabled');
    assert.equal(rs82(true).doc.api, undefined, 'on: the default');
    assert.equal(capture(makeSnapshot()).doc.api, undefined, 'an older RS has no such setting');
  });

  it("modules by the API's is_bundled: uploads as custom, bundled ones only where used, deprecated ones by the catalog's rules", () => {
    const platforms = { 'rhel9/x86_64': {} };
    const { doc, loaded } = capture(
      makeSnapshot((s) => {
        s.api.modules = [
          { uid: 'm1', module_name: 'search', semantic_version: '2.8.4', platforms, is_bundled: true },
          { uid: 'm2', module_name: 'ReJSON', semantic_version: '2.6.6', platforms, is_bundled: true },
          { uid: 'm3', module_name: 'search', semantic_version: '2.8.99', platforms, is_bundled: false },
          { uid: 'm4', module_name: 'graph', semantic_version: '2.10.12', platforms, is_bundled: true },
        ];
        s.api.bdbs[0]!.module_list = [
          { module_name: 'search', semantic_version: '2.8.4' },
          { module_name: 'graph', semantic_version: '2.10.12' },
        ];
      }),
    );
    assert.deepEqual(
      doc.modules.map(
        (m: { name: string; version: string; kind?: string }) => `${m.name} ${m.version} ${m.kind}`,
      ),
      ['search 2.8.4 bundled', 'search 2.8.99 custom', 'graph 2.10.12 deprecated'],
    );
    // The simulator takes them as written: the same three kinds, so the same is_bundled.
    assert.deepEqual(
      loaded.modules.map((m) => m.kind),
      ['bundled', 'custom', 'deprecated'],
    );
  });

  it('keeps the licence as its state only, inline or in a Secret', () => {
    const { doc } = capture(
      makeSnapshot((s) => {
        s.cluster!.license = { state: 'Expired' };
        s.cluster!.licenseInline = true;
      }),
    );
    assert.equal(doc.cluster.license, 'Expired');
    assert.equal(doc.cluster.licenseIn, 'spec');
  });

  it('helm: the release and only the pinned operator image of its values', () => {
    const { doc } = capture(
      makeSnapshot((s) => {
        s.operator!.helmRelease = { name: 'my-release', namespace: 'redis' };
        s.helmRelease = {
          name: 'my-release',
          namespace: 'redis',
          revision: 2,
          status: 'deployed',
          pinnedOperatorImage: { tag: '7.4.6-2' },
        };
        s.webhooks[0]!.name = 'redis-enterprise-admission-redis';
      }),
    );
    assert.equal(doc.operator.installedBy, 'helm');
    assert.equal(doc.operator.helmRelease, 'my-release');
    assert.deepEqual(doc.operator.helmValues, { operator: { image: { tag: '7.4.6-2' } } });
    assert.equal(doc.admission.webhookName, 'redis-enterprise-admission-redis');
  });

  it('--anonymize replaces namespaces, cluster, databases and release consistently', () => {
    const snapshot = makeSnapshot((s) => {
      s.watchedNamespaces = ['redis', 'team-a'];
      s.databases.push({ ...s.databases[0]!, name: 'orders', namespace: 'team-a', databaseUid: '2' });
      s.api.bdbs.push({ uid: 2, name: 'orders', redis_version: '7.2' });
      s.operator!.helmRelease = { name: 'prod-release', namespace: 'redis' };
      s.webhooks[0]!.name = 'redis-enterprise-admission-redis';
    });
    const { doc, text } = capture(snapshot, { anonymize: true });
    for (const real of ['team-a', 'db1', 'orders', 'prod-release', 'sim'])
      assert.ok(!text.includes(real), real);
    assert.equal(doc.namespace, 'namespace-1');
    assert.deepEqual(doc.operator.watchNamespaces, ['namespace-2']);
    assert.equal(doc.cluster.name, 'cluster-1');
    const rec = capture(
      makeSnapshot((s) => {
        s.cluster!.name = 'rec';
        s.olm = { csv: 'redis-enterprise-operator.v7.4.6-2', installPlans: [] };
      }),
      { anonymize: true },
    );
    assert.equal(rec.doc.cluster.name, 'rec', 'under OLM, rec (the only name it accepts) is kept');
    assert.equal(doc.admission.webhookName, 'redis-enterprise-admission-namespace-1');
    assert.deepEqual(
      doc.databases.map((d: { name: string; namespace: string }) => `${d.namespace}/${d.name}`),
      ['namespace-1/database-1', 'namespace-2/database-2'],
    );
  });

  it('without the management API: versions from the resources, module platforms assumed, and said so', () => {
    const { doc, notes } = capture(
      makeSnapshot((s) => {
        s.api = { reachable: false, error: 'connect ECONNREFUSED', modules: [], bdbs: [], nodes: [] };
      }),
    );
    assert.equal(doc.databases[0].version, '7.2');
    assert.equal(doc.cluster.apiVersion, undefined);
    assert.deepEqual(doc.modules[0].platforms, ['rhel8/x86_64', 'rhel9/x86_64']);
    assert.match(notes.join('\n'), /could not be read \(connect ECONNREFUSED\)/);
    assert.match(notes.join('\n'), /module search 2\.8\.4: platforms unknown/);
  });

  it('OpenShift: the SCC binding and the namespaces sharing it; OnDelete; ClusterRole bindings', () => {
    const { doc } = capture(
      makeSnapshot((s) => {
        s.platform = 'openshift';
        s.scc = { name: 'redis-enterprise-scc-v2', present: true, users: [] };
      }),
      {
        extras: {
          sccBinding: 'rbac',
          sccSharedWith: ['redis-b'],
          statefulSetStrategy: 'OnDelete',
          roleRefKind: 'ClusterRole',
        },
      },
    );
    assert.deepEqual(doc.openshift, { sccBinding: 'rbac', sccOwner: 'bundle', sharedWith: ['redis-b'] });
    assert.equal(doc.cluster.statefulSetStrategy, 'OnDelete');
    assert.equal(doc.operator.roleRefKind, 'ClusterRole');
  });

  it('refuses an operator image without a version tag, naming it', () => {
    assert.throws(
      () =>
        capture(
          makeSnapshot((s) => {
            s.operator!.version = undefined;
            s.operator!.image = 'registry.example.com/operator@sha256:abc';
          }),
        ),
      /operator image registry\.example\.com\/operator@sha256:abc carries no operator version/,
    );
  });
});
