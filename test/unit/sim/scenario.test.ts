import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fixtureFile } from '../../helpers/fixtures.js';
import { defaultClusterTag } from '../../../src/sim/world/releases.js';
import { ScenarioError } from '../../../src/sim/world/errors.js';
import {
  builtInScenarioDir,
  listScenarios,
  loadScenario,
  nearestNames,
  parseScenario,
  type Scenario,
  withFastTiming,
} from '../../../src/sim/scenario.js';

const BUILT_INS = [
  'happy-path',
  'helm-installed',
  'auto-upgrade',
  'license-invalid',
  'old-operator',
  'old-database',
  'module-without-rhel9',
  'invalid-upgrade',
  'openshift',
  'multi-namespace',
  'legacy-webhook',
  'legacy-api',
  'flaky-api',
  'scale-1000',
  'scale-10000',
  'redis-dialect',
  // happy-path in the neutral field names (issue 38: every other one speaks the real ones)
  'engine-dialect',
  'openshift-rbac-scc',
  'openshift-shared-scc',
  'openshift-auto-adjust',
  'openshift-helm-scc',
  'openshift-7-8',
  // SIMULATOR.md "Scenario keys for real-world situations"
  'ondelete-statefulset',
  'auto-upgrade-no-spec-write',
  'digest-pinned',
  'helm-pinned-values',
  'cluster-role-binding',
  'inline-license',
  'modules-upload-disabled',
  // OperatorHub installs (operator.installedBy: olm)
  'olm-manual',
  'olm-automatic',
  'olm-channel-switch',
  'olm-digest',
  'olm-stable-suffix',
  'olm-no-edge',
];

/** Smallest valid file; each broken-file test adds one mistake to it. */
const MINIMAL = [
  'name: mini',
  'description: smallest valid scenario',
  'operator:',
  '  version: 7.4.6-2',
  'cluster:',
  '  versionTag: 7.4.6-22',
  '',
].join('\n');

function rejection(text: string, sourceName = 'scenarios/broken.yaml'): ScenarioError {
  try {
    parseScenario(text, sourceName);
  } catch (error) {
    assert.ok(error instanceof ScenarioError, `a ScenarioError, got ${String(error)}`);
    assert.equal(error.exitCode, 2);
    return error;
  }
  assert.fail('the scenario was accepted');
}

const isBelow = (a: string, b: string) => {
  const parts = (v: string) => v.split(/[.-]/).map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 4; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
};

describe('built-in scenarios', () => {
  const loaded = new Map<string, Scenario>(BUILT_INS.map((name) => [name, loadScenario(name)]));
  const get = (name: string) => loaded.get(name) as Scenario;

  it('are the fifteen of SIMULATOR.md, the five OpenShift SCC ones and the seven real-world situations, each named after its file with a one-line description', () => {
    const files = readdirSync(builtInScenarioDir()).filter((file) => file.endsWith('.yaml'));
    assert.deepEqual(files.map((file) => file.replace(/\.yaml$/, '')).sort(), [...BUILT_INS].sort());
    for (const [name, scenario] of loaded) {
      assert.equal(scenario.name, name);
      assert.ok(scenario.description.length > 20 && !scenario.description.includes('\n'), name);
    }
    assert.deepEqual(
      listScenarios().map((entry) => entry.name),
      [...BUILT_INS].sort(),
    );
    assert.ok(listScenarios().every((entry) => entry.description === get(entry.name).description));
  });

  it('happy-path: operator 7.4.6-2 by bundle, RS 7.4.6-22, 3 nodes, databases at 7.2, search for rhel8 and rhel9', () => {
    const s = get('happy-path');
    assert.equal(s.dialect, 'redis', 'the real field names (issue 38)');
    assert.equal(get('engine-dialect').dialect, 'engine', 'the neutral ones stay available');
    assert.equal(s.operator.version, '7.4.6-2');
    assert.equal(s.operator.installedBy, 'bundle');
    assert.equal(s.cluster.versionTag, '7.4.6-22');
    assert.equal(s.cluster.apiVersion, '7.4.6-22');
    assert.equal(s.cluster.nodes, 3);
    assert.equal(s.cluster.license, 'Valid');
    assert.deepEqual(s.admission, { enabled: true, webhookName: 'redis-enterprise-admission' });
    assert.ok(
      s.databases.length >= 2 && s.databases.every((db) => db.version === '7.2' && db.namespace === 'redis'),
    );
    const search = s.modules.find((module) => module.name === 'search');
    assert.deepEqual(search?.platforms, ['rhel8/x86_64', 'rhel9/x86_64']);
  });

  it('each scenario differs from happy-path in the way its name says', () => {
    assert.equal(get('helm-installed').operator.installedBy, 'helm');
    assert.equal(get('helm-installed').operator.helmRelease, 'redis-enterprise');
    assert.equal(get('auto-upgrade').cluster.autoUpgrade, true);
    assert.notEqual(get('license-invalid').cluster.license, 'Valid');
    assert.ok(isBelow(get('old-operator').operator.version, '7.4.2-2'));
    assert.ok(get('old-database').databases.some((db) => isBelow(db.version, '7.2')));

    const frozen = get('module-without-rhel9');
    const rhel8Only = frozen.modules.filter(
      (module) => !module.platforms.some((p) => p.startsWith('rhel9/')),
    );
    assert.ok(rhel8Only.length > 0);
    assert.ok(
      frozen.databases.some((db) => db.modules.some((used) => rhel8Only.some((m) => m.name === used.name))),
    );
    // A module whose version has a RHEL9 build to upload (RedisJSON from 2.6.7), not RedisGraph,
    // which has none: the freeze this scenario plays is lifted by an upload.
    assert.deepEqual(
      rhel8Only.map((m) => `${m.name} ${m.version}`),
      ['ReJSON 2.6.10'],
    );
    assert.ok(!frozen.modules.some((m) => m.name === 'graph'));

    const invalid = get('invalid-upgrade').cluster;
    assert.ok(invalid.autoUpgrade && invalid.digestHash !== null);
    assert.equal(get('openshift').platform, 'openshift');
    assert.equal(get('openshift-rbac-scc').openshift.sccBinding, 'rbac');
    assert.deepEqual(get('openshift-shared-scc').openshift.sharedWith, ['redis-b']);
    assert.equal(get('openshift-auto-adjust').cluster.allowAutoAdjustment, true);
    assert.equal(get('openshift-helm-scc').openshift.sccOwner, 'helm');
    assert.equal(get('openshift-7-8').platform, 'openshift');

    const multi = get('multi-namespace');
    const extra = new Set(multi.databases.map((db) => db.namespace).filter((ns) => ns !== multi.namespace));
    assert.equal(extra.size, 2);
    assert.deepEqual([...extra].sort(), [...multi.operator.watchNamespaces].sort());

    const legacyWebhook = get('legacy-webhook');
    assert.equal(legacyWebhook.admission.webhookName, 'redb-admission');
    assert.equal(legacyWebhook.operator.version, '7.4.6-2');

    // Form B only: the management API is older than 7.8.2.
    assert.ok(isBelow(get('legacy-api').cluster.apiVersion, '7.8.2'));
    assert.ok(!isBelow(get('redis-dialect').cluster.apiVersion, '7.8.2'));
    assert.equal(get('redis-dialect').dialect, 'redis');

    const faults = get('flaky-api').faults;
    assert.ok(
      faults.some((f) => f.api === 'rest' && f.rate === 0.2 && f.kind === 'reset' && f.seed !== undefined),
    );
    assert.ok(faults.some((f) => f.api === 'rest' && f.status === 503 && f.kind === 'status'));
    assert.ok(faults.some((f) => f.api === 'kube' && f.match === 'watch' && f.dropAfterSeconds === 3));
  });

  it('scale-1000 expands to 1,000 databases in 20 namespaces, 100 modules and 9 nodes', () => {
    const s = get('scale-1000');
    assert.equal(s.databases.length, 1000);
    assert.equal(new Set(s.databases.map((db) => db.namespace)).size, 20);
    assert.equal(s.modules.length, 100);
    assert.equal(s.cluster.nodes, 9);
    assert.equal(new Set(s.databases.map((db) => `${db.namespace}/${db.name}`)).size, 1000);
    assert.deepEqual(
      s.databases.map((db) => db.uid),
      Array.from({ length: 1000 }, (_, i) => i + 1),
    );
    // Every namespace but the operator's own is watched, or its databases would be unmanaged.
    const watched = new Set([s.namespace, ...s.operator.watchNamespaces]);
    assert.ok(s.databases.every((db) => watched.has(db.namespace)));
    const moduleNames = new Set(s.modules.map((module) => module.name));
    const users = s.databases.filter((db) => db.modules.length > 0);
    assert.ok(
      users.length > 0 && users.every((db) => db.modules.every((used) => moduleNames.has(used.name))),
    );
    assert.ok(
      readFileSync(path.join(builtInScenarioDir(), 'scale-1000.yaml'), 'utf8').split('\n').length < 60,
    );
  });
});

describe('scale-10000', () => {
  it('expands to 10,000 databases in 100 watched namespaces, from a short file', () => {
    const s = loadScenario('scale-10000');
    assert.equal(s.databases.length, 10_000);
    const namespaces = new Set(s.databases.map((db) => db.namespace));
    assert.equal(namespaces.size, 100);
    assert.ok(namespaces.has('redis') && namespaces.has('redis-002') && namespaces.has('redis-100'));
    const watched = new Set([s.namespace, ...s.operator.watchNamespaces]);
    assert.ok([...namespaces].every((namespace) => watched.has(namespace)));
    assert.equal(new Set(s.databases.map((db) => `${db.namespace}/${db.name}`)).size, 10_000);
    assert.equal(s.databases[9_999]?.name, 'db-10000');
    assert.equal(s.modules.length, 100);
    assert.ok(
      readFileSync(path.join(builtInScenarioDir(), 'scale-10000.yaml'), 'utf8').split('\n').length < 60,
    );
  });
});

describe('defaults', () => {
  const s = parseScenario(MINIMAL, 'mini.yaml');

  it('fills in every documented default', () => {
    assert.equal(s.dialect, 'engine');
    assert.equal(s.platform, 'kubernetes');
    assert.equal(s.namespace, 'redis');
    assert.equal(s.kubernetesVersion, '1.32');
    assert.deepEqual(s.timing, { operatorStart: 1, podRestart: 2, databaseUpgrade: 1, failover: 1 });
    assert.deepEqual(s.operator, {
      version: '7.4.6-2',
      installedBy: 'bundle',
      helmRelease: null,
      olm: null,
      watchNamespaces: [],
      roleRefKind: 'Role',
    });
    assert.deepEqual(s.admission, { enabled: true, webhookName: 'redis-enterprise-admission' });
    assert.deepEqual(s.cluster, {
      name: 'rec',
      nodes: 3,
      versionTag: '7.4.6-22',
      repository: 'redislabs/redis',
      autoUpgrade: false,
      upgradePolicy: null,
      digestHash: null,
      license: 'Valid',
      allowAutoAdjustment: false,
      imageSpecs: {},
      licenseIn: 'secret',
      statefulSetStrategy: 'RollingUpdate',
      autoUpgradeWritesSpec: true,
      apiVersion: '7.4.6-22',
      users: [
        { username: 'admin@example.com', password: 'change-me', role: 'admin', passwordExpired: false },
      ],
      roles: [],
    });
    assert.deepEqual([s.modules, s.databases, s.faults, s.objects], [[], [], [], []]);
    assert.deepEqual(s.openshift, { sccBinding: 'users', sccOwner: 'bundle', sharedWith: [] });
    assert.deepEqual(s.api, {
      modulesUpload: 'enabled',
      headerFormAnswer: 400,
      clusterCreatedTime: 'present',
    });
  });

  it('takes RBAC users by role name, built-in or cluster.roles, and refuses a role of no name it knows', () => {
    const rbac = parseScenario(
      MINIMAL.replace(
        '  versionTag: 7.4.6-22',
        '  versionTag: 7.4.6-22\n  roles: [{name: Upgraders, management: admin}]\n  users: [{username: a@example.com, password: p, roles: [Upgraders, DB Viewer]}]',
      ),
      'rbac.yaml',
    );
    assert.deepEqual(rbac.cluster.users[0]?.roles, ['Upgraders', 'DB Viewer']);
    // No `role` given: the API's default for a user created with role_uids alone, db_viewer
    // (objects/user.md; requests/users "Create user"), never admin; its roles decide what it may do.
    assert.equal(rbac.cluster.users[0]?.role, 'db_viewer');
    assert.throws(
      () =>
        parseScenario(
          MINIMAL.replace(
            '  versionTag: 7.4.6-22',
            '  versionTag: 7.4.6-22\n  users: [{username: a@example.com, password: p, roles: [Upgraders]}]',
          ),
          'unknown-role.yaml',
        ),
      /no role named "Upgraders"/,
    );
  });

  it('refuses a role of cluster.roles named like a built-in role or like another entry, naming the entry', () => {
    const withRoles = (roles: string) =>
      MINIMAL.replace('  versionTag: 7.4.6-22', `  versionTag: 7.4.6-22\n  roles: ${roles}`);
    const builtIn = rejection(
      withRoles('[{name: Upgraders, management: admin}, {name: DB Viewer, management: db_member}]'),
    );
    assert.match(
      builtIn.message,
      /cluster\.roles\[1\]\.name: "DB Viewer" is the name of a built-in role, and role names are unique on a cluster: give this role a name of its own/,
    );
    const twice = rejection(
      withRoles('[{name: Upgraders, management: admin}, {name: Upgraders, management: db_viewer}]'),
    );
    assert.match(
      twice.message,
      /cluster\.roles\[1\]\.name: a second role named "Upgraders" \(the first is cluster\.roles\[0\]\)/,
    );
    // A management role's name is no role's name: a custom role may be called so.
    const own = parseScenario(
      withRoles('[{name: db_viewer, management: db_member}, {name: admin, management: cluster_viewer}]'),
      'own.yaml',
    );
    assert.deepEqual(
      own.cluster.roles.map((role) => role.name),
      ['db_viewer', 'admin'],
    );
  });

  it('names the webhook after the operator version and the installer', () => {
    const old = parseScenario(MINIMAL.replace('7.4.6-2', '6.2.18-41'), 'old.yaml');
    assert.equal(old.admission.webhookName, 'redb-admission');
    const helm = parseScenario(
      MINIMAL.replace('  version: 7.4.6-2', '  version: 7.4.6-2\n  installedBy: helm\n  helmRelease: rel'),
      'helm.yaml',
    );
    assert.equal(helm.admission.webhookName, 'redis-enterprise-admission-redis');
  });

  it('derives the API version from the image tag and fills database defaults', () => {
    const text = MINIMAL.replace('7.4.6-22', '8.0.18-36.14').concat(
      'modules:\n  - {name: search, version: 2.10.8, platforms: [rhel9/x86_64]}\n',
      'databases:\n  - {name: a, version: "8.0", uid: 1}\n  - {name: b, version: "8.0", modules: [{name: search}]}\n',
    );
    const scenario = parseScenario(text, 'derived.yaml');
    assert.equal(scenario.cluster.apiVersion, '8.0.18-36');
    const [a, b] = scenario.databases;
    assert.deepEqual(a, {
      name: 'a',
      namespace: 'redis',
      version: '8.0',
      uid: 1,
      modules: [],
      activeActive: false,
      participants: [],
      upgradePolicy: null,
    });
    assert.equal(b?.uid, 2);
    assert.deepEqual(b?.modules, [{ name: 'search', version: '2.10.8' }]);
  });

  it('withFastTiming zeroes every wait and leaves the original alone', () => {
    const fast = withFastTiming(s);
    assert.deepEqual(fast.timing, { operatorStart: 0, podRestart: 0, databaseUpgrade: 0, failover: 0 });
    assert.deepEqual(s.timing, { operatorStart: 1, podRestart: 2, databaseUpgrade: 1, failover: 1 });
    fast.cluster.users.push({ username: 'x', password: 'y', role: 'admin', passwordExpired: false });
    assert.equal(s.cluster.users.length, 1);
  });
});

describe('settings the contract writes that do not apply, or leaves out', () => {
  it("SIMULATOR.md's own example scenario loads: a helmRelease beside a bundle install is ignored", () => {
    const example = parseScenario(
      readFileSync(fixtureFile('simulator-md-example.yaml'), 'utf8'),
      'simulator-md-example.yaml',
    );
    assert.equal(example.operator.installedBy, 'bundle');
    assert.equal(example.operator.helmRelease, null);
    assert.deepEqual(
      example.databases.map((db) => [db.name, db.activeActive]),
      [
        ['db1', false],
        ['aa1', true],
      ],
    );
    assert.equal(example.cluster.users[1]?.passwordExpired, true);
    assert.equal(example.faults.length, 3);
  });

  it('a helm install without helmRelease is release redis-enterprise, as the example names it', () => {
    const helm = parseScenario(
      MINIMAL.replace('  version: 7.4.6-2', '  version: 7.4.6-2\n  installedBy: helm'),
      'helm.yaml',
    );
    assert.equal(helm.operator.helmRelease, 'redis-enterprise');
  });

  it('without cluster.versionTag the cluster runs the RS image its operator release ships', () => {
    const text = MINIMAL.replace('cluster:\n  versionTag: 7.4.6-22\n', '');
    assert.doesNotMatch(text, /versionTag/);
    const plain = parseScenario(text, 'no-tag.yaml');
    const shipped = defaultClusterTag('7.4.6-2', 'kubernetes');
    assert.match(shipped ?? '', /^7\.4\.6-\d+$/);
    assert.equal(plain.cluster.versionTag, shipped);
    assert.equal(plain.cluster.apiVersion, shipped);
    const openshift = parseScenario(text.replace('name: mini', 'name: mini\nplatform: openshift'), 'os.yaml');
    assert.equal(openshift.cluster.versionTag, `${shipped}.rhel8-openshift`);
    const unknown = rejection(text.replace('7.4.6-2', '7.4.6-999'));
    assert.match(
      unknown.message,
      /cluster\.versionTag: required: the simulated world knows no RS image of operator 7\.4\.6-999/,
    );
  });
});

describe('broken scenario files', () => {
  it('a wrong type names the file, the field, the reason and the line', () => {
    const error = rejection(MINIMAL.replace('cluster:\n', 'cluster:\n  nodes: three\n'));
    assert.equal(
      error.message,
      'scenarios/broken.yaml: cluster.nodes: expected a number, got "three" (line 6)',
    );
  });

  it('an unquoted version says to quote it', () => {
    const error = rejection(`${MINIMAL}databases:\n  - {name: db1, version: 7.20}\n`);
    assert.match(
      error.message,
      /^scenarios\/broken\.yaml: databases\[0\]\.version: expected a string, got the number 7\.2: put the value in quotes/,
    );
  });

  it('an unknown dialect lists the known ones', () => {
    const error = rejection(`${MINIMAL}dialect: klingon\n`);
    assert.equal(
      error.message,
      'scenarios/broken.yaml: dialect: expected one of "engine", "redis"; got "klingon" (line 7)',
    );
  });

  it('a database module missing from modules names the database field', () => {
    const text = `${MINIMAL}modules:\n  - {name: ReJSON, version: 2.6.6, platforms: [rhel8/x86_64]}\ndatabases:\n  - {name: db1, version: "7.2"}\n  - {name: db2, version: "7.2", modules: [{name: search, version: 2.8.4}]}\n`;
    const error = rejection(text);
    assert.equal(
      error.message,
      `scenarios/broken.yaml: databases[1].modules[0].name: module "search" is not in the scenario's modules (installed: ReJSON 2.6.6) (line 11)`,
    );
  });

  it('a module version that is not installed is refused', () => {
    const text = `${MINIMAL}modules:\n  - {name: search, version: 2.8.4, platforms: [rhel8/x86_64]}\ndatabases:\n  - {name: db1, version: "7.2", modules: [{name: search, version: 2.10.8}]}\n`;
    assert.match(
      rejection(text).message,
      /databases\[0\]\.modules\[0\]\.version: module "search" 2\.10\.8 is not in/,
    );
  });

  it('bad YAML names the file, line and column', () => {
    const error = rejection('name: x\ndescription: [unclosed\n');
    assert.match(error.message, /^scenarios\/broken\.yaml: line \d+, column \d+: YAML syntax error: /);
    const indented = rejection('name: x\n description: d\n');
    assert.match(indented.message, /^scenarios\/broken\.yaml: line 1, column 7: YAML syntax error: /);
  });

  it('bad YAML next to a password: the place and the yaml error code, never the text', () => {
    const secret = 'Scen-Secret-5531';
    const admin = `${MINIMAL}  users:\n    - username: admin@example.com\n`;
    const cases: [string, RegExp][] = [
      // \U takes 8 hex digits: the parser's message quotes the 8 characters it read.
      [
        `${admin}      password: "\\U${secret.slice(0, 8)}"\n`,
        /^scenarios\/broken\.yaml: line 9, column 18: YAML syntax error: BAD_DQ_ESCAPE$/,
      ],
      [
        `${admin}      password: ${secret}\n        extra: 1\n`,
        /^scenarios\/broken\.yaml: line 9, column \d+: YAML syntax error: [A-Z_]+$/,
      ],
      [
        `${admin}      password: *${secret}\n`,
        /^scenarios\/broken\.yaml: cannot read the scenario: an alias whose anchor is not set before it$/,
      ],
    ];
    for (const [text, expected] of cases) {
      const error = rejection(text);
      assert.match(error.message, expected, text);
      assert.ok(!`${error.message}${error.hint}`.includes(secret.slice(0, 8)), error.message);
      assert.match(error.hint ?? '', /then run again/);
    }
  });

  it('a password of the wrong type: its kind is told, never its value', () => {
    const text = `${MINIMAL}  users:\n    - username: admin@example.com\n      password: 84736251\n`;
    assert.equal(
      rejection(text).message,
      'scenarios/broken.yaml: cluster.users[0].password: expected a string, got a number: put the value in quotes (line 9)',
    );
    const listed = rejection(text.replace('84736251', '[84736251]'));
    assert.match(listed.message, /password: expected a string, got a list \(line 9\)$/);
  });

  it('an unknown field is an error, not silently ignored', () => {
    const error = rejection(MINIMAL.replace('cluster:\n', 'cluster:\n  node: 5\n'));
    assert.equal(error.message, 'scenarios/broken.yaml: cluster.node: unknown field (line 6)');
  });

  it('reports every problem, one per line', () => {
    const error = rejection('name: Bad_Name\ndescription: d\n');
    assert.deepEqual(error.message.split('\n'), [
      'scenarios/broken.yaml: name: expected a Kubernetes name: lower-case letters, digits and "-", starting and ending alphanumeric, got "Bad_Name" (line 1)',
      'scenarios/broken.yaml: operator: required field is missing',
    ]);
  });

  it('fills in an OperatorHub Subscription and checks it against the catalog', () => {
    const olm = (extra: string) =>
      MINIMAL.replace('  version: 7.4.6-2', `  version: 7.4.6-2\n  installedBy: olm${extra}`);
    assert.deepEqual(parseScenario(olm(''), 'olm.yaml').operator.olm, {
      channel: 'production',
      approval: 'Manual',
      startingCSV: 'redis-enterprise-operator.v7.4.6-2',
      operatorImageByDigest: false,
      skips: 'catalog',
      webhookCa: 'olm',
      installFailure: 'none',
    });
    assert.deepEqual(
      parseScenario(olm('\n  olm: {channel: "7.4.6", approval: Automatic}'), 'olm.yaml').operator.olm,
      {
        channel: '7.4.6',
        approval: 'Automatic',
        startingCSV: 'redis-enterprise-operator.v7.4.6-2',
        operatorImageByDigest: false,
        skips: 'catalog',
        webhookCa: 'olm',
        installFailure: 'none',
      },
    );
    // SIMULATOR.md's example: a channel of the user's own naming and a CSV with a rebuild suffix.
    assert.deepEqual(
      parseScenario(
        olm(
          '\n  olm: {channel: stable, startingCSV: redis-enterprise-operator.v7.4.6-2.0, skips: ["7.8.6-11"]}',
        ),
        'olm.yaml',
      ).operator.olm,
      {
        channel: 'stable',
        approval: 'Manual',
        startingCSV: 'redis-enterprise-operator.v7.4.6-2.0',
        operatorImageByDigest: false,
        skips: ['7.8.6-11'],
        webhookCa: 'olm',
        installFailure: 'none',
      },
    );
    assert.equal(parseScenario(olm('\n  olm: {skips: none}'), 'olm.yaml').operator.olm?.skips, 'none');
    assert.match(
      rejection(olm('\n  olm: {startingCSV: redis-enterprise-operator.v7.4.6-9.0}')).message,
      /operator\.olm\.startingCSV: expected redis-enterprise-operator\.v7\.4\.6-2 \(or with a rebuild suffix/,
    );
    assert.match(
      rejection(olm('\n  olm: {skips: ["7.4.6-2"]}')).message,
      /operator\.olm\.skips\[0\]: operator 7\.4\.6-2 is not newer than operator\.version 7\.4\.6-2/,
    );
    assert.match(
      rejection(olm('\n  olm: {skips: ["9.9.9-1"]}')).message,
      /operator\.olm\.skips\[0\]: operator 9\.9\.9-1 is not a release the simulator knows/,
    );
    assert.match(rejection(olm('\n  olm: {skips: some}')).message, /operator\.olm\.skips/);
    assert.match(
      rejection(olm('\n  olm: {channel: "7.8.6"}')).message,
      /operator\.olm\.channel: channel "7\.8\.6" does not offer operator 7\.4\.6-2/,
    );
    assert.match(
      rejection(olm('\n  olm: {startingCSV: redis-enterprise-operator.v7.4.6-9}')).message,
      /operator\.olm\.startingCSV: expected redis-enterprise-operator\.v7\.4\.6-2/,
    );
    const notOlm = MINIMAL.replace('  version: 7.4.6-2', '  version: 7.4.6-2\n  olm: {channel: production}');
    assert.match(rejection(notOlm).message, /operator\.olm: only used when operator\.installedBy is olm/);
  });

  it('checks across fields', () => {
    const unwatched = rejection(
      `${MINIMAL}databases:\n  - {name: db1, namespace: elsewhere, version: "7.2"}\n`,
    );
    assert.match(
      unwatched.message,
      /databases\[0\]\.namespace: namespace "elsewhere" is not watched by the operator/,
    );
    const twice = rejection(
      `${MINIMAL}databases:\n  - {name: db1, version: "7.2"}\n  - {name: db1, version: "7.4"}\n`,
    );
    assert.match(twice.message, /databases\[1\]\.name: database redis\/db1 is listed twice/);
    const idle = rejection(`${MINIMAL}faults:\n  - {api: rest, match: "*"}\n`);
    assert.match(idle.message, /faults\[0\]\.kind: the fault does nothing/);
    const badVersion = rejection(MINIMAL.replace('7.4.6-22', 'latest'));
    assert.match(
      badVersion.message,
      /cluster\.versionTag: expected a version such as "7\.4\.6-22", got "latest"/,
    );
  });
});

describe('loadScenario', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-scenario-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('loads a user file by path and names it in errors', () => {
    const good = path.join(dir, 'mine.yaml');
    writeFileSync(good, MINIMAL);
    assert.equal(loadScenario(good).name, 'mini');
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, MINIMAL.replace('7.4.6-22', '"7.4.6-22"\n  nodes: -1'));
    assert.throws(
      () => loadScenario(bad),
      (error: Error) => error.message.startsWith(`${bad}: cluster.nodes: expected at least 1`),
    );
  });

  it('refuses an unknown name and a missing file with a ScenarioError', () => {
    assert.throws(
      () => loadScenario('no-such-scenario'),
      (error: Error) =>
        error instanceof ScenarioError &&
        /unknown scenario "no-such-scenario"/.test(error.message) &&
        /happy-path/.test(error.hint ?? ''),
    );
    const missing = path.join(dir, 'missing.yaml');
    assert.throws(
      () => loadScenario(missing),
      (error: Error) => error instanceof ScenarioError && error.message.includes(missing),
    );
  });

  it('a mistyped name is answered within its family: an OLM name gets the OLM scenarios, not helm-installed', () => {
    const names = listScenarios().map((scenario) => scenario.name);
    const olm = names.filter((name) => name.startsWith('olm-')).sort();
    assert.ok(olm.length > 2, olm.join(', '));
    // Two letters from helm-installed, far from every olm-* name: all of them are offered.
    assert.deepEqual(nearestNames('olm-installed', names), olm);
    assert.throws(
      () => loadScenario('olm-installed'),
      (error: Error) =>
        error instanceof ScenarioError &&
        error.message === `unknown scenario "olm-installed"; did you mean one of ${olm.join(', ')}?` &&
        !error.message.includes('helm-installed'),
    );
    // Within the family the closest still wins, and a name of no family is matched as before.
    assert.deepEqual(nearestNames('olm-manul', names), ['olm-manual']);
    assert.deepEqual(nearestNames('helm-instaled', names), ['helm-installed']);
    assert.deepEqual(nearestNames('hapy-path', names), ['happy-path']);
    assert.deepEqual(nearestNames('openshfit', names), ['openshift']);
    assert.deepEqual(nearestNames('no-such-scenario', names), []);
  });

  it("reads a file by path with the reader it is given (ctl's bounded one); the reader's own refusal is thrown as it is", () => {
    const file = path.join(dir, 'given.yaml');
    writeFileSync(file, MINIMAL);
    const asked: string[] = [];
    const read = (name: string): string => {
      asked.push(name);
      return readFileSync(name, 'utf8');
    };
    assert.equal(loadScenario(file, read).name, 'mini');
    assert.deepEqual(asked, [file]);
    // A built-in is the package's own file: the reader is not asked.
    assert.equal(loadScenario('happy-path', read).name, 'happy-path');
    assert.deepEqual(asked, [file]);
    const refusal = new Error(`--scenario ${file} is a FIFO (named pipe), not a regular file`);
    assert.throws(
      () =>
        loadScenario(file, () => {
          throw refusal;
        }),
      (error: unknown) => error === refusal,
    );
    // An error of the file system is still the simulator's, naming the file.
    assert.throws(
      () => loadScenario(path.join(dir, 'absent.yaml'), read),
      (error: Error) =>
        error instanceof ScenarioError &&
        /absent\.yaml: cannot read the scenario file: no such file/.test(error.message),
    );
  });

  it('names a built-in file relative to the package in its errors', () => {
    // Built-ins are valid, so check the name through a copy parsed under the same label.
    const text = readFileSync(path.join(builtInScenarioDir(), 'happy-path.yaml'), 'utf8');
    const error = rejection(text.replace('nodes: 3', 'nodes: "3"'), 'scenarios/happy-path.yaml');
    assert.match(
      error.message,
      /^scenarios\/happy-path\.yaml: cluster\.nodes: expected a number, got "3" \(line \d+\)$/,
    );
  });
});

describe('remote participants (remoteClusters, databases[].participants)', () => {
  it('a remote defaults to reachable; a database names remotes the file lists', () => {
    const s = parseScenario(
      `${MINIMAL}remoteClusters:\n  - { name: rerc-east, rsVersion: 7.22.2-179 }\ndatabases:\n  - { name: geo, version: "7.2", activeActive: true, participants: [rerc-east] }\n`,
      'aa.yaml',
    );
    assert.deepEqual(s.remoteClusters, [{ name: 'rerc-east', rsVersion: '7.22.2-179', reachable: true }]);
    assert.deepEqual(s.databases[0]?.participants, ['rerc-east']);
  });

  it('refuses a participant no remote is named after, and participants of a database that is not Active-Active', () => {
    const unknown = rejection(
      `${MINIMAL}databases:\n  - { name: geo, version: "7.2", activeActive: true, participants: [nowhere] }\n`,
    );
    assert.match(unknown.message, /"nowhere" is not in remoteClusters/);
    const plain = rejection(
      `${MINIMAL}remoteClusters:\n  - { name: east, rsVersion: 7.22.2-179 }\ndatabases:\n  - { name: cache, version: "7.2", participants: [east] }\n`,
    );
    assert.match(plain.message, /only an Active-Active database/);
  });
});
