import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strToU8 } from 'fflate';
import { runChecks } from '../../../src/planning/checks/index.js';
import { describeModulePackage } from '../../../src/planning/module-package-read.js';
import type { ModulePackage } from '../../../src/planning/module-package.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import type { Target } from '../../../src/planning/target.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';
import { zipOf } from '../../helpers/module-package.js';

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
            version: 20804,
            semantic_version: '2.8.4',
            operating_systems: ['rhel9'],
            architecture: 'x86_64',
            module_file: 'redisearch.so',
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
        zipOf({
          'module.json': metadata({
            module_name: 'bf',
            version: 20612,
            semantic_version: '2.6.12',
            os: 'Linux',
            architecture: 'x86_64',
            module_file: 'redisbloom.so',
          }),
          'redisbloom.so': 'binary',
        }),
      ),
      { file: 'a.zip', module: 'bf', version: '2.6.12', architecture: 'x86_64' },
    );
    const problem = (bytes: Uint8Array) => describeModulePackage('x.zip', bytes).problem;
    assert.equal(problem(strToU8('not really a zip')), 'it is not a zip archive');
    assert.match(problem(zipOf({ 'redisearch.so': 'binary' })) ?? '', /^the zip holds no module\.json/);
    assert.match(
      problem(zipOf({ 'sub/module.json': metadata({ module_name: 'x', semantic_version: '1.0.0' }) })) ?? '',
      /^the zip holds "sub\/module\.json" besides module\.json/,
    );
    assert.equal(problem(zipOf({ 'module.json': '{' })), 'its module.json is not JSON');
    assert.equal(problem(zipOf({ 'module.json': '[1]' })), 'its module.json is not a JSON object');
    assert.equal(
      problem(
        zipOf({ 'module.json': metadata({ module_name: 'search', module_file: 'm.so' }), 'm.so': 'binary' }),
      ),
      'its module.json names no module_name and semantic_version',
    );
  });

  /**
   * What the cluster's unpacker refuses besides (RedisLabsModules/RAMP RAMP/unpacker.py):
   * _validate_zip_file's content rule, the keys it indexes (module_file, architecture, version),
   * and _validate_metadata's version rules. A package Redis's packer wrote has them all.
   */
  it('refuses what the unpacker refuses: other files in the zip, a missing module_file, architecture or version', () => {
    const good = {
      module_name: 'ReJSON',
      version: 20610,
      semantic_version: '2.6.10',
      operating_systems: ['rhel9'],
      architecture: 'x86_64',
      module_file: 'rejson.so',
    };
    const problem = (
      fields: Record<string, unknown>,
      files: Record<string, string> = { 'rejson.so': 'binary' },
    ) => describeModulePackage('rejson.zip', zipOf({ 'module.json': metadata(fields), ...files })).problem;
    assert.equal(problem(good), undefined);
    // deps/ is the unpacker's folder for dependencies.
    assert.equal(
      problem(good, { 'rejson.so': 'binary', 'deps/': '', 'deps/libssl.so.3': 'binary' }),
      undefined,
    );
    assert.match(
      problem(good, { 'rejson.so': 'binary', 'README.md': 'notes' }) ?? '',
      /^the zip holds "README\.md" besides module\.json.*\(invalid_number_of_files\)$/,
    );
    assert.match(
      problem(good, { 'rejson.so': 'binary', 'rejson-debug.so': 'binary' }) ?? '',
      /holds 2 \.so files.*invalid_number_of_files/,
    );
    const without = (key: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== key));
    assert.match(problem(without('module_file')) ?? '', /names no module_file/);
    assert.match(
      problem({ ...good, module_file: 'other.so' }) ?? '',
      /module_file "other\.so", which the zip does not hold/,
    );
    assert.match(problem(without('architecture')) ?? '', /names no architecture/);
    assert.match(problem(without('version')) ?? '', /names no version/);
    assert.match(problem({ ...good, version: 0 }) ?? '', /version is empty \(module_version_missing\)/);
    assert.match(problem({ ...good, version: '' }) ?? '', /module_version_missing/);
    assert.match(
      problem({ ...good, version: 'v2' }) ?? '',
      /version "v2" is not a number \(module_version_not_integer\)/,
    );
    assert.match(problem({ ...good, version: [1] }) ?? '', /module_version_not_integer/);
    // int(float("2.6")) reads: the unpacker takes it.
    assert.equal(problem({ ...good, version: '20610' }), undefined);
    assert.equal(problem({ ...good, version: '2.6' }), undefined);
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
            version: 20610,
            semantic_version: '2.6.10',
            architecture: 'x86_64',
            module_file: 'rejson.so',
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
    // Python iterates a string by its characters: "r" names no version.
    assert.match(
      held({ operating_systems: 'rhel9' }).problem ?? '',
      /operating_systems entry "r" names no system/,
    );
    assert.match(held({ operating_systems: 9 }).problem ?? '', /operating_systems is not a list/);
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
    // RAMP's RLEC_OS_MAP: the RHEL9 rebuilds are Redis Enterprise's rhel9; no other name is.
    for (const os of ['rocky9', 'centos9', 'almalinux9', 'oracle9'])
      assert.equal(given({ operatingSystems: [os] }).status, 'pass', os);
    for (const os of ['rocky8', 'rhel9.4', 'rhel9-fips', 'ubuntu22.04'])
      assert.equal(given({ operatingSystems: [os] }).status, 'fail', os);
    const unknown = given({});
    assert.equal(unknown.status, 'pass');
    assert.equal(
      unknown.message,
      'the --module-file packages hold search 2.8.4; given: p.zip holds search 2.8.4 (x86_64); p.zip does not say which OS it was built for (its module.json has no operating_systems or os_list, and no os naming a release), so the plan cannot tell whether it is the RHEL9 build',
    );
  });
});
