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
  /**
   * What older packers wrote (RedisLabsModules/RAMP): `os` is platform.system() ("Linux") or
   * what --os / the manifest says, and nothing reads it when the package is unpacked; `os_list`
   * (ramp-packer January to February 2023) and `operating_systems` (from February 2023) list the
   * systems, and the unpacker parses every entry of either as a name and a version, refusing the
   * package when one does not parse (RAMP/unpacker.py _validate_metadata, _os_version_parser).
   */
  it('reads the systems of older packages: os_list, an os that names a release; refuses what the unpacker refuses', () => {
    const held = (fields: Record<string, unknown>) =>
      describeModulePackage(
        'rejson.zip',
        zipOf({
          'module.json': metadata({
            module_name: 'ReJSON',
            semantic_version: '2.6.10',
            architecture: 'x86_64',
            ...fields,
          }),
          'rejson.so': 'binary',
        }),
      );
    assert.deepEqual(held({ os: 'Linux', os_list: ['rhel8'] }).operatingSystems, ['rhel8']);
    assert.deepEqual(held({ os: 'Linux', os_list: ['rhel9'] }).operatingSystems, ['rhel9']);
    assert.deepEqual(held({ os: 'Linux', operating_systems: ['rhel9'] }).operatingSystems, ['rhel9']);
    assert.deepEqual(held({ os: 'rhel8' }).operatingSystems, ['rhel8']);
    assert.deepEqual(held({ os: 'ubuntu18.04' }).operatingSystems, ['ubuntu18.04']);
    // Built on a Mac: whatever the cluster does with it, it is no RHEL9 build.
    assert.deepEqual(held({ os: 'Darwin' }).operatingSystems, ['Darwin']);
    // "Linux" says the kernel, not the release: not known.
    assert.equal(held({ os: 'Linux' }).operatingSystems, undefined);
    assert.equal(held({ os: 'Linux' }).problem, undefined);
    assert.match(
      held({ operating_systems: ['Linux'] }).problem ?? '',
      /operating_systems entry "Linux" .*module_os_list_invalid/,
    );
    assert.match(held({ os_list: ['rhel9', 'el'] }).problem ?? '', /os_list entry "el"/);
    assert.match(held({ operating_systems: 'rhel9' }).problem ?? '', /operating_systems is not a list/);
    assert.match(
      held({ operating_systems: ['rhel9'], architecture: 'arm64' }).problem ?? '',
      /architecture "arm64".*x86_64 or aarch64.*module_architecture_not_supported/,
    );
    assert.equal(held({ operating_systems: ['rhel9'], architecture: 'aarch64' }).problem, undefined);
  });

  it('judges older packages: a RHEL8 os_list or os fails, a RHEL9 os_list passes, an os of Linux says it cannot tell', () => {
    const given = (fields: Partial<ModulePackage>) =>
      modulePackages(rhel8Only, {
        moduleFiles: 1,
        packages: [pkg({ module: 'search', version: '2.8.4', architecture: 'x86_64', ...fields })],
      });
    const rhel8 = given({ operatingSystems: ['rhel8'] });
    assert.equal(rhel8.status, 'fail');
    assert.match(
      rhel8.message,
      /no --module-file holds the RHEL9 build of search 2\.8\.4; given: p\.zip holds search 2\.8\.4 \(rhel8, x86_64\)/,
    );
    assert.equal(given({ operatingSystems: ['Darwin'] }).status, 'fail');
    assert.equal(given({ operatingSystems: ['rhel9'] }).status, 'pass');
    const unknown = given({});
    assert.equal(unknown.status, 'pass');
    assert.equal(
      unknown.message,
      'the --module-file packages hold search 2.8.4; given: p.zip holds search 2.8.4 (x86_64); p.zip does not say which OS it was built for (its module.json has no operating_systems or os_list, and no os naming a release), so the plan cannot tell whether it is the RHEL9 build',
    );
  });
});
