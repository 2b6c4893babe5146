import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { filesOfGroup, groupFileNames, testFilesUnder } from '../../helpers/file-groups.js';
import { tempDir } from '../../helpers/temp.js';
import { repoRoot } from '../../helpers/tools.js';
import { groupOfEachFile, shortFiles } from '../../short-files/groups.js';

/**
 * The whole run (scripts/run-tests.mjs) runs the unit files and the other folders' short files
 * several to a process: each such file is in exactly one group, none is also run alone; the
 * runner keeps a grouped file's time, so that `--slow-list` can name one grown long, and shows a
 * grouped test's failure with its group's output.
 */

const testRoot = join(repoRoot, 'dist', 'test');

/** The files of each group of `folder` (its group-<n>.test.js files), as groups.ts shares them. */
function groupsOf(folder: string, files: string[]): string[][] {
  const groupsFolder = join(testRoot, folder);
  const names = groupFileNames(groupsFolder);
  const count = names.length;
  assert.ok(count > 0, `no group files in ${groupsFolder}`);
  // Numbered from 1 without a gap: group n imports the n-th share, and a gap would leave one out.
  assert.deepEqual(
    names.sort(),
    Array.from({ length: count }, (_, index) => `group-${index + 1}.test.js`).sort(),
  );
  return Array.from({ length: count }, (_, index) => filesOfGroup(files, groupsFolder, index + 1));
}

/** What scripts/failures-reporter.mjs prints for `events`, with `env` set while it runs. */
async function report(events: AsyncIterable<unknown>, env: Record<string, string>): Promise<string> {
  const reporter = (await import(pathToFileURL(join(repoRoot, 'scripts', 'failures-reporter.mjs')).href)) as {
    default: (source: AsyncIterable<unknown>) => AsyncGenerator<string>;
  };
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  let printed = '';
  try {
    for await (const chunk of reporter.default(events)) printed += chunk;
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  return printed;
}

describe('test groups: the files the whole run shares out', () => {
  it('puts each short file in one group, and no long file (scripts/slow-test-files.json) in any', () => {
    const short = shortFiles();
    const groups = groupsOf('short-files', short);
    assert.deepEqual(groups.flat().sort(), short);
    assert.ok(short.length > 20, `only ${short.length} short files: the groups would not pay`);
    const long = Object.keys(
      JSON.parse(readFileSync(join(repoRoot, 'scripts', 'slow-test-files.json'), 'utf8')) as Record<
        string,
        number
      >,
    );
    for (const file of long) assert.ok(!short.includes(file.replace(/^dist\/test\//, '')), file);
    for (const file of short) {
      assert.match(file, /^(?!unit\/|unit-groups\/|short-files\/|upstream\/).+\.test\.js$/, file);
    }
    // The reporter's map names the same group as the group's own share.
    for (const [index, files] of groups.entries()) {
      for (const file of files) {
        assert.equal(
          groupOfEachFile().get(join(testRoot, file)),
          join(testRoot, 'short-files', `group-${index + 1}.test.js`),
        );
      }
    }
  });

  it('puts each unit file in one unit group', () => {
    const unit = testFilesUnder(join(testRoot, 'unit'));
    assert.deepEqual(groupsOf('unit-groups', unit).flat().sort(), unit);
  });

  it("shows a grouped test's failure with its group's output, and a file's own with its own", async () => {
    const [grouped, group] = [...groupOfEachFile()][0]!;
    const alone = join(testRoot, 'e2e', 'install.test.js');
    async function* events() {
      yield { type: 'test:stdout', data: { file: group, message: 'written in the group\n' } };
      yield { type: 'test:stdout', data: { file: alone, message: 'written alone\n' } };
      for (const file of [grouped, alone]) {
        yield {
          type: 'test:fail',
          data: {
            name: `fails in ${file}`,
            file,
            nesting: 0,
            details: { type: 'test', error: new Error('no') },
          },
        };
      }
    }
    const dir = tempDir('ctl-test-groups-');
    const printed = await report(events(), {
      CTL_TEST_TIMES_FILE: join(dir, 'times.json'),
      CTL_TEST_REPO: repoRoot,
    });
    const [first, second] = printed.split('✖ ').slice(1);
    assert.match(
      first ?? '',
      /its group's output \(.*short-files\/group-\d+\.test\.js, whose other files write/,
    );
    assert.match(first ?? '', /written in the group/);
    assert.match(second ?? '', /its file's output \(last 1 lines\):\n +written alone/);
    assert.match(printed, /0 passed, 2 failed/);
  });

  it("keeps a grouped file's time as the sum of its top-level tests', and the group's as its process's", async () => {
    const dir = tempDir('ctl-test-groups-');
    const group = join(dir, 'group-1.test.js');
    const grouped = join(dir, 'grouped.test.js');
    const helper = join(dir, 'support.js');
    const complete = (name: string, file: string, nesting: number, ms: number) => ({
      type: 'test:complete',
      data: { name, file, nesting, details: { duration_ms: ms, type: 'test' } },
    });
    async function* events() {
      yield complete('first', grouped, 0, 1_200);
      yield complete('inner', grouped, 1, 1_000);
      yield complete('second', grouped, 0, 300);
      yield complete('round trip', helper, 0, 5_000);
      yield complete(group, group, 0, 9_000);
    }
    const timesFile = join(dir, 'times.json');
    const printed = await report(events(), { CTL_TEST_TIMES_FILE: timesFile, CTL_TEST_REPO: dir });
    assert.deepEqual(JSON.parse(readFileSync(timesFile, 'utf8')), {
      'group-1.test.js': 9_000,
      'grouped.test.js': 1_500,
    });
    // The slowest list names the processes the runner started, not the files within them.
    assert.match(printed, /slowest test files \(1 of 1;/);
    assert.match(printed, /group-1\.test\.js/);
    assert.doesNotMatch(printed, /grouped\.test\.js/);
  });

  it("counts a group's tests as its files' in the slowest list", async () => {
    const [grouped, group] = [...groupOfEachFile()][0]!;
    const pass = (name: string) => ({
      type: 'test:pass',
      data: { name, file: grouped, nesting: 1, details: { type: 'test' } },
    });
    async function* events() {
      yield pass('one');
      yield pass('two');
      yield {
        type: 'test:complete',
        data: { name: group, file: group, nesting: 0, details: { duration_ms: 4_000, type: 'test' } },
      };
    }
    const dir = tempDir('ctl-test-groups-');
    const printed = await report(events(), {
      CTL_TEST_TIMES_FILE: join(dir, 'times.json'),
      CTL_TEST_REPO: repoRoot,
    });
    assert.match(printed, / 4\.0 s +2 tests +\S*short-files\/group-\d+\.test\.js\n/);
  });
});
