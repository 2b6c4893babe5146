import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { seededRandom } from '../../../src/sim/rest/faults.js';
import { normalizeKubectlArgs } from '../../../src/cli/kubectl-args.js';
import { parseTokenArgs } from '../../../src/cli/token-args.js';
import { talksToTheApiAlone } from '../../../src/cli/token-scope.js';
import { silentProgram } from '../../helpers/command-tree.js';

/**
 * `ctl auth token`'s own entry reads its arguments without commander (src/cli/token-args.ts).
 * What it accepts must give the action exactly the values commander gives it from the whole
 * tree; what it does not accept goes to the tree. Checked against the real tree for a table and
 * for thousands of generated argument lists, good and bad.
 */

type Values = { all: Record<string, unknown>; own: Record<string, unknown> };
type TreeAnswer = { ran: 'auth token'; values: Values } | { ran: string } | { failed: string };

const STOP = new Error('stop before the action');

/** What the whole tree does with argv: the command it would run and its values, or its error. */
async function treeParse(argv: string[]): Promise<TreeAnswer> {
  const program = await silentProgram(argv);
  let answer: TreeAnswer | undefined;
  program.hook('preAction', (_program: Command, action: Command) => {
    const path = [action.parent?.name(), action.name()].join(' ');
    answer =
      path === 'auth token'
        ? { ran: path, values: { all: action.optsWithGlobals(), own: action.opts() } }
        : { ran: path };
    throw STOP;
  });
  try {
    await program.parseAsync(normalizeKubectlArgs(argv), { from: 'user' });
  } catch (error) {
    if (error !== STOP) return { failed: (error as { code?: string }).code ?? String(error) };
  }
  return answer ?? { failed: 'no action' };
}

async function assertSameAsTree(argv: string[]): Promise<boolean> {
  const fast = parseTokenArgs(argv);
  if (fast === undefined) return false;
  const tree = await treeParse(argv);
  assert.ok(
    'values' in tree,
    `${JSON.stringify(argv)}: token-args accepts, the tree answers ${JSON.stringify(tree)}`,
  );
  assert.deepEqual(fast, tree.values, JSON.stringify(argv));
  return true;
}

const ACCEPTED = [
  ['auth', 'token'],
  ['auth', 'token', '--ttl', '600', '-o', 'json'],
  ['-n', 'redis', '--context', 'c', 'auth', 'token', '--api-url', 'https://127.0.0.1:9443'],
  ['--context=a', 'auth', '--context', 'b', 'token', '--context=c'],
  ['-vv', 'auth', 'token', '-v=8', '-q', '--verbose', '--no-color'],
  ['auth', 'token', '-v', '6', '--v=0', '-qv'],
  ['auth', 'token', '--auth-form', 'body', '--auth-form=header', '--insecure', '--password-stdin'],
  ['auth', 'token', '--username', 'admin@example.com', '--password-file', 'p', '--ca-file', 'ca.pem'],
  ['auth', 'token', '--ttl=', '--output=yaml', '--kubeconfig', 'k', '--cluster', 'rec', '--namespace=ns'],
  ['-n', 'auth', 'auth', 'token'],
];

const LEFT_TO_THE_TREE = [
  [],
  ['auth'],
  ['token'],
  ['auth', 'token', '--help'],
  ['auth', 'token', '-h'],
  ['auth', 'token', '--version'],
  ['help', 'auth', 'token'],
  ['auth', 'token', 'extra'],
  ['auth', 'token', '--ttl'],
  ['auth', 'token', '--ttl', '-5'],
  ['auth', 'token', '--auth-form', 'basic'],
  ['auth', 'token', '--bogus'],
  ['auth', 'token', '--insecure=1'],
  ['auth', 'token', '--', '--ttl', '5'],
  ['auth', '--ttl', '5', 'token'],
  ['--ttl', '5', 'auth', 'token'],
  ['-nredis', 'auth', 'token'],
  ['auth', 'token', '-ojson'],
  ['-n', 'token', 'auth'],
  ['auth', 'tokens'],
  ['upgrade', 'plan'],
];

describe("ctl auth token's own argument reader (token-args.ts)", () => {
  it('reads the plain spellings as the whole tree does', async () => {
    for (const argv of ACCEPTED) assert.ok(await assertSameAsTree(argv), `accepts ${JSON.stringify(argv)}`);
  });

  it('leaves every other spelling, help and bad input to the whole tree', () => {
    for (const argv of LEFT_TO_THE_TREE) {
      assert.equal(parseTokenArgs(argv), undefined, `leaves ${JSON.stringify(argv)} to the tree`);
    }
  });

  it('agrees with the tree on 3,000 generated argument lists (seeded)', async () => {
    const random = seededRandom(29);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const values = [
      'a',
      'json',
      'yaml',
      'text',
      'body',
      'header',
      'auto',
      '600',
      '',
      'auth',
      'token',
      '-x',
      '-v',
    ];
    const globals = [
      ['--kubeconfig', 'v'],
      ['--context', 'v'],
      ['--context=c'],
      ['-n', 'v'],
      ['--namespace', 'v'],
      ['--namespace=n'],
      ['--cluster', 'v'],
      ['-o', 'v'],
      ['--output', 'v'],
      ['--output=json'],
      ['--no-color'],
      ['-v'],
      ['--verbose'],
      ['-q'],
      ['--quiet'],
      ['-vv'],
      ['-qv'],
      ['-vq'],
      ['-v=6'],
      ['-v=8'],
      ['--v=0'],
      ['-v', '6'],
    ];
    const own = [
      ['--ttl', 'v'],
      ['--ttl=5'],
      ['--api-url', 'v'],
      ['--username', 'v'],
      ['--password-stdin'],
      ['--password-file', 'v'],
      ['--ca-file', 'v'],
      ['--insecure'],
      ['--auth-form', 'v'],
      ['--auth-form=body'],
      ['--auth-form=bad'],
    ];
    const odd = [
      '--',
      '-',
      '-h',
      '--help',
      '--version',
      '-nredis',
      '-ojson',
      '--bogus',
      '-x',
      '--ttl',
      'extra',
      'help',
      '--insecure=1',
      '--no-color=x',
      '-vx',
      'auth',
      'token',
    ];
    const option = (list: string[][]) => pick(list).map((word) => (word === 'v' ? pick(values) : word));
    let accepted = 0;
    for (let n = 0; n < 3000; n += 1) {
      const argv: string[] = [];
      const some = (list: string[][], most: number) => {
        for (let k = Math.floor(random() * (most + 1)); k > 0; k -= 1) argv.push(...option(list));
      };
      some(globals, 2);
      argv.push('auth');
      some(globals, 1);
      argv.push('token');
      some([...own, ...own, ...globals], 4);
      // One in three lists gets a word out of place, one it drops or one that does not belong.
      const roll = random();
      if (roll < 0.12) argv.splice(Math.floor(random() * (argv.length + 1)), 0, pick(odd));
      else if (roll < 0.24 && argv.length > 0) argv.splice(Math.floor(random() * argv.length), 1);
      else if (roll < 0.33) argv.splice(Math.floor(random() * (argv.length + 1)), 0, ...option(own));
      if (await assertSameAsTree(argv)) accepted += 1;
    }
    // The comparison means something only if many lists take the fast path.
    assert.ok(accepted > 1000, `only ${accepted} of 3000 lists were accepted`);
  });
});

describe("ctl auth token's own entry serves runs that need the management API alone (token-scope.ts)", () => {
  const env = { CTL_API_URL: 'https://127.0.0.1:9443', CTL_USERNAME: 'admin', CTL_PASSWORD: 'secret' };
  const alone = (argv: string[], environment: NodeJS.ProcessEnv) =>
    talksToTheApiAlone(parseTokenArgs(['auth', 'token', ...argv]) as Values, environment);

  it('with the URL, the username and the password from flags or env', () => {
    assert.equal(alone([], env), true);
    assert.equal(alone(['-o', 'json'], env), true);
    assert.equal(alone(['--api-url', 'https://h:9443', '--username', 'u', '--password-file', 'p'], {}), true);
    assert.equal(alone(['--password-stdin'], { ...env, CTL_PASSWORD: undefined }), true);
  });

  it('not when Kubernetes, a proxy or the YAML writer may be needed', () => {
    assert.equal(alone([], { ...env, CTL_API_URL: '' }), false, 'no URL: found through Kubernetes');
    assert.equal(alone([], { ...env, CTL_USERNAME: undefined }), false, "no username: the cluster's Secret");
    assert.equal(
      alone(['--username', ''], { ...env, CTL_USERNAME: undefined }),
      false,
      'an empty --username is skipped',
    );
    assert.equal(alone([], { ...env, CTL_PASSWORD: '' }), false, "no password: the cluster's Secret");
    assert.equal(alone([], { ...env, HTTPS_PROXY: 'http://proxy:3128' }), false, 'a proxy: undici');
    assert.equal(alone([], { ...env, http_proxy: 'http://proxy:3128' }), false, 'a proxy: undici');
    assert.equal(alone(['-o', 'yaml'], env), false, 'the YAML writer');
  });
});
