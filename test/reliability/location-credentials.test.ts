/**
 * Credentials in the locations the user gives (a private mirror's bundle URL with a token in its
 * query, a helm repository URL with a user and password) are secrets like the password: the plan
 * showed the bundle's token in its check line and in the `kubectl apply -f <url>` it prints, the
 * saved plan and the state file held it, and the run printed it in its progress. `--catalog`'s
 * credentials were redacted already; the bundle's and helm's were not.
 *
 * Now the plan, its JSON, -v, the saved plan, the run's output and the state file show none of
 * it; a run from the saved plan takes the credentials from CTL_BUNDLE again (the plan file keeps
 * none); a helm URL with a user or password is refused, since helm would get it on its command
 * line.
 */

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runOnBed, startBed, TARGET, UPGRADE } from './support.js';

const TOKEN = 'mirror-token-4c1d9e7a2b';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile());
}

describe('credentials in a bundle or helm location are never printed or saved', () => {
  test('a bundle URL with a token: plan, saved plan, run from it, state file', async () => {
    const bed = await startBed('happy-path');
    try {
      const bundle = `${bed.env.CTL_BUNDLE}?token=${TOKEN}`;
      const env = { CTL_BUNDLE: bundle };
      const planFile = path.join(bed.dir, 'plan.json');
      const printed: string[] = [];
      for (const args of [
        ['upgrade', 'plan', '--to', TARGET, '-v'],
        ['upgrade', 'plan', '--to', TARGET, '-o', 'json', '-vv'],
        ['upgrade', 'plan', '--to', TARGET, '--out', planFile],
      ]) {
        const result = await runOnBed(bed, args, { env });
        assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr.slice(-800)}`);
        printed.push(result.stdout, result.stderr);
      }
      // The plan still names the bundle it checked, with the token redacted.
      assert.match(printed[0]!, /bundle\.yaml\?token=\[REDACTED\]/);
      const saved = readFileSync(planFile, 'utf8');
      assert.ok(!saved.includes(TOKEN), 'the saved plan holds the token');

      // The plan file kept no credential: without CTL_BUNDLE the run says where to give it.
      const without = await runOnBed(bed, ['upgrade', 'run', '--plan', planFile, '--yes'], {
        env: { CTL_BUNDLE: undefined },
      });
      assert.equal(without.code, 2, without.stderr);
      assert.match(without.stderr, /bundle location whose credentials a saved plan does not keep/);
      assert.match(without.stderr, /hint: Set CTL_BUNDLE/);

      const run = await runOnBed(bed, ['upgrade', 'run', '--plan', planFile, '--yes', '-v'], { env });
      assert.equal(run.code, 0, run.stderr.slice(-1500));
      assert.equal(bed.changes.operatorImage, 1, 'the bundle was applied');
      printed.push(run.stdout, run.stderr);

      const leaks = printed.filter((text) => text.includes(TOKEN));
      assert.deepEqual(leaks, [], 'printed the token');
      for (const file of filesUnder(bed.stateDir))
        assert.ok(!readFileSync(file, 'utf8').includes(TOKEN), `${file} holds the token`);
    } finally {
      await bed.close();
    }
  });

  test('a helm repository or chart URL with a user and password: refused before helm gets it', async () => {
    const bed = await startBed('helm-installed');
    try {
      const repo = new URL(bed.env.CTL_HELM_REPO!);
      repo.username = 'mirror';
      repo.password = TOKEN;
      for (const [flag, value] of [
        ['--helm-repo', repo.href],
        ['--helm-chart', `oci://mirror:${TOKEN}@registry.example/charts/redis-enterprise-operator`],
      ] as const) {
        for (const command of [
          ['upgrade', 'plan', '--to', TARGET],
          [...UPGRADE, '--dry-run'],
        ]) {
          const result = await runOnBed(bed, [...command, flag, value]);
          assert.equal(result.code, 2, `${flag}: ${result.stderr}`);
          assert.match(result.stderr, new RegExp(`${flag}: the URL holds a user or password`));
          assert.ok(!(result.stdout + result.stderr).includes(TOKEN), result.stderr);
        }
      }
      assert.equal(bed.changes.operatorImage, 0);
    } finally {
      await bed.close();
    }
  });
});
