import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, FormData, request } from 'undici';
import { parseScenario, type Scenario } from '../../../src/sim/scenario.js';
import { ScenarioError } from '../../../src/sim/world/errors.js';
import { modulePackageBytes } from '../../helpers/module-package.js';
import { ADMIN, type SimFixture, startSim } from './rest/fixture.js';

/**
 * The simulator's module kinds (src/sim/world/module-kinds.ts): where a module came from, by the
 * scenario's word or, without one, by its name and the cluster's Redis Software; and what the
 * management API makes of it (the module object's `is_bundled`).
 */

/** The operator release that ships each cluster image used here (world/releases.ts). */
const OPERATOR_OF: Record<string, string> = {
  '7.4.6-22': '7.4.6-2',
  '7.8.6-263': '7.8.6-15',
  '7.22.2-179': '7.22.2-43',
  '8.0.20-96.26': '8.0.20-26',
  '8.2.0-78.18': '8.2.0-18',
};

function scenarioOn(versionTag: string, modules: string): Scenario {
  return parseScenario(
    [
      'name: kinds',
      'description: module kinds',
      'namespace: quarry',
      `operator: { version: ${OPERATOR_OF[versionTag] ?? 'unknown'} }`,
      `cluster: { name: slate, versionTag: ${versionTag} }`,
      'modules:',
      modules,
      '',
    ].join('\n'),
    'kinds.yaml',
  );
}

function rejection(versionTag: string, modules: string): string {
  try {
    scenarioOn(versionTag, modules);
  } catch (error) {
    assert.ok(error instanceof ScenarioError, `a ScenarioError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('the scenario was accepted');
}

const kindsOf = (scenario: Scenario) =>
  Object.fromEntries(scenario.modules.map((module) => [module.name, module.kind]));

const FOUR = [
  '  - { name: ReJSON, version: 2.6.6, platforms: [rhel8/x86_64] }',
  '  - { name: graph, version: 2.10.12, platforms: [rhel8/x86_64] }',
  '  - { name: redisgears_2, version: 2.0.20, platforms: [rhel8/x86_64] }',
  '  - { name: quillmod, version: 1.0.3, platforms: [rhel8/x86_64] }',
].join('\n');

describe('module kinds in a scenario', () => {
  it('without a kind: deprecated for RedisGraph and RedisGears 2, bundled where the RS ships the name, custom otherwise', () => {
    assert.deepEqual(kindsOf(scenarioOn('7.4.6-22', FOUR)), {
      ReJSON: 'bundled',
      graph: 'deprecated',
      redisgears_2: 'deprecated',
      quillmod: 'custom',
    });
    // The same names on RS 8.2: the standard ones are still bundled, the others unchanged.
    assert.deepEqual(kindsOf(scenarioOn('8.2.0-78.18', FOUR)), {
      ReJSON: 'bundled',
      graph: 'deprecated',
      redisgears_2: 'deprecated',
      quillmod: 'custom',
    });
  });

  it('bundled only where the cluster RS ships it: RedisGraph up to RS 7.8, RedisGears 2 with RS 7.2 and 7.4', () => {
    const graph = '  - { name: graph, version: 2.10.12, platforms: [rhel8/x86_64], kind: bundled }';
    assert.equal(scenarioOn('7.8.6-263', graph).modules[0]?.kind, 'bundled');
    assert.match(
      rejection('7.22.2-179', graph),
      /modules\[0\]\.kind: Redis Software 7\.22\.2 ships no module "graph"/,
    );
    const gears = '  - { name: redisgears_2, version: 2.0.20, platforms: [rhel8/x86_64], kind: bundled }';
    assert.equal(scenarioOn('7.4.6-22', gears).modules[0]?.kind, 'bundled');
    assert.match(rejection('7.8.6-263', gears), /ships no module "redisgears_2"/);
    // A module the simulated world does not know is the scenario's own: taken as written.
    const own = '  - { name: quillmod, version: 1.0.3, platforms: [rhel9/x86_64], kind: bundled }';
    assert.equal(scenarioOn('8.0.20-96.26', own).modules[0]?.kind, 'bundled');
  });

  it('deprecated only for the deprecated modules; an unknown kind is refused by the schema', () => {
    assert.match(
      rejection(
        '7.22.2-179',
        '  - { name: search, version: 2.8.4, platforms: [rhel9/x86_64], kind: deprecated }',
      ),
      /modules\[0\]\.kind: "search" is not a deprecated module: Redis Software deprecated graph and redisgears_2/,
    );
    assert.match(
      rejection('7.22.2-179', '  - { name: search, version: 2.8.4, platforms: [rhel9/x86_64], kind: stock }'),
      /modules\[0\]\.kind/,
    );
  });

  it('custom whatever the name: a custom build of search is allowed beside the bundled one', () => {
    const scenario = scenarioOn(
      '7.22.2-179',
      [
        '  - { name: search, version: 2.10.15, platforms: [rhel9/x86_64] }',
        '  - { name: search, version: 2.10.99, platforms: [rhel9/x86_64], kind: custom }',
      ].join('\n'),
    );
    assert.deepEqual(
      scenario.modules.map((m) => `${m.version} ${m.kind}`),
      ['2.10.15 bundled', '2.10.99 custom'],
    );
  });
});

describe('the management API reports where each module came from (is_bundled)', () => {
  let sim: SimFixture;
  let agent: Agent;
  const get = async (path: string) => {
    const res = await request(`${sim.url}${path}`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`,
      },
      dispatcher: agent,
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  };
  const bundledByName = async () => {
    const list = (await get('/v1/modules')).body as unknown as {
      module_name: string;
      semantic_version: string;
      is_bundled: boolean;
    }[];
    return Object.fromEntries(list.map((m) => [`${m.module_name} ${m.semantic_version}`, m.is_bundled]));
  };

  before(async () => {
    const scenario = scenarioOn(
      '7.4.6-22',
      [FOUR, '  - { name: search, version: 2.8.99, platforms: [rhel8/x86_64], kind: custom }'].join('\n'),
    );
    sim = await startSim({ serverVersion: scenario.cluster.apiVersion, modules: scenario.modules, bdbs: [] });
    agent = new Agent({ connect: { ca: sim.ca.certPem } });
  });
  after(async () => {
    await sim.close();
    await agent.close();
  });

  it('GET /v1/modules: true for bundled and deprecated modules (they came with an RS), false for uploads', async () => {
    assert.deepEqual(await bundledByName(), {
      'ReJSON 2.6.6': true,
      'graph 2.10.12': true,
      'redisgears_2 2.0.20': true,
      'quillmod 1.0.3': false,
      'search 2.8.99': false,
    });
  });

  it('GET /v1/modules/{uid} answers the same module object, and 404 for an unknown uid', async () => {
    const list = (await get('/v1/modules')).body as unknown as { uid: string; module_name: string }[];
    const graph = list.find((m) => m.module_name === 'graph');
    assert.ok(graph);
    const one = await get(`/v1/modules/${graph.uid}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, graph);
    const missing = await get('/v1/modules/0000');
    assert.equal(missing.status, 404);
  });

  it('POST /v2/modules: a new module is an upload (false); a new build of a bundled module stays bundled', async () => {
    const upload = async (file: string, content: Uint8Array) => {
      const form = new FormData();
      form.append('module', new Blob([content]), file);
      const res = await request(`${sim.url}/v2/modules`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`,
        },
        body: form,
        dispatcher: agent,
      });
      const body = (await res.body.json()) as { is_bundled: boolean; action_uid: string };
      assert.equal(res.statusCode, 200, JSON.stringify(body));
      sim.model.completeAction(body.action_uid);
      return body;
    };
    const fresh = await upload(
      'tessera.Linux-rhel9-x86_64.0.4.1.zip',
      modulePackageBytes({ module: 'tessera', version: '0.4.1' }),
    );
    assert.equal(fresh.is_bundled, false);
    const rebuilt = await upload(
      'rejson.Linux-rhel9-x86_64.2.6.6.zip',
      modulePackageBytes({ module: 'ReJSON', version: '2.6.6' }),
    );
    assert.equal(rebuilt.is_bundled, true);
    const after = await bundledByName();
    assert.equal(after['tessera 0.4.1'], false);
    assert.equal(after['ReJSON 2.6.6'], true);
  });
});
