/**
 * The operator's helm release keeps the values the user installed it with, and those may hold
 * credentials ctl never registered as secrets: a proxy's password in the operator's
 * environment, a registry token. ctl reads them (`helm get values`) for the pinned operator
 * image only; at -vv it logged helm's whole output, so every value was printed. Now helm's
 * output is logged only for the commands that print no values (src/exec/helm.ts).
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { helmPath } from '../helpers/tools.js';
import { figure, runOnBed, startBed, TARGET } from './support.js';

const PROXY_PASSWORD = 'HelmValueProxyPw-7f3a';
const REGISTRY_TOKEN = 'HelmValueRegistryToken-91c2';

describe('helm release values at -vv', () => {
  test("a run at -vv (dry run and real) prints no value of the release, but says helm's output was left out", async () => {
    const bed = await startBed('helm-installed', {
      edit: (scenario) => ({
        ...scenario,
        operator: {
          ...scenario.operator,
          helmValues: {
            operator: { env: { HTTPS_PROXY: `http://svc:${PROXY_PASSWORD}@proxy.example:3128` } },
            registryToken: REGISTRY_TOKEN,
          },
        },
      }),
    });
    try {
      const helm = ['--helm-bin', helmPath(3)];
      const runs = [
        ['upgrade', 'run', '--to', TARGET, '--yes', '--dry-run=server', '-v=9', ...helm],
        ['upgrade', 'run', '--to', TARGET, '--yes', '-vv', ...helm],
      ];
      let leftOut = 0;
      for (const args of runs) {
        const result = await runOnBed(bed, args);
        const printed = `${result.stdout}\n${result.stderr}`;
        assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr.slice(-1500)}`);
        assert.match(
          printed,
          /\$ \S*helm .*get values/,
          'helm get values ran, so its output could have been logged',
        );
        leftOut += (printed.match(/printed \d+ bytes, not shown: they may quote the release's values/g) ?? [])
          .length;
        for (const secret of [PROXY_PASSWORD, REGISTRY_TOKEN])
          assert.ok(!printed.includes(secret), `${args.join(' ')} printed ${secret}`);
      }
      figure(
        `helm values with credentials at -vv: ${runs.length} runs, ${leftOut} helm outputs left out, 0 values printed`,
      );
      assert.ok(leftOut > 0);
    } finally {
      await bed.close();
    }
  });
});
