import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseScenario } from '../helpers/simulator.js';
import { worldArbitrary } from './arbitrary.js';
import { undrawnKeys } from './coverage.js';
import { parseWorld, scenarioYaml, worldYaml } from './world.js';

describe('the world generator', () => {
  it('generates only scenarios the simulator accepts, and they survive their YAML', () => {
    const seen = {
      olm: 0,
      helm: 0,
      openshift: 0,
      activeActive: 0,
      noHelm: 0,
      configmap: 0,
      blocked: 0,
      unblocked: 0,
      watchedNamespaces: 0,
      rhel8Module: 0,
      readOnlyApiUser: 0,
      remediate: 0,
      uploadRefused: 0,
      faults: 0,
    };
    const names = new Set<string>();
    const worlds = fc.sample(worldArbitrary, { numRuns: 500, seed: 36 });
    // Every key coverage.ts says the generator draws is drawn, with each value it names.
    assert.deepEqual(undrawnKeys(worlds.map((world) => world.scenario)), []);
    for (const world of worlds) {
      const scenario = parseScenario(scenarioYaml(world), 'generated');
      assert.deepEqual(parseWorld(worldYaml(world)), JSON.parse(JSON.stringify(world)));
      if (scenario.operator.installedBy === 'olm') seen.olm += 1;
      if (scenario.operator.installedBy === 'helm') seen.helm += 1;
      if (scenario.operator.installedBy === 'helm' && !world.ctl.helm) seen.noHelm += 1;
      if (scenario.platform === 'openshift') seen.openshift += 1;
      if (scenario.databases.some((db) => db.activeActive)) seen.activeActive += 1;
      if (world.ctl.stateStore === 'configmap') seen.configmap += 1;
      if (world.blockedBy) seen.blocked += 1;
      else seen.unblocked += 1;
      if (scenario.operator.watchNamespaces.length > 0) seen.watchedNamespaces += 1;
      if (scenario.modules.some((m) => !m.platforms.some((p) => p.startsWith('rhel9/'))))
        seen.rhel8Module += 1;
      if (scenario.cluster.users[0]?.role !== 'admin') seen.readOnlyApiUser += 1;
      if (world.ctl.remediate) seen.remediate += 1;
      if (world.blockedBy?.includes('api-permissions')) seen.uploadRefused += 1;
      if (scenario.faults.length > 0) seen.faults += 1;
      // Names are drawn, not picked from a few.
      names.add(scenario.namespace);
    }
    assert.ok(names.size > 150, `only ${names.size} namespaces in 500 worlds`);
    // About half are meant to be Ready.
    assert.ok(
      seen.blocked > 100 && seen.unblocked > 100,
      `blocked ${seen.blocked}, unblocked ${seen.unblocked}`,
    );
    // Every dimension is reached, not just allowed.
    for (const [what, count] of Object.entries(seen)) assert.ok(count >= 10, `${what}: ${count} of 500`);
  });
});
