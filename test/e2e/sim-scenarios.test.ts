/**
 * Every built-in scenario assembles into a whole simulated cluster that the real kubectl reads
 * as the scenario describes it, serves artifacts in the scenario's dialect, and stops cleanly.
 */

import assert from 'node:assert/strict';
import jsYaml from 'js-yaml';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { listScenarios, loadScenario } from '../helpers/simulator.js';
import { startHarness } from './sim-support.js';

function connectError(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
  });
}

describe('sim: every built-in scenario starts and matches its file', () => {
  for (const { name } of listScenarios()) {
    test(name, async () => {
      const scenario = loadScenario(name);
      const sim = await startHarness(name);
      try {
        const { stdout } = await sim.kubectl([
          'get',
          'rec',
          scenario.cluster.name,
          '-n',
          scenario.namespace,
          '-o',
          'jsonpath={.status.state} {.status.licenseStatus.licenseState}',
        ]);
        assert.equal(stdout, `Running ${scenario.cluster.license}`);
        const image = await sim.kubectl([
          'get',
          'deployment/redis-enterprise-operator',
          '-o',
          'jsonpath={.spec.template.spec.containers[0].image}',
        ]);
        if (scenario.operator.olm?.operatorImageByDigest) {
          // By digest only: the owning CSV names the release.
          assert.match(image.stdout, /^[^:@]+(:\d+)?\/[^:@]+@sha256:[0-9a-f]{64}$/);
          const owner = await sim.kubectl([
            'get',
            'deployment/redis-enterprise-operator',
            '-o',
            'jsonpath={.metadata.labels.olm\\.owner}',
          ]);
          assert.equal(owner.stdout, `redis-enterprise-operator.v${scenario.operator.version}`);
        } else {
          assert.ok(image.stdout.endsWith(`:${scenario.operator.version}`), image.stdout);
        }

        const bundleFile = scenario.platform === 'openshift' ? 'openshift.bundle.yaml' : 'bundle.yaml';
        assert.equal(
          sim.cluster.env.CTL_BUNDLE,
          `${sim.cluster.artifactsUrl}/bundles/{version}/${bundleFile}`,
        );
        const bundle = await (
          await fetch(sim.cluster.env.CTL_BUNDLE.replace('{version}', scenario.operator.version))
        ).text();
        const imageSpec =
          scenario.dialect === 'redis' ? 'redisEnterpriseImageSpec' : 'engineEnterpriseImageSpec';
        assert.match(bundle, new RegExp(imageSpec));
        if (scenario.platform === 'openshift') {
          await sim.kubectl(['get', 'securitycontextconstraints', 'redis-enterprise-scc-v2']);
          // Read as kubectl reads it (the quoting is the writer's choice): the operator's env.
          const env = jsYaml
            .loadAll(bundle)
            .flatMap((doc) => {
              const d = doc as {
                kind?: string;
                spec?: { template?: { spec?: { containers?: { env?: unknown[] }[] } } };
              };
              return d.kind === 'Deployment' ? (d.spec?.template?.spec?.containers ?? []) : [];
            })
            .flatMap((container) => container.env ?? []);
          // Every container of the operator's Deployment (operator, admission) is told.
          const flags = env.filter((e) => (e as { name?: string }).name === 'IS_OPENSHIFT');
          assert.ok(flags.length > 0, 'the operator is told it runs on OpenShift');
          for (const flag of flags) assert.deepEqual(flag, { name: 'IS_OPENSHIFT', value: 'true' });
        }
      } finally {
        await sim.close();
      }
      // stop() released every port.
      for (const url of [sim.cluster.kubeUrl, sim.cluster.apiUrl, sim.cluster.artifactsUrl]) {
        assert.equal(await connectError(Number(new URL(url).port)), 'ECONNREFUSED', url);
      }
    });
  }
});
