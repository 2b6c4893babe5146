import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { runChecks } from '../../../src/planning/checks/index.js';
import { describeModulePackage } from '../../../src/planning/module-package-read.js';
import type { ModulePackage } from '../../../src/planning/module-package.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import type { Target } from '../../../src/planning/target.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

const zipOf = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])));
const metadata = (fields: Record<string, unknown>) => JSON.stringify(fields);

/** The fixture's search 2.8.4 built for RHEL8 only: a 7.8.2-6 target freezes on it. */
const rhel8Only = (s: Snapshot) => {
  const search = s.api.modules[0];
  if (search) search.platforms = { 'rhel8/x86_64': {} };
};

function modulePackages(mutate: (s: Snapshot) => void, remediate: Target['remediate'], to = '7.8.2-6') {
  const target: Target = { ...makeTarget({ to }), remediate };
  const check = runChecks(makeSnapshot(mutate), target, { required: REQUIRED_PERMISSIONS }).find(
    (c) => c.id === 'module-packages',
  );
  assert.ok(check);
  return check;
}

const pkg = (fields: Partial<ModulePackage>): ModulePackage => ({ file: 'p.zip', ...fields });

describe('module packages (--remediate --module-file)', () => {
  it('reads module.json from the zip: name, version, systems, architecture; or says why it is none', () => {
    assert.deepEqual(
      describeModulePackage(
        'redisearch.Linux-rhel9-x86_64.2.8.4.zip',
        zipOf({
          'module.json': metadata({
            module_name: 'search',
            semantic_version: '2.8.4',
            operating_systems: ['rhel9'],
            architecture: 'x86_64',
          }),
          'redisearch.so': 'binary',
        }),
      ),
      {
        file: 'redisearch.Linux-rhel9-x86_64.2.8.4.zip',
        module: 'search',
        version: '2.8.4',
        operatingSystems: ['rhel9'],
        architecture: 'x86_64',
      },
    );
    // An older packer's module.json says only `os` (Linux): the systems are not known.
    assert.deepEqual(
      describeModulePackage(
        'a.zip',
        zipOf({ 'module.json': metadata({ module_name: 'bf', semantic_version: '2.6.12', os: 'Linux' }) }),
      ),
      { file: 'a.zip', module: 'bf', version: '2.6.12' },
    );
    const problem = (bytes: Uint8Array) => describeModulePackage('x.zip', bytes).problem;
    assert.equal(problem(strToU8('not really a zip')), 'it is not a zip archive');
    assert.match(problem(zipOf({ 'redisearch.so': 'binary' })) ?? '', /^the zip holds no module\.json/);
    assert.match(
      problem(zipOf({ 'sub/module.json': metadata({ module_name: 'x', semantic_version: '1.0.0' }) })) ?? '',
      /no module\.json/,
    );
    assert.equal(problem(zipOf({ 'module.json': '{' })), 'its module.json is not JSON');
    assert.equal(problem(zipOf({ 'module.json': '[1]' })), 'its module.json is not a JSON object');
    assert.equal(
      problem(zipOf({ 'module.json': metadata({ module_name: 'search' }) })),
      'its module.json names no module_name and semantic_version',
    );
  });

  it('passes without --remediate, and when the target freezes on nothing', () => {
    assert.equal(modulePackages(rhel8Only, undefined).status, 'pass');
    assert.match(modulePackages(rhel8Only, undefined).message, /^no --remediate/);
    // 7.4.6-12 runs RHEL8 images: nothing to upload, the package is only named.
    const early = modulePackages(
      rhel8Only,
      { moduleFiles: 1, packages: [pkg({ module: 'search', version: '2.8.4' })] },
      '7.4.6-12',
    );
    assert.equal(early.status, 'pass');
    assert.match(
      early.message,
      /^no module upload is foreseen for 7\.4\.6-12; given: p\.zip holds search 2\.8\.4$/,
    );
    // Every module in use has a RHEL9 build (the fixture's search has both).
    assert.equal(modulePackages(() => undefined, { moduleFiles: 0, packages: [] }).status, 'pass');
  });

  it('fails on a file that is no module package, whatever the target', () => {
    const broken = modulePackages(() => undefined, {
      moduleFiles: 1,
      packages: [pkg({ file: 'search.zip', problem: 'it is not a zip archive' })],
    });
    assert.equal(broken.status, 'fail');
    assert.equal(
      broken.message,
      'search.zip is no module package the cluster takes: it is not a zip archive (POST /v2/modules would answer HTTP 400 invalid_module)',
    );
    assert.match(broken.fix, /^Pass the RHEL9 package of each module the freeze needs with --module-file/);
  });

  it('fails when no package holds the RHEL9 build of a module the freeze needs; passes when one does', () => {
    const none = modulePackages(rhel8Only, { moduleFiles: 0, packages: [] });
    assert.equal(none.status, 'fail');
    assert.equal(
      none.message,
      '--remediate cannot lift the freeze: no --module-file holds the RHEL9 build of search 2.8.4; none was given',
    );
    const other = modulePackages(rhel8Only, {
      moduleFiles: 2,
      packages: [
        pkg({ file: 'a.zip', module: 'search', version: '2.8.5', operatingSystems: ['rhel9'] }),
        pkg({
          file: 'b.zip',
          module: 'search',
          version: '2.8.4',
          operatingSystems: ['rhel8'],
          architecture: 'x86_64',
        }),
      ],
    });
    assert.equal(other.status, 'fail');
    assert.equal(
      other.message,
      '--remediate cannot lift the freeze: no --module-file holds the RHEL9 build of search 2.8.4; given: a.zip holds search 2.8.5 (rhel9), b.zip holds search 2.8.4 (rhel8, x86_64)',
    );
    const right = modulePackages(rhel8Only, {
      moduleFiles: 1,
      packages: [
        pkg({ module: 'search', version: '2.8.4', operatingSystems: ['rhel9'], architecture: 'x86_64' }),
      ],
    });
    assert.equal(right.status, 'pass');
    assert.equal(
      right.message,
      'the --module-file packages hold the RHEL9 build of search 2.8.4; given: p.zip holds search 2.8.4 (rhel9, x86_64)',
    );
    // A module.json that does not say its systems: the cluster decides, the plan does not refuse it.
    assert.equal(
      modulePackages(rhel8Only, { moduleFiles: 1, packages: [pkg({ module: 'search', version: '2.8.4' })] })
        .status,
      'pass',
    );
    // --ignore-check turns it into a warning like any check.
    const ignored = runChecks(
      makeSnapshot(rhel8Only),
      {
        ...makeTarget({ to: '7.8.2-6', ignoreCheck: ['module-packages'] }),
        remediate: { moduleFiles: 0, packages: [] },
      },
      { required: REQUIRED_PERMISSIONS },
    ).find((c) => c.id === 'module-packages');
    assert.equal(ignored?.status, 'warn');
  });
});
